// SPDX-License-Identifier: MIT
// Iteration over the heads of q and k and conversion of one head between its
// storage dtype and fp32, shared by the scalar kernels.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_HEAD_IO_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_HEAD_IO_H_

#include <cstdint>
#include <cstring>

#include "impls/kernel_support/token_offsets.h"
#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/layout.h"

namespace ropecheck::impl {

// Host and device (the CUDA kernels use them too).
ROPECHECK_HD inline float load_f32(const void* base, std::int64_t i, std::uint32_t dtype) {
  switch (dtype) {
    case ROPECHECK_DTYPE_F16: return f16_to_f32(static_cast<const std::uint16_t*>(base)[i]);
    case ROPECHECK_DTYPE_BF16: return bf16_to_f32(static_cast<const std::uint16_t*>(base)[i]);
    case ROPECHECK_DTYPE_F64: return static_cast<float>(static_cast<const double*>(base)[i]);
    default: return static_cast<const float*>(base)[i];
  }
}

ROPECHECK_HD inline void store_f32(void* base, std::int64_t i, std::uint32_t dtype, float v) {
  switch (dtype) {
    case ROPECHECK_DTYPE_F16: static_cast<std::uint16_t*>(base)[i] = f32_to_f16(v); break;
    case ROPECHECK_DTYPE_BF16: static_cast<std::uint16_t*>(base)[i] = f32_to_bf16(v); break;
    case ROPECHECK_DTYPE_F64: static_cast<double*>(base)[i] = v; break;
    default: static_cast<float*>(base)[i] = v; break;
  }
}

// One head to rotate: element offset of its first channel in the in/out
// buffers, and its token's position.
struct HeadRef {
  const void* in;
  void* out;
  std::int64_t offset;
  std::int64_t token;
  std::int64_t position;
};

// Calls fn(HeadRef) for every q head then every k head. Pass-through channels
// [rotary_dim, head_dim) are copied bit for bit when out-of-place.
template <class Fn, class PositionFn>
void for_each_head(const ropecheck_apply_params_t& p, PositionFn position_of, Fn&& fn) {
  const std::size_t esize = dtype_size(static_cast<ropecheck_dtype_t>(p.dtype));
  auto run = [&](const void* in, void* out, const TensorStrides& st, int heads) {
    for (std::int64_t t = 0; t < p.num_tokens; ++t) {
      const std::int64_t pos = position_of(t);
      for (int h = 0; h < heads; ++h) {
        const std::int64_t off = st.offset(t, h);
        if (in != out && p.rotary_dim < p.head_dim) {
          std::memcpy(static_cast<char*>(out) + (off + p.rotary_dim) * esize,
                      static_cast<const char*>(in) + (off + p.rotary_dim) * esize,
                      static_cast<std::size_t>(p.head_dim - p.rotary_dim) * esize);
        }
        fn(HeadRef{in, out, off, t, pos});
      }
    }
  };
  if (p.num_q_heads > 0) run(p.q_in, p.q_out, q_strides(p), p.num_q_heads);
  if (p.num_kv_heads > 0) run(p.k_in, p.k_out, k_strides(p), p.num_kv_heads);
}

// As for_each_head, calling new_position(position) before the first head of
// each run of heads at one position (the heads of a token, and tokens that
// repeat a position), so a kernel fills its cos/sin row once per position.
template <class PositionFn, class NewPositionFn, class Fn>
void for_each_head_by_position(const ropecheck_apply_params_t& p, PositionFn position_of, NewPositionFn new_position,
                               Fn&& fn) {
  bool have = false;
  std::int64_t have_pos = 0;
  for_each_head(p, position_of, [&](const HeadRef& h) {
    if (!have || h.position != have_pos) {
      new_position(h.position);
      have = true;
      have_pos = h.position;
    }
    fn(h);
  });
}

// Rotates the rotary pairs of one head in fp32, pairing channels by
// `layout`, with per-pair c[i], s[i] that already carry the attention factor
// and the direction: x' = x c - y s, y' = x s + y c.
inline void rotate_head_pairs(const ropecheck_apply_params_t& p, const HeadRef& h, unsigned layout,
                              const float* c, const float* s) {
  for (int i = 0; i < p.rotary_dim / 2; ++i) {
    int ia, ib;
    pair_channels(layout, p.rotary_dim, i, &ia, &ib);
    const float x = load_f32(h.in, h.offset + ia, p.dtype);
    const float y = load_f32(h.in, h.offset + ib, p.dtype);
    store_f32(h.out, h.offset + ia, p.dtype, x * c[i] - y * s[i]);
    store_f32(h.out, h.offset + ib, p.dtype, x * s[i] + y * c[i]);
  }
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_HEAD_IO_H_
