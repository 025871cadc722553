// SPDX-License-Identifier: MIT
// The per-thread math and index arithmetic of the CUDA RoPE kernels, as
// __host__ __device__ functions: the kernel in rope_cuda.cu is a thin
// __global__ wrapper around them, and hostsim.cc runs the very same functions
// in a host loop over the same grid/block decomposition, so CI (no GPU)
// gates the indexing and the math through every property.
//
// Decomposition: one block per token. Phase A: thread t fills pairs
// t, t + blockDim, ... of the token's cos/sin row in shared memory (from the
// cache, or on the fly). Barrier. Phase B: work item w = t, t + blockDim, ...
// over (tensor, head, vector of V pairs) rotates V pairs with 16-byte loads
// when the layout and alignment allow (V = 16 / sizeof(storage)), else V = 1.
#ifndef ROPECHECK_IMPLS_CUDA_ROPE_CUDA_MATH_CUH_
#define ROPECHECK_IMPLS_CUDA_ROPE_CUDA_MATH_CUH_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "impls/kernel_support/angle_reduction.h"
#include "impls/kernel_support/head_io.h"
#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/layout.h"

namespace ropecheck::cuda {

struct Params {
  std::int64_t tokens;
  int q_heads, kv_heads, head_dim, rotary_dim;
  int dtype, layout;
  float sign;  // -1 for the inverse direction
  const void* q_in;
  void* q_out;
  std::int64_t q_token_stride, q_head_stride;
  const void* k_in;
  void* k_out;
  std::int64_t k_token_stride, k_head_stride;
  // ABI 1.2 batched sequences: token t is index t % seq_len of sequence
  // t / seq_len (seq_len 0: one run of tokens).
  std::int64_t seq_len, q_seq_stride, k_seq_stride;
  const void* positions;
  int positions_are_int64;
  // ABI 1.3 multi-axis: 0 (one position per token) or the axis count; pair
  // i rotates with the id of axis pair_axis[i] (rows axis_stride ids apart).
  int axes;
  std::int64_t axis_stride;
  const int* pair_axis;
  const float* cache;  // cache mode: [cache_rows, rotary_dim], else null
  std::int64_t cache_rows;
  const double* inv_freq;  // on-the-fly mode: rotary_dim/2 frequencies
  float m;                 // on-the-fly mode: attention factor
  int vec;                 // pairs per work item: 1, or 16 / sizeof(storage)
  int* status;             // set to 1 when a position lies outside the cache
};

ROPECHECK_HD inline std::int64_t position_of(const Params& p, std::int64_t token, int axis = 0) {
  const std::int64_t i = axis * p.axis_stride + token;
  return p.positions_are_int64 ? static_cast<const std::int64_t*>(p.positions)[i]
                               : static_cast<const std::int32_t*>(p.positions)[i];
}

ROPECHECK_HD inline bool position_ok(const Params& p, std::int64_t pos) {
  return p.cache == nullptr || (pos >= 0 && pos < p.cache_rows);
}

// sin/cos of a reduced angle in [-pi, pi]: the fast intrinsic on the device
// (CUDA documents 2^-21.41 absolute error there), libm on the host.
ROPECHECK_HD inline void sincos_reduced(float r, float* s, float* c) {
#if defined(__CUDA_ARCH__)
  __sincosf(r, s, c);
#else
  *s = std::sin(r);
  *c = std::cos(r);
#endif
}

// Phase A for pair i of token `token`: writes c[i], s[i] (attention factor
// and direction folded in). Returns false if the position is outside the cache.
ROPECHECK_HD inline bool fill_trig(const Params& p, std::int64_t token, int i, float* c, float* s) {
  const std::int64_t pos = position_of(p, token, p.axes > 0 ? p.pair_axis[i] : 0);
  const int pairs = p.rotary_dim / 2;
  if (!position_ok(p, pos)) return false;
  if (p.cache != nullptr) {
    const float* row = p.cache + pos * p.rotary_dim;
    c[i] = row[i];
    s[i] = p.sign * row[pairs + i];
  } else {
    const float r = static_cast<float>(impl::reduce_two_pi(static_cast<double>(pos) * p.inv_freq[i]));
    float sn, cs;
    sincos_reduced(r, &sn, &cs);
    c[i] = cs * p.m;
    s[i] = p.sign * sn * p.m;
  }
  return true;
}

// 16 bytes as one access: the compiler emits a 128-bit load/store for an
// aligned 16-byte struct copy on the device.
struct alignas(16) Bytes16 {
  unsigned char b[16];
};

// Loads n (<= 8) consecutive elements starting at element `first` into f.
ROPECHECK_HD inline void load_run(const void* base, std::int64_t first, int n, int dtype, bool wide, float* f) {
  const std::size_t es = dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
  if (wide) {
    Bytes16 v = *reinterpret_cast<const Bytes16*>(static_cast<const unsigned char*>(base) + first * es);
    for (int j = 0; j < n; ++j) f[j] = impl::load_f32(v.b, j, dtype);
  } else {
    for (int j = 0; j < n; ++j) f[j] = impl::load_f32(base, first + j, dtype);
  }
}

ROPECHECK_HD inline void store_run(void* base, std::int64_t first, int n, int dtype, bool wide, const float* f) {
  const std::size_t es = dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
  if (wide) {
    Bytes16 v;
    for (int j = 0; j < n; ++j) impl::store_f32(v.b, j, dtype, f[j]);
    *reinterpret_cast<Bytes16*>(static_cast<unsigned char*>(base) + first * es) = v;
  } else {
    for (int j = 0; j < n; ++j) impl::store_f32(base, first + j, dtype, f[j]);
  }
}

// Work items of one token: (q heads + kv heads) x vectors per head.
ROPECHECK_HD inline int items_per_token(const Params& p) {
  return (p.q_heads + p.kv_heads) * (p.rotary_dim / 2 / p.vec);
}

// Phase B, work item w of token `token`: rotates p.vec pairs of one head
// (and, for the first vector of a head, copies pass-through channels when
// out of place).
ROPECHECK_HD inline void rotate_item(const Params& p, std::int64_t token, int w, const float* c, const float* s) {
  const int pairs = p.rotary_dim / 2;
  const int vecs = pairs / p.vec;
  const int head_all = w / vecs;
  const int i0 = (w % vecs) * p.vec;
  const bool is_q = head_all < p.q_heads;
  const int head = is_q ? head_all : head_all - p.q_heads;
  const void* in = is_q ? p.q_in : p.k_in;
  void* out = is_q ? p.q_out : p.k_out;
  const std::int64_t ts = is_q ? p.q_token_stride : p.k_token_stride;
  const std::int64_t off = (p.seq_len > 0 ? (token / p.seq_len) * (is_q ? p.q_seq_stride : p.k_seq_stride) +
                                                (token % p.seq_len) * ts
                                          : token * ts) +
                           head * (is_q ? p.q_head_stride : p.k_head_stride);
  const bool wide = p.vec > 1;
  float x[8], y[8];
  if (p.layout == ROPECHECK_LAYOUT_HALF_SPLIT) {
    load_run(in, off + i0, p.vec, p.dtype, wide, x);
    load_run(in, off + pairs + i0, p.vec, p.dtype, wide, y);
  } else {
    // Interleaved: 2 * vec consecutive channels, x at even, y at odd.
    float xy[16];
    const int half = p.vec;  // 2*vec elements = two 16-byte runs when wide
    load_run(in, off + 2 * i0, half, p.dtype, wide, xy);
    load_run(in, off + 2 * i0 + half, half, p.dtype, wide, xy + half);
    for (int j = 0; j < p.vec; ++j) {
      x[j] = xy[2 * j];
      y[j] = xy[2 * j + 1];
    }
  }
  float ox[8], oy[8];
  for (int j = 0; j < p.vec; ++j) {
    const float cj = c[i0 + j], sj = s[i0 + j];
    ox[j] = x[j] * cj - y[j] * sj;
    oy[j] = x[j] * sj + y[j] * cj;
  }
  if (p.layout == ROPECHECK_LAYOUT_HALF_SPLIT) {
    store_run(out, off + i0, p.vec, p.dtype, wide, ox);
    store_run(out, off + pairs + i0, p.vec, p.dtype, wide, oy);
  } else {
    float xy[16];
    for (int j = 0; j < p.vec; ++j) {
      xy[2 * j] = ox[j];
      xy[2 * j + 1] = oy[j];
    }
    store_run(out, off + 2 * i0, p.vec, p.dtype, wide, xy);
    store_run(out, off + 2 * i0 + p.vec, p.vec, p.dtype, wide, xy + p.vec);
  }
  if (i0 == 0 && in != out) {
    const std::size_t es = p.dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
    for (int j = p.rotary_dim; j < p.head_dim; ++j)
      std::memcpy(static_cast<unsigned char*>(out) + (off + j) * es,
                  static_cast<const unsigned char*>(in) + (off + j) * es, es);
  }
}

// The widest legal vector for a call: 16 bytes per access when every access
// stays 16-byte aligned, else one pair at a time.
inline int choose_vec(const Params& p) {
  const int es = p.dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
  const int v = 16 / es;
  const int pairs = p.rotary_dim / 2;
  auto aligned = [&](const void* ptr, std::int64_t ts, std::int64_t hs, std::int64_t ss) {
    return ptr == nullptr || (reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 && (ts * es) % 16 == 0 &&
                              (hs * es) % 16 == 0 && (ss * es) % 16 == 0);
  };
  const std::int64_t qs = p.seq_len > 0 ? p.q_seq_stride : 0, ks = p.seq_len > 0 ? p.k_seq_stride : 0;
  const bool ok = pairs % v == 0 && (p.layout != ROPECHECK_LAYOUT_HALF_SPLIT || (pairs * es) % 16 == 0) &&
                  aligned(p.q_in, p.q_token_stride, p.q_head_stride, qs) &&
                  aligned(p.q_out, p.q_token_stride, p.q_head_stride, qs) &&
                  aligned(p.k_in, p.k_token_stride, p.k_head_stride, ks) &&
                  aligned(p.k_out, p.k_token_stride, p.k_head_stride, ks);
  return ok ? v : 1;
}

}  // namespace ropecheck::cuda

#endif  // ROPECHECK_IMPLS_CUDA_ROPE_CUDA_MATH_CUH_
