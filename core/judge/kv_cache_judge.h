// SPDX-License-Identifier: MIT
// The verdict on a KV-cache write (ABI 1.4; MLA's caches, 1.5), in the one
// form the gate's cache properties and the golden vectors both use: each
// element a write must hold, with E9's admissible codes
// (core/error_model/cache_write_budget.h) from the exact value and the
// rotation's budget before its store; the codes a run wrote judged against
// them; and the bytes no token's entry covers, which must be as they were.
// Rope/CachesTheRotatedKAndV and Rope/LeavesTheRestOfTheCacheUnchanged
// (properties/) and `golden export` / `golden verify` (golden/) call these,
// so a fused golden vector holds exactly what the gate would admit.
#ifndef ROPECHECK_CORE_JUDGE_KV_CACHE_JUDGE_H_
#define ROPECHECK_CORE_JUDGE_KV_CACHE_JUDGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/kv_write_case.h"
#include "core/error_model/cache_write_budget.h"
#include "core/error_model/error_model.h"
#include "core/judge/judge.h"
#include "core/judge/reference_result.h"
#include "core/kernel/kernel_call.h"

namespace ropecheck {

// One element of a token's entry: k's channel (rotated or passed through;
// MLA: k_pe's) or v's (MLA: kv_c's), where it lies, and the codes it may hold.
struct KvCacheElement {
  bool k = true;            // k's entry, else v's
  bool in_k_cache = true;   // the cache it lies in (MLA_JOINT keeps kv_c in the K cache)
  std::int64_t token = 0;
  int head = 0, channel = 0;
  std::int64_t offset = 0;  // element offset in that cache
  CacheElementBudget budget;
};

// Every element the write of w must hold, for a kernel whose rotation has
// error model em and whose write is declared as `policy`: k's rotated
// channels on the reference's judged tokens (their exact values, and the
// rotation's budget before its store as the error before the scale), then
// per judged token k's pass-through channels and v's (exact: the inputs).
// Tokens with slot -1 hold none. `v` is the v the write was given.
std::vector<KvCacheElement> kv_cache_elements(const JudgedCase& j, const ErrorModel& em, const CacheWritePolicy& policy,
                                              const KvWriteCase& w, const ByteBuffer& v);

// The code of element `i` of a cache of dtype d (little-endian bytes).
std::uint32_t cache_code(const ByteBuffer& cache, std::int64_t i, KvDtype d);

struct KvCacheVerdict {
  std::string first;          // the first element outside its codes, named; "" when none
  std::int64_t worst = 0;     // the most codes any element lies outside
  // E9's tightness (docs/ERROR_MODEL.md): |written value - exact scaled
  // value| over the radius plus half a step of the cache dtype there, on
  // the elements inside the finite range; at most 1 for a correct kernel.
  double tightness = 0;
};
// E9's tightness of one admitted code: |its value - center| over the
// radius plus half a step of d there; 0 outside the finite range (the
// quantized output of ABI 1.8 reads its codes the same way).
double code_tightness(std::uint32_t code, const CacheElementBudget& b, KvDtype d);
// The codes kv's caches hold at each of `elements`.
KvCacheVerdict judge_kv_cache(const Case& c, const KvRun& kv, const std::vector<KvCacheElement>& elements);

// "k_cache[slot 17 (block 1, entry 1), head 0, channel 3] of token 2 at
// position 77" (MLA: "k_pe" or "kv_c" of the slot's entry)
std::string cache_element_name(const Case& c, const KvWriteCase& w, const KvCacheElement& e);
// "" when every byte of both caches that no written entry covers is as it
// was before the call, bit for bit; else where the first changed one lies.
std::string kv_cache_rest_changed(const KvRun& kv);

// The conformance verdict on a run that made a cache write (`golden verify`
// on a fused case, and `golden export` judging the catalogue's fused rows):
// the judge's on q and k (core/judge/judge.h), then the write's codes under
// the kernel's declared error model and kv_policy, then the rest of both
// caches. A run without a write is the judge's verdict alone.
// `depth`: the judge's on q and k (JudgeDepth); the write's is in full.
CaseOutcome judge_with_kv_write(const ropecheck_impl_t& impl, const JudgedCase& j, const KernelRun& run,
                                JudgeDepth depth = JudgeDepth::kFull);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_KV_CACHE_JUDGE_H_
