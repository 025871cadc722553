// SPDX-License-Identifier: MIT
// The qk-norm fused with a rotation: normalise into dense heads, rotate, store.
#include "impls/kernel_support/qk_norm_fused.h"

#include <cstdint>
#include <vector>

#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/token_offsets.h"
#include "ropecheck/dtype.h"

namespace ropecheck::impl {
namespace {

struct Tensor {
  int heads;
  TensorStrides st;
  const void* in;
  void* out;
  const void* weight;
  std::vector<unsigned char> a, b;  // dense [tokens, heads, head_dim]: the stages
};

// Rotates the dense heads of ts[*].a into ts[*].b, in dtype `dense`.
ropecheck_status_t rotate_dense(const ropecheck_impl_t& rotation, const ropecheck_apply_params_t& p, Tensor* ts,
                                std::uint32_t dense, char* err, std::size_t n) {
  ropecheck_apply_params_t rp = p;
  rp.qk_norm = nullptr;
  rp.kv_write = nullptr;
  rp.dtype = dense;
  rp.q_in = ts[0].a.data();
  rp.q_out = ts[0].b.data();
  rp.k_in = ts[1].heads ? ts[1].a.data() : nullptr;
  rp.k_out = ts[1].heads ? ts[1].b.data() : nullptr;
  rp.q_token_stride = static_cast<std::int64_t>(ts[0].heads) * p.head_dim;
  rp.k_token_stride = static_cast<std::int64_t>(ts[1].heads) * p.head_dim;
  rp.q_head_stride = rp.k_head_stride = p.head_dim;
  rp.seq_len = rp.q_seq_stride = rp.k_seq_stride = 0;
  return rotation.apply(rotation.ctx, &rp, err, n);
}

}  // namespace

ropecheck_status_t norm_then_rotate(const ropecheck_impl_t& rotation, const ropecheck_apply_params_t& p,
                                    const ropecheck_qk_norm_t& qn, const FusedNormOptions& o, char* err,
                                    std::size_t n) {
  const std::int64_t T = p.num_tokens;
  const int D = p.head_dim;
  const std::uint32_t storage = o.rounding_dtype == 0xff ? p.dtype : o.rounding_dtype;
  const bool kept = o.arithmetic.intermediate == ROPECHECK_NORM_KEEP_F32;
  // A rotation of the dense heads runs in fp32 when the norm's result is
  // fp32 (or when it comes first, on fp32 copies), else in the storage dtype.
  const std::uint32_t dense = kept || o.rotate_first ? static_cast<std::uint32_t>(ROPECHECK_DTYPE_F32) : p.dtype;
  Tensor ts[2] = {{p.num_q_heads, q_strides(p), p.q_in, p.q_out, qn.q_weight, {}, {}},
                  {p.num_kv_heads, k_strides(p), p.k_in, p.k_out, qn.k_weight, {}, {}}};
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(dense));
  std::vector<float> x(static_cast<std::size_t>(D)), w(static_cast<std::size_t>(D)), y(static_cast<std::size_t>(D));
  // Stage a: the normalised heads (or, rotating first, the inputs in fp32).
  for (Tensor& t : ts) {
    if (t.heads == 0) continue;
    t.a.resize(static_cast<std::size_t>(T * t.heads * D) * es);
    t.b.resize(t.a.size());
    for (int c = 0; c < D; ++c) w[static_cast<std::size_t>(c)] = load_f32(t.weight, c, p.dtype);
    for (std::int64_t tok = 0; tok < T; ++tok)
      for (int h = 0; h < t.heads; ++h) {
        const std::int64_t at = t.st.offset(tok, h);
        for (int c = 0; c < D; ++c) x[static_cast<std::size_t>(c)] = load_f32(t.in, at + c, p.dtype);
        if (o.rotate_first) {
          y = x;
        } else {
          rms_norm_head(x.data(), D, w.data(), qn.eps, o.arithmetic, storage, y.data());
        }
        for (int c = 0; c < D; ++c) store_f32(t.a.data(), (tok * t.heads + h) * D + c, dense, y[static_cast<std::size_t>(c)]);
      }
  }
  if (auto s = rotate_dense(rotation, p, ts, dense, err, n)) return s;
  // The store into the caller's layout (KEEP_F32: fp32 rounded to S here),
  // or, rotating first, the norm of each rotated head on the way.
  for (Tensor& t : ts) {
    if (t.heads == 0) continue;
    for (int c = 0; c < D; ++c) w[static_cast<std::size_t>(c)] = load_f32(t.weight, c, p.dtype);
    for (std::int64_t tok = 0; tok < T; ++tok)
      for (int h = 0; h < t.heads; ++h) {
        const std::int64_t dense_at = (tok * t.heads + h) * D;
        for (int c = 0; c < D; ++c) y[static_cast<std::size_t>(c)] = load_f32(t.b.data(), dense_at + c, dense);
        if (o.rotate_first) {
          x = y;
          rms_norm_head(x.data(), D, w.data(), qn.eps, o.arithmetic, storage, y.data());
        }
        for (int c = 0; c < D; ++c) store_f32(t.out, t.st.offset(tok, h) + c, p.dtype, y[static_cast<std::size_t>(c)]);
      }
  }
  return ROPECHECK_OK;
}

}  // namespace ropecheck::impl
