// SPDX-License-Identifier: MIT
// The quantized-output rows of the catalogue and their correct kernel.
#include "mutants/quant_out_mutants.h"

#include <deque>
#include <mutex>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/token_offsets.h"
#include "mutants/mutant_kernel.h"
#include "ropecheck/quant_out.h"

namespace ropecheck::mutant {
namespace {

struct QuantKernel {
  Bug bug;  // Bug::none: the correct kernel
  const ropecheck_impl_t* rotation;
  ropecheck_caps_t caps;
};

// What the table declares (FlashInfer's pos_enc.cuh: x * quant_scale, then
// a __NV_SATFINITE cast), q and k both quantized (its rope_quantize).
constexpr ropecheck_quant_policy_t kQuantPolicy{
    sizeof(ropecheck_quant_policy_t),
    (1u << ROPECHECK_KV_FP8_E4M3FN) | (1u << ROPECHECK_KV_FP8_E5M2),
    ROPECHECK_KV_SCALE_MULTIPLY,
    1u,
    ROPECHECK_QUANT_K_QUANTIZED,
    0u};

// One tensor of the call, dense [tokens, heads, head_dim] in fp32: its
// input (exact: every storage value is an fp32 value) and its rotation.
struct Dense {
  std::vector<float> in, out;
  int heads = 0;
};

Dense dense_input(const ropecheck_apply_params_t& p, bool q) {
  Dense d;
  d.heads = q ? p.num_q_heads : p.num_kv_heads;
  const impl::TensorStrides st = q ? impl::q_strides(p) : impl::k_strides(p);
  const void* in = q ? p.q_in : p.k_in;
  const std::int64_t D = p.head_dim;
  d.in.resize(static_cast<std::size_t>(p.num_tokens * d.heads * D));
  d.out.resize(d.in.size());
  for (std::int64_t t = 0; t < p.num_tokens; ++t)
    for (int h = 0; h < d.heads; ++h)
      for (std::int64_t c = 0; c < D; ++c)
        d.in[static_cast<std::size_t>((t * d.heads + h) * D + c)] = impl::load_f32(in, st.offset(t, h) + c, p.dtype);
  return d;
}

// The row's quantization of one value (Bug::none: as declared).
std::uint8_t encode(Bug bug, float x, float scale, Fp8Format f) {
  switch (bug) {
    case Bug::quant_scale_divided: return quantize_element(x, scale, ROPECHECK_KV_SCALE_DIVIDE, f, true);
    case Bug::quant_formats_swapped:
      return quantize_element(x, scale, ROPECHECK_KV_SCALE_MULTIPLY,
                              f == Fp8Format::kE4M3FN ? Fp8Format::kE5M2 : Fp8Format::kE4M3FN, true);
    case Bug::quant_before_rotation: return f32_to_fp8(x, f, true);  // x already scaled and quantized once
    default: return quantize_element(x, scale, ROPECHECK_KV_SCALE_MULTIPLY, f, true);
  }
}

// quant_before_rotation: the input quantized (scaled, rounded to fp8) and
// the rotation run on those values, as a kernel that casts its activations
// to fp8 first would.
void quantize_input(std::vector<float>& v, float scale, Fp8Format f) {
  for (float& x : v) x = fp8_to_f32(quantize_element(x, scale, ROPECHECK_KV_SCALE_MULTIPLY, f, true), f);
}

// The control's rotation of both dense tensors in fp32 (its math dtype: the
// fp32 result is the value before any store): the params of that call.
ropecheck_apply_params_t dense_rotation(const ropecheck_apply_params_t& p, Dense& q, Dense& kk) {
  ropecheck_apply_params_t r = p;
  r.struct_size = ROPECHECK_APPLY_PARAMS_SIZE_1_7;  // no quant_out: a plain rotation
  r.dtype = ROPECHECK_DTYPE_F32;
  r.kv_write = nullptr;
  r.qk_norm = nullptr;
  r.q_in = q.in.data();
  r.q_out = q.out.data();
  r.q_token_stride = static_cast<std::int64_t>(q.heads) * p.head_dim;
  r.q_head_stride = p.head_dim;
  r.k_in = kk.heads ? kk.in.data() : nullptr;
  r.k_out = kk.heads ? kk.out.data() : nullptr;
  r.k_token_stride = static_cast<std::int64_t>(kk.heads) * p.head_dim;
  r.k_head_stride = p.head_dim;
  r.seq_len = r.q_seq_stride = r.k_seq_stride = 0;
  return r;
}

// The fp8 codes of q (or k) under the call's quant_out, with the row's bug.
void store_codes(Bug bug, const ropecheck_apply_params_t& p, const Dense& d, bool q, const ropecheck_quant_out_t& qo) {
  const float scale = q ? qo.q_scale : qo.k_scale;
  const Fp8Format f = quant_format(qo.dtype);
  const impl::TensorStrides st = q ? impl::q_strides(p) : impl::k_strides(p);
  auto* out = static_cast<std::uint8_t*>(q ? p.q_out : p.k_out);
  const std::int64_t D = p.head_dim;
  for (std::int64_t t = 0; t < p.num_tokens; ++t)
    for (int h = 0; h < d.heads; ++h)
      for (std::int64_t c = 0; c < D; ++c)
        out[st.offset(t, h) + c] = encode(bug, d.out[static_cast<std::size_t>((t * d.heads + h) * D + c)], scale, f);
}

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const QuantKernel& k = *static_cast<const QuantKernel*>(ctx);
  if (auto s = impl::check_apply(k.caps, p, err, n)) return s;
  const ropecheck_quant_out_t* qo = quant_out_of(*p);
  if (qo == nullptr) return k.rotation->apply(k.rotation->ctx, p, err, n);
  if (p->num_tokens == 0) return ROPECHECK_OK;
  const Fp8Format f = quant_format(qo->dtype);
  Dense q = dense_input(*p, true), kk = dense_input(*p, false);
  if (k.bug == Bug::quant_before_rotation) {
    quantize_input(q.in, qo->q_scale, f);
    quantize_input(kk.in, qo->k_scale, f);
  }
  const ropecheck_apply_params_t r = dense_rotation(*p, q, kk);
  if (auto s = k.rotation->apply(k.rotation->ctx, &r, err, n)) return s;
  store_codes(k.bug, *p, q, true, *qo);
  if (kk.heads) store_codes(k.bug, *p, kk, false, *qo);
  return ROPECHECK_OK;
}

ropecheck_impl_t table(Bug bug, const char* name, const char* description, const ropecheck_impl_t* rotation) {
  static std::deque<QuantKernel> kernels;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  // Out of place only: fp8 codes cannot overwrite the input.
  ropecheck_caps_t caps = impl::standard_caps(impl::kBothLayouts, ROPECHECK_CAP_QUANTIZED_OUTPUT);
  caps.flags &= ~ROPECHECK_CAP_IN_PLACE;
  QuantKernel& k = kernels.emplace_back(QuantKernel{bug, rotation, caps});
  ropecheck_impl_t t =
      impl::kernel_table(name, description, caps, policy_of(*rotation), apply, nullptr, nullptr, &k);
  t.quant_policy = kQuantPolicy;
  return t;
}

}  // namespace

bool is_quant_out_bug(Bug bug) {
  switch (bug) {
    case Bug::quant_scale_divided:
    case Bug::quant_before_rotation:
    case Bug::quant_formats_swapped: return true;
    default: return false;
  }
}

ropecheck_impl_t quant_out_mutant_table(const BugInfo& info, const ropecheck_impl_t* rotation) {
  return table(info.bug, info.name, info.description, rotation);
}

const ropecheck_impl_t* quant_out_control() {
  static const ropecheck_impl_t t =
      table(Bug::none, "quant_out_control",
            "the control's rotation in fp32, q and k written as fp8 codes of x * scale, saturated (FlashInfer's "
            "rope_quantize)",
            mutant_impl(Bug::none));
  return &t;
}

}  // namespace ropecheck::mutant
