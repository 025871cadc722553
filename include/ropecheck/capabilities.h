// SPDX-License-Identifier: MIT
/* Which frequency specs the restricting capability flags of ABI 1.1 and 1.7
 * exclude (kernel_abi.h, ROPECHECK_CAP_YARN_TRUNCATED_ONLY and after,
 * NO_YARN_MSCALE), and which
 * caller cos/sin cache dtypes a 1.6 table reads: the rules the gate's skip
 * and draw (core/kernel, core/cases) and a kernel's own argument check
 * (impls/kernel_support/abi_check.cc) share. C++ only, header-only. */
#ifndef ROPECHECK_CAPABILITIES_H_
#define ROPECHECK_CAPABILITIES_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// nullptr when a kernel with caps.flags `flags` supports the spec's scheme
// parameters; else why not, naming the field ("freq.truncate: ...").
constexpr const char* outside_spec_flags(uint32_t flags, uint32_t scheme, int32_t truncate,
                                         int32_t has_attention_factor, int64_t seq_len,
                                         int64_t original_max_position, double mscale, double mscale_all_dim) {
  if ((flags & ROPECHECK_CAP_YARN_TRUNCATED_ONLY) && scheme == ROPECHECK_SCHEME_YARN && !truncate)
    return "freq.truncate: 0 (the kernel declares YARN_TRUNCATED_ONLY)";
  if ((flags & ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR) && has_attention_factor)
    return "freq.has_attention_factor: 1 (the kernel declares NO_EXPLICIT_ATTENTION_FACTOR)";
  if ((flags & ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN) &&
      (scheme == ROPECHECK_SCHEME_DYNAMIC_NTK || scheme == ROPECHECK_SCHEME_LONGROPE) &&
      seq_len > original_max_position)
    return "freq.seq_len: beyond original_max_position (the kernel declares NO_RUNTIME_SEQ_LEN)";
  if ((flags & ROPECHECK_CAP_NO_YARN_MSCALE) && scheme == ROPECHECK_SCHEME_YARN &&
      (mscale > 0 || mscale_all_dim > 0))
    return "freq.mscale: DeepSeek's mscale / mscale_all_dim set (the kernel declares NO_YARN_MSCALE)";
  return nullptr;
}

// 1.6: whether a table whose cos_sin_cache_dtypes is `declared` reads a
// caller's cos/sin cache of dtype `cache` in a call of storage dtype
// `storage` (ROPECHECK_COS_SIN_CACHE_OF_STORAGE: the storage dtype itself).
// The host draws only such dtypes (core/cases/cos_sin_cache_case.h); a
// kernel refuses the others.
constexpr bool cos_sin_cache_dtype_accepted(uint32_t declared, uint32_t cache, uint32_t storage) {
  if (cache != ROPECHECK_DTYPE_F32 && cache != ROPECHECK_DTYPE_F16 && cache != ROPECHECK_DTYPE_BF16) return false;
  return (declared & (1u << cache)) || ((declared & ROPECHECK_COS_SIN_CACHE_OF_STORAGE) && cache == storage);
}

}  // namespace ropecheck

#endif  // ROPECHECK_CAPABILITIES_H_
