// SPDX-License-Identifier: MIT
// What the timer-gaming misbehaving kernels (misbehaving_kernel.cc: caches
// by pointer, by input hash, correct only on the first call) keep between
// calls, and the byte extents of a call's q and k they keep and return.
#ifndef ROPECHECK_MUTANTS_KEPT_RESULTS_H_
#define ROPECHECK_MUTANTS_KEPT_RESULTS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

// Bytes from q_out (k_out) to the end of its last element; 0 for no k.
std::size_t q_bytes(const ropecheck_apply_params_t* p);
std::size_t k_bytes(const ropecheck_apply_params_t* p);

struct StaleEntry {
  std::vector<unsigned char> q, k;
};
// The results of earlier calls, by where q_in was and how big q is: what a
// kernel rewarded by a benchmark that times it on the same tensors over and
// over may keep. In a process of its own per call it never finds one; in a
// process that lives across calls it finds those of other cases whose
// buffers happened to sit at the same address.
std::map<std::pair<const void*, std::size_t>, StaleEntry>& stale_results();
// The results of earlier calls by a hash of a sample of their inputs (the
// shape, the first positions, 32 elements spread over q_in and 32 over
// k_in): what a kernel keeps that is rewarded by a benchmark calling it on
// the same inputs, hashing all of them costing as much as computing.
std::uint64_t sampled_input_hash(const ropecheck_apply_params_t* p);
std::map<std::uint64_t, StaleEntry>& hashed_results();
// The result of the first call in this process (first_call_only).
StaleEntry& first_result();
// Returns a kept result into the outputs when it fits them.
bool return_kept(const StaleEntry& e, const ropecheck_apply_params_t* p);
void keep_result(StaleEntry& e, const ropecheck_apply_params_t* p);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_KEPT_RESULTS_H_
