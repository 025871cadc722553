// SPDX-License-Identifier: MIT
// What every SIMD kernel's ABI entry point shares (defined in rope_simd.cc,
// outside any per-target code, so no Highway types): the check of a pinned
// target (ROPECHECK_SIMD_TARGET), the job of a call that passed the contract
// check, and running a job's rows on the allowed threads (row_split.h,
// worker_pool.h). The rotation-only kernels (rope_simd.cc) and the fused
// KV-cache write (fused_kv_simd.cc) make their calls the same way, so a call
// of either splits and pins alike.
#ifndef ROPECHECK_IMPLS_SIMD_SIMD_CALL_H_
#define ROPECHECK_IMPLS_SIMD_SIMD_CALL_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "impls/kernel_support/pair_axes.h"
#include "impls/simd/simd_job.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

// OK, or INVALID_ARGUMENT with the message of simd_target_pin_error().
ropecheck_status_t check_simd_target(char* err, std::size_t n);

// The job of a checked call: tensors, shape, layout, positions, direction,
// threads; no cos/sin source and no axes yet.
SimdJob simd_job_of(const ropecheck_apply_params_t& p);

// A multi-axis call's pair-to-axis map into the job; `m` must outlive it.
void set_simd_job_axes(const ropecheck_apply_params_t& p, const PairAxisMap& m, SimdJob* j);

// rows(begin, end, scratch) on each thread's share of the job's rows
// (split_rows over the call's num_threads, else set_simd_threads'), scratch
// being that thread's scratch_floats(j) floats; returns when all did.
void run_simd_rows(const SimdJob& j, const std::function<void(std::int64_t, std::int64_t, float*)>& rows);

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_SIMD_SIMD_CALL_H_
