/* Which frequency specs the restricting capability flags of ABI 1.1 exclude
 * (kernel_abi.h, ROPECHECK_CAP_YARN_TRUNCATED_ONLY and after): the one rule
 * the gate's skip (core/kernel/kernel_call.cc) and a kernel's own argument check
 * (impls/kernel_support/abi_check.cc) share. C++ only, header-only. */
#ifndef ROPECHECK_CAPABILITIES_H_
#define ROPECHECK_CAPABILITIES_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// nullptr when a kernel with caps.flags `flags` supports the spec's scheme
// parameters; else why not, naming the field ("freq.truncate: ...").
constexpr const char* outside_spec_flags(uint32_t flags, uint32_t scheme, int32_t truncate,
                                         int32_t has_attention_factor, int64_t seq_len,
                                         int64_t original_max_position) {
  if ((flags & ROPECHECK_CAP_YARN_TRUNCATED_ONLY) && scheme == ROPECHECK_SCHEME_YARN && !truncate)
    return "freq.truncate: 0 (the kernel declares YARN_TRUNCATED_ONLY)";
  if ((flags & ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR) && has_attention_factor)
    return "freq.has_attention_factor: 1 (the kernel declares NO_EXPLICIT_ATTENTION_FACTOR)";
  if ((flags & ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN) &&
      (scheme == ROPECHECK_SCHEME_DYNAMIC_NTK || scheme == ROPECHECK_SCHEME_LONGROPE) &&
      seq_len > original_max_position)
    return "freq.seq_len: beyond original_max_position (the kernel declares NO_RUNTIME_SEQ_LEN)";
  return nullptr;
}

}  // namespace ropecheck

#endif  // ROPECHECK_CAPABILITIES_H_
