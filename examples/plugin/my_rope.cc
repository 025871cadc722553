// SPDX-License-Identifier: MIT
// A minimal external RoPE kernel: the default frequency scheme, both pair
// layouts, fp32 / fp16 / bf16 storage, partial rotary, GQA, strides, in place
// or not, forward or inverse. It declares exactly what it supports (caps) and
// how precisely it computes (policy); ropecheck skips the rest and holds it to
// the budget of that policy.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/layout.h"

namespace {

float load(const void* base, std::int64_t i, std::uint32_t dtype) {
  switch (dtype) {
    case ROPECHECK_DTYPE_F16: return ropecheck::f16_to_f32(static_cast<const std::uint16_t*>(base)[i]);
    case ROPECHECK_DTYPE_BF16: return ropecheck::bf16_to_f32(static_cast<const std::uint16_t*>(base)[i]);
    default: return static_cast<const float*>(base)[i];
  }
}

void store(void* base, std::int64_t i, std::uint32_t dtype, float v) {
  switch (dtype) {
    case ROPECHECK_DTYPE_F16: static_cast<std::uint16_t*>(base)[i] = ropecheck::f32_to_f16(v); break;
    case ROPECHECK_DTYPE_BF16: static_cast<std::uint16_t*>(base)[i] = ropecheck::f32_to_bf16(v); break;
    default: static_cast<float*>(base)[i] = v; break;
  }
}

ropecheck_status_t fail(char* err, std::size_t n, ropecheck_status_t st, const char* what) {
  if (n) std::snprintf(err, n, "%s", what);
  return st;
}

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (!p || p->struct_size < sizeof(ropecheck_apply_params_t)) return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "params.struct_size");
  if (p->rotary_dim < 2 || p->rotary_dim % 2 || p->rotary_dim > p->head_dim)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "rotary_dim must be even and in [2, head_dim]");
  const int d = p->rotary_dim, pairs = d / 2;
  // Frequencies and angles in double, sin/cos in double, rotation in fp32.
  std::vector<double> inv_freq(pairs);
  for (int i = 0; i < pairs; ++i) inv_freq[i] = 1.0 / std::pow(p->freq->base, 2.0 * i / d);
  const double sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0 : 1.0;
  const std::size_t esize = p->dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
  std::vector<float> c(pairs), s(pairs);
  auto rotate = [&](const void* in, void* out, std::int64_t token_stride, std::int64_t head_stride, int heads) {
    for (std::int64_t t = 0; t < p->num_tokens; ++t) {
      const std::int64_t pos = p->position_type == ROPECHECK_INDEX_INT32
                                   ? static_cast<const std::int32_t*>(p->positions)[t]
                                   : static_cast<const std::int64_t*>(p->positions)[t];
      for (int i = 0; i < pairs; ++i) {
        const double a = static_cast<double>(pos) * inv_freq[i];
        c[i] = static_cast<float>(std::cos(a));
        s[i] = static_cast<float>(sign * std::sin(a));
      }
      for (int h = 0; h < heads; ++h) {
        const std::int64_t off = t * token_stride + h * head_stride;
        for (int i = 0; i < pairs; ++i) {
          int a, b;
          ropecheck::pair_channels(static_cast<ropecheck_layout_t>(p->layout), d, i, &a, &b);
          const float x = load(in, off + a, p->dtype), y = load(in, off + b, p->dtype);
          store(out, off + a, p->dtype, x * c[i] - y * s[i]);
          store(out, off + b, p->dtype, x * s[i] + y * c[i]);
        }
        if (in != out)  // pass-through channels, bit for bit
          std::memcpy(static_cast<char*>(out) + (off + d) * esize, static_cast<const char*>(in) + (off + d) * esize,
                      static_cast<std::size_t>(p->head_dim - d) * esize);
      }
    }
  };
  rotate(p->q_in, p->q_out, p->q_token_stride, p->q_head_stride, p->num_q_heads);
  if (p->num_kv_heads > 0) rotate(p->k_in, p->k_out, p->k_token_stride, p->k_head_stride, p->num_kv_heads);
  return ROPECHECK_OK;
}

const ropecheck_impl_t kImpl = {
    sizeof(ropecheck_impl_t),
    ROPECHECK_ABI_VERSION,
    "my_rope",
    "example plugin: default scheme, both layouts, fp32/fp16/bf16",
    {sizeof(ropecheck_caps_t),
     (1u << ROPECHECK_LAYOUT_INTERLEAVED) | (1u << ROPECHECK_LAYOUT_HALF_SPLIT),
     (1u << ROPECHECK_DTYPE_F32) | (1u << ROPECHECK_DTYPE_F16) | (1u << ROPECHECK_DTYPE_BF16),
     1u << ROPECHECK_SCHEME_DEFAULT,
     4096,
     ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_INVERSE | ROPECHECK_CAP_PARTIAL_ROTARY |
         ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_NEGATIVE_POSITIONS},
    {sizeof(ropecheck_policy_t), ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_SINCOS_LIBM, 0.0,
     ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32},
    nullptr,
    apply,
    nullptr,
    nullptr,
    // ABI 1.1: the rest of the policy; all zero means the 1.0 defaults
    // (rotation products and sum rounded separately, libm within 1 ulp).
    ROPECHECK_ABI_VERSION_MINOR,
    0,
    {sizeof(ropecheck_policy_ext_t), ROPECHECK_ROTATION_SEPARATE, 0.0, 0.0, 0.0, 0.0, 0, 0},
    // ABI 1.4: no KV-cache write (caps.flags does not grant KV_CACHE_WRITE).
    {},
};
const ropecheck_impl_t* const kTable[] = {&kImpl};

}  // namespace

// The one symbol ropecheck looks up. Refuse a host speaking another ABI.
extern "C" __attribute__((visibility("default"))) const ropecheck_impl_t* const* ropecheck_get_impls(
    std::uint32_t host_abi_version, std::uint32_t* count) {
  if (host_abi_version != ROPECHECK_ABI_VERSION) return nullptr;
  *count = 1;
  return kTable;
}
