// SPDX-License-Identifier: MIT
// What the isolation tests share: a probe kernel's table, and the params of
// a call on one q head (and one k head, when given) of `tokens` contiguous
// f32 tokens, head_dim == rotary_dim, positions int64, the default scheme.
// The buffers are the caller's.
#ifndef ROPECHECK_CORE_TEST_PROBE_KERNEL_H_
#define ROPECHECK_CORE_TEST_PROBE_KERNEL_H_

#include <cstdint>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::test {

inline ropecheck_impl_t probe_table(const char* name, decltype(ropecheck_impl_t::apply) apply,
                                    decltype(ropecheck_impl_t::build_cache) build = nullptr,
                                    std::uint32_t flags = 0) {
  ropecheck_impl_t t{};
  t.struct_size = sizeof t;
  t.abi_version = ROPECHECK_ABI_VERSION;
  t.name = name;
  t.description = "";
  t.apply = apply;
  t.build_cache = build;
  t.caps.flags = flags;
  return t;
}

struct OneHeadCall {
  ropecheck_freq_spec_t f{};
  ropecheck_apply_params_t p{};
  OneHeadCall(std::int64_t tokens, int head_dim, const std::int64_t* positions, const float* q_in, float* q_out,
              const float* k_in = nullptr, float* k_out = nullptr) {
    f.scheme = ROPECHECK_SCHEME_DEFAULT;
    f.base = 10000;
    p.struct_size = sizeof p;
    p.dtype = ROPECHECK_DTYPE_F32;
    p.num_tokens = tokens;
    p.num_q_heads = 1;
    p.num_kv_heads = k_in ? 1 : 0;
    p.head_dim = p.rotary_dim = head_dim;
    p.q_token_stride = p.k_token_stride = p.q_head_stride = p.k_head_stride = head_dim;
    p.q_in = q_in;
    p.q_out = q_out;
    p.k_in = k_in;
    p.k_out = k_out;
    p.positions = positions;
    p.position_type = ROPECHECK_INDEX_INT64;
    p.freq = &f;
  }
  OneHeadCall(const OneHeadCall&) = delete;  // p points into it
};

}  // namespace ropecheck::test

#endif  // ROPECHECK_CORE_TEST_PROBE_KERNEL_H_
