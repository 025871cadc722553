// SPDX-License-Identifier: MIT
// The bytes one ABI apply call reads and writes, as isolation copies them:
// each view's extent, the position ids (every axis row of ABI 1.3), the
// cos/sin cache's element size, the KV-cache write's buffers (ABI 1.4;
// 1.5's MLA caches), the qk-norm's weights (1.5),
// and the frequency spec with its arrays
// planned into guarded copies and patched to point at them. Read from the
// params alone: isolation calls these before anything of the call is
// trusted.
#ifndef ROPECHECK_CORE_ISOLATION_CALL_EXTENTS_H_
#define ROPECHECK_CORE_ISOLATION_CALL_EXTENTS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/isolation/guarded_copies.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Elements from a view's first to its last (q when `q`, else k), the
// sequence stride of ABI 1.2 included (its fields are read only when
// struct_size covers them); 0 for an empty or malformed view.
std::int64_t extent(const ropecheck_apply_params_t& p, bool q);

// True for an ABI 1.3 call with position axes.
bool multi_axis(const ropecheck_apply_params_t& p);

// Position ids the call's buffer holds: one row, or (ABI 1.3) num_axes rows
// position_axis_stride apart; -1 when the multi-axis fields are not sane.
std::int64_t position_ids(const ropecheck_apply_params_t& p);

// Bytes per element of a cos/sin cache of `dtype` (4 for an unknown one:
// the kernel refuses it, after a copy that cannot be short).
std::size_t cos_sin_dtype_size(std::uint32_t dtype);

// The frequency spec's arrays (rotary_dim/2 entries each) and the spec
// itself, planned; `patched` is filled by patch_freq once they are placed.
struct FreqCopies {
  int short_factor = -1, long_factor = -1, inv_freq = -1, spec = -1;
};
FreqCopies plan_freq(GuardedCopies& b, const ropecheck_freq_spec_t* f, int rotary_dim,
                     const ropecheck_freq_spec_t* patched);
// The placed spec, its array pointers patched to the copies (null for none).
const ropecheck_freq_spec_t* patch_freq(const GuardedCopies& b, const FreqCopies& c, const ropecheck_freq_spec_t* f,
                                        ropecheck_freq_spec_t* patched);

// Empty when the write's fields describe buffers isolation can copy, else
// what is wrong (the kernel then refuses the call in a child of its own).
std::string kv_write_insane(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w);
// The write's buffers (the caches as outputs, copied in and back; v, the
// slot mapping and the scales as inputs) and the struct itself, planned;
// patch_kv_write points the struct's copy at them once they are placed.
struct KvCopies {
  int k_cache = -1, v_cache = -1, v = -1, slots = -1, k_scale = -1, v_scale = -1, spec = -1;
  std::size_t cache_bytes = 0, v_cache_bytes = 0;
};
KvCopies plan_kv_write(GuardedCopies& b, const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w,
                       const ropecheck_kv_write_t* patched);
const ropecheck_kv_write_t* patch_kv_write(const GuardedCopies& b, const KvCopies& c, const ropecheck_kv_write_t& w,
                                           ropecheck_kv_write_t* patched);

// The qk-norm's (ABI 1.5) weights as inputs and the struct itself, as the
// KV write's: empty when its fields are sane, else what is wrong.
std::string qk_norm_insane(const ropecheck_apply_params_t& p, const ropecheck_qk_norm_t& n);
struct QkNormCopies {
  int q_weight = -1, k_weight = -1, spec = -1;
};
QkNormCopies plan_qk_norm(GuardedCopies& b, const ropecheck_apply_params_t& p, const ropecheck_qk_norm_t& n,
                          const ropecheck_qk_norm_t* patched);
const ropecheck_qk_norm_t* patch_qk_norm(const GuardedCopies& b, const QkNormCopies& c, const ropecheck_qk_norm_t& n,
                                         ropecheck_qk_norm_t* patched);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_CALL_EXTENTS_H_
