// SPDX-License-Identifier: MIT
// FlashInfer's CUDA RoPE kernels as ropecheck plugins (docs/FRAMEWORKS.md):
// the launchers of flashinfer/pos_enc.cuh, compiled here by nvcc from the
// headers of the flashinfer-python wheel that build.sh downloads (pinned in
// constraints.txt's [flashinfer]; nothing of FlashInfer is in this
// repository). Each call copies the caller's host buffers to the device,
// launches FlashInfer's host function on them, and copies the outputs back
// (the ABI speaks host pointers, as impls/cuda/rope_cuda.cu's adapter does).
// Line numbers are those of flashinfer-python 0.7.2.post1's
// flashinfer/data/include/flashinfer/pos_enc.cuh.
//
// The arithmetic, as FlashInfer's JIT builds its rope module: gen_jit_spec's
// default -use_fast_math (flashinfer/jit/core.py:708, 746-747; jit/rope.py
// asks for no other), which nvcc expands to -ftz=true -prec-div=false
// -prec-sqrt=false -fmad=true; this CMakeLists.txt compiles with the same.
//   - frequencies (BatchQKApplyRotaryPosIdsKernel, pos_enc.cuh:704-718; the
//     head-parallel kernel 633-647): rope_rcp_theta = 1.0f / rope_theta on
//     the host (1602), then __powf(rope_rcp_theta, float(2j) / float(rotary_dim))
//     on the device. The CUDA C++ Programming Guide (Intrinsic Functions)
//     gives __powf as "derived from its implementation as exp2f(y *
//     __log2f(x))": the exp of a log, ROPECHECK_FREQ_EXP_LOG. Its argument
//     y * lg2(x) carries __log2f's 2 ulps (x = 1/theta is outside [0.5, 2]),
//     the -prec-div=false division's 2 ulps and the product's rounding, each
//     from the correctly rounded result (so 2.5, 2.5, 0.5 ulps from the exact
//     value: 11 units u = 2^-24 relative, plus 2u / ln(theta) from x's own
//     two roundings); exp2f's 2 ulps (5u from the exact value) follow. The
//     EXP_LOG model (docs/ERROR_MODEL.md, "The frequency's form") charges
//     (2k + 2) u on the argument and 2k u on the exp for freq_pow_max_ulp
//     k: k = 5 covers both (12u >= 11u + the reciprocal's 1u / ln(theta)
//     for theta > e; 10u >= 5u), with no exp slope (exp2 takes the base-2
//     argument as it is, no rounded 1/ln 2).
//   - linear: freq * rope_rcp_scale with rope_rcp_scale = 1.0f / rope_scale
//     (pos_enc.cuh:716, 1601); smooth_a = smooth_b = 0 leave it exactly that.
//   - Llama 3.1: smooth = clamp(freq * smooth_a + smooth_b) in fp32, then
//     (1 - smooth) * (freq * rope_rcp_scale) + smooth * freq (pos_enc.cuh:714-716),
//     smooth_a / smooth_b from low/high_freq_factor and old_context_length
//     on the host (1823-1824): HF's band formula, t = (L / lambda - lf) / (hf - lf).
//   - the angle: float(pos) * freq in fp32 (pos_enc.cuh:729), ANGLE_F32_PRODUCT;
//     sin/cos: __sincosf on that raw fp32 angle (pos_enc.cuh:730), declared as
//     docs/ERROR_MODEL.md's "CUDA __sincosf on the raw fp32 angle" row: FAST,
//     2^-21.19 on [-pi, pi], phase slope 1.5955e-7 beyond.
//   - the rotation: vec[i] * cos[i] + (-+partner) * sin[i] in fp32
//     (vec_apply_llama_rope_cos_sin, pos_enc.cuh:143-145; interleaved
//     192, 230-231), contracted by -fmad=true into one FMA over one
//     rounded product: ROTATION_FMA; stored with round-to-nearest
//     (vec_dtypes.cuh:178, 717: __float22half2_rn, __float22bfloat162_rn).
//   - subnormals: -ftz=true flushes every fp32 operation's subnormal inputs
//     and results: SUBNORMALS_FLUSHED.
//   - the cos/sin-cache form reads the caller's fp32 cache (csrc/rope.cu
//     passes cos_sin_cache as float*; pos_enc.cuh:1489-1490) and forms no
//     angle: ABI 1.6's CALLER_COS_SIN_CACHE, fp32 only.
//   - rope + quantize + append (RopeQuantizeAppendPagedKVCache,
//     pos_enc.cuh:1327-1393; kernel 897-1125): the same cache form, then
//     the fp32 result times quant_scale_q (996; q's no-rope channels 1116)
//     cast to fp8 with __NV_SATFINITE (vec_dtypes.cuh:132, 148) into q_out,
//     k's times quant_scale_kv (1026, 1057) and v's (1087) appended to the
//     paged cache: ABI 1.8's quantized output (k NOT_RETURNED) with 1.4's
//     cache write, both MULTIPLY and saturating. flashinfer_args.h maps the
//     slots to its paged cache and says which calls it declines.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "flashinfer/pos_enc.cuh"
#include "python/frameworks/flashinfer/device_staging.cuh"
#include "python/frameworks/flashinfer/flashinfer_args.h"
#include "python/frameworks/flashinfer/plugin_policies.cuh"
#include "python/frameworks/flashinfer/quant_append.cuh"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace flashinfer_adapter {
namespace {

struct Table {
  Entry entry;
  // Decline a rotary_dim FlashInfer's vectors do not fit (vector_fit): such a
  // case rotates channels with the wrong partner, so the table that declines
  // judges the arithmetic and the one that does not shows the misfit.
  bool decline_vector_misfit;
  ropecheck_impl_t impl;
};

template <typename DType, typename IdType>
cudaError_t launch(const Table& t, const ropecheck_apply_params_t& p, const RopeArgs& a, Tensor& q, Tensor& k,
                   void* d_pos, float* d_cache) {
  auto* qi = static_cast<DType*>(q.d_in);
  auto* qo = static_cast<DType*>(q.d_out);
  auto* ki = static_cast<DType*>(k.d_in);
  auto* ko = static_cast<DType*>(k.d_out);
  auto* pos = static_cast<IdType*>(d_pos);
  const auto nnz = static_cast<uint32_t>(p.num_tokens);
  const auto hq = static_cast<uint32_t>(p.num_q_heads), hk = static_cast<uint32_t>(k.bytes ? p.num_kv_heads : 0);
  const auto qs = static_cast<std::size_t>(p.q_token_stride), qh = static_cast<std::size_t>(p.q_head_stride);
  const auto ks = static_cast<std::size_t>(p.k_token_stride), kh = static_cast<std::size_t>(p.k_head_stride);
  const bool interleave = p.layout == ROPECHECK_LAYOUT_INTERLEAVED;
  const auto rd = static_cast<uint32_t>(p.rotary_dim), hd = static_cast<uint32_t>(p.head_dim);
  switch (t.entry) {
    case Entry::kPosIds:
      return flashinfer::BatchQKApplyRotaryPosIds<DType, IdType>(qi, ki, qo, ko, pos, nnz, hq, hk, rd, hd, qs, qh, ks,
                                                                 kh, qs, qh, ks, kh, interleave, a.rope_scale,
                                                                 a.rope_theta);
    case Entry::kLlama31:
      return flashinfer::BatchQKApplyLlama31RotaryPosIds<DType, IdType>(
          qi, ki, qo, ko, pos, nnz, hq, hk, rd, hd, qs, qh, ks, kh, qs, qh, ks, kh, interleave, a.rope_scale,
          a.rope_theta, a.low_freq_factor, a.high_freq_factor, a.old_context_length);
    case Entry::kCosSinCache:
      return flashinfer::BatchQKApplyRotaryPosIdsCosSinCache<DType, IdType>(
          qi, ki, qo, ko, d_cache, pos, nnz, hq, hk, rd, hd, qs, qh, ks, kh, qs, qh, ks, kh, interleave);
    case Entry::kRopeQuantizeAppend:
      break;  // apply_quant_append
  }
  return cudaErrorInvalidValue;
}

template <typename DType>
cudaError_t launch_id(const Table& t, const ropecheck_apply_params_t& p, const RopeArgs& a, Tensor& q, Tensor& k,
                      void* d_pos, float* d_cache) {
  return p.position_type == ROPECHECK_INDEX_INT64 ? launch<DType, int64_t>(t, p, a, q, k, d_pos, d_cache)
                                                  : launch<DType, int32_t>(t, p, a, q, k, d_pos, d_cache);
}

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Table& t = *static_cast<const Table*>(ctx);
  if (p && t.entry == Entry::kRopeQuantizeAppend && p->struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_3)
    return apply_quant_append(*p, err, n);
  if (!p || p->struct_size < ROPECHECK_APPLY_PARAMS_SIZE_1_3 || !p->freq || !p->positions || !p->q_in || !p->q_out)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "params: a 1.3 call with freq, positions, q_in and q_out");
  if (p->dtype != ROPECHECK_DTYPE_F16 && p->dtype != ROPECHECK_DTYPE_BF16)
    return fail(err, n, ROPECHECK_UNSUPPORTED, "dtype: FlashInfer's binding takes fp16 and bf16 (csrc/rope.cu:100)");
  if (p->direction != ROPECHECK_DIRECTION_FORWARD || p->seq_len > 0 || p->num_axes > 0)
    return fail(err, n, ROPECHECK_UNSUPPORTED, "direction, seq_len, axes: not declared");
  if (p->rotary_dim <= 0 || p->rotary_dim % 2 || p->rotary_dim > p->head_dim || p->num_tokens < 0 ||
      p->q_token_stride < 0 || p->q_head_stride < 0 || p->k_token_stride < 0 || p->k_head_stride < 0)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "rotary_dim even in (0, head_dim], strides >= 0");
  // Declines (MAY_DECLINE): cases FlashInfer's API refuses, and (one table) those its vectors do not fit.
  if (t.entry != Entry::kCosSinCache && !head_dim_dispatched(p->head_dim))
    return fail(err, n, ROPECHECK_UNSUPPORTED, "head_dim outside FlashInfer's DISPATCH_HEAD_DIM (64, 128, 256, 512)");
  if (t.decline_vector_misfit) {
    if (std::string why = vector_fit(t.entry, p->head_dim, p->rotary_dim, p->layout, 2); !why.empty())
      return fail(err, n, ROPECHECK_UNSUPPORTED, why);
  }
  RopeArgs a;
  if (std::string why = rope_args(t.entry, *p->freq, &a); !why.empty())
    return fail(err, n, ROPECHECK_INTERNAL_ERROR, why);
  if (std::string why = device_missing(); !why.empty()) return fail(err, n, ROPECHECK_INTERNAL_ERROR, why);
  if (p->num_tokens == 0) return ROPECHECK_OK;

  const std::size_t id_bytes = p->position_type == ROPECHECK_INDEX_INT64 ? 8 : 4;
  DeviceBuffer pos, cache;
  float* d_cache = nullptr;
  if (t.entry == Entry::kCosSinCache) {
    if (!p->cos_sin_cache || p->cache_dtype != ROPECHECK_DTYPE_F32)
      return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "cos_sin_cache: an fp32 cache (FlashInfer reads float)");
    for (int64_t i = 0; i < p->num_tokens; ++i) {
      const int64_t id = id_bytes == 8 ? static_cast<const int64_t*>(p->positions)[i]
                                       : static_cast<const int32_t*>(p->positions)[i];
      if (id < 0 || id >= p->cache_max_position)  // FlashInfer reads the row unchecked (pos_enc.cuh:326, 391)
        return fail(err, n, ROPECHECK_POSITION_OUT_OF_RANGE, "a position outside the cos/sin cache");
    }
    const std::size_t bytes = static_cast<std::size_t>(p->cache_max_position) * p->rotary_dim * sizeof(float);
    if (cudaError_t e = cache.stage(bytes, p->cos_sin_cache)) return fail(err, n, ROPECHECK_INTERNAL_ERROR, cuda_error(e, "cache"));
    d_cache = static_cast<float*>(cache.p);
  }
  Tensor q, k;
  cudaError_t e = pos.stage(static_cast<std::size_t>(p->num_tokens) * id_bytes, p->positions);
  if (e == cudaSuccess)
    e = q.stage(p->q_in, p->q_out,
                extent(p->num_tokens, p->num_q_heads, p->head_dim, p->q_token_stride, p->q_head_stride));
  const bool has_k = p->num_kv_heads > 0 && p->k_in && p->k_out;
  if (e == cudaSuccess && has_k)
    e = k.stage(p->k_in, p->k_out,
                extent(p->num_tokens, p->num_kv_heads, p->head_dim, p->k_token_stride, p->k_head_stride));
  if (e != cudaSuccess) return fail(err, n, ROPECHECK_INTERNAL_ERROR, cuda_error(e, "staging"));
  try {
    e = p->dtype == ROPECHECK_DTYPE_F16 ? launch_id<half>(t, *p, a, q, k, pos.p, d_cache)
                                        : launch_id<nv_bfloat16>(t, *p, a, q, k, pos.p, d_cache);
  } catch (const std::exception& ex) {  // FLASHINFER_ERROR (exception.h:23) throws flashinfer::Error
    return fail(err, n, ROPECHECK_INTERNAL_ERROR, std::string("FlashInfer: ") + ex.what());
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return fail(err, n, ROPECHECK_INTERNAL_ERROR, cuda_error(e, "launch"));
  e = q.fetch(p->q_out);
  if (e == cudaSuccess && has_k) e = k.fetch(p->k_out);
  if (e != cudaSuccess) return fail(err, n, ROPECHECK_INTERNAL_ERROR, cuda_error(e, "copy back"));
  return ROPECHECK_OK;
}

ropecheck_impl_t table(const char* name, const char* description, Entry e, void* ctx) {
  ropecheck_impl_t t{};
  t.struct_size = sizeof(ropecheck_impl_t);
  t.abi_version = ROPECHECK_ABI_VERSION;
  t.abi_minor = ROPECHECK_ABI_VERSION_MINOR;
  t.name = name;
  t.description = description;
  uint32_t schemes = 0, flags = kFlags;
  switch (e) {
    case Entry::kPosIds:
      schemes = (1u << ROPECHECK_SCHEME_DEFAULT) | (1u << ROPECHECK_SCHEME_LINEAR);
      flags |= ROPECHECK_CAP_NEGATIVE_POSITIONS;  // float(pos) of any int (pos_enc.cuh:729)
      break;
    case Entry::kLlama31:
      schemes = 1u << ROPECHECK_SCHEME_LLAMA3;
      flags |= ROPECHECK_CAP_NEGATIVE_POSITIONS;
      break;
    case Entry::kCosSinCache:
      schemes = ((1u << ROPECHECK_SCHEME_COUNT) - 1);  // the cache carries any scheme
      flags |= ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
      t.cos_sin_cache_dtypes = 1u << ROPECHECK_DTYPE_F32;
      break;
    case Entry::kRopeQuantizeAppend:
      // the caller's fp32 cache; q out of place as fp8 codes, k and v appended
      schemes = ((1u << ROPECHECK_SCHEME_COUNT) - 1);
      flags = (flags & ~ROPECHECK_CAP_IN_PLACE) | ROPECHECK_CAP_CALLER_COS_SIN_CACHE | ROPECHECK_CAP_KV_CACHE_WRITE |
              ROPECHECK_CAP_QUANTIZED_OUTPUT;
      t.cos_sin_cache_dtypes = 1u << ROPECHECK_DTYPE_F32;
      t.kv_policy = kFp8KvPolicy;
      t.quant_policy = kFp8QuantPolicy;
      break;
  }
  t.caps = ropecheck_caps_t{sizeof(ropecheck_caps_t), kBothLayouts, kDtypes, schemes, 512, flags};
  const ropecheck::Policy& pol =
      e == Entry::kCosSinCache || e == Entry::kRopeQuantizeAppend ? kCachePolicy : kPosIdsPolicy;
  t.policy = pol.base;
  t.policy_ext = pol.ext;
  t.policy_ext2 = pol.ext2;
  t.ctx = ctx;
  t.apply = apply;
  return t;
}

constexpr int kTables = 5;
Table g_tables[kTables];
const ropecheck_impl_t* g_pointers[kTables];

void init_tables() {
  g_tables[0] = Table{Entry::kPosIds, true, {}};
  g_tables[0].impl = table("flashinfer_rope_pos_ids",
                           "FlashInfer BatchQKApplyRotaryPosIds (apply_rope_pos_ids; interleave both ways, "
                           "rope_scale as linear), nvcc -use_fast_math as its JIT builds it",
                           Entry::kPosIds, &g_tables[0]);
  g_tables[1] = Table{Entry::kLlama31, true, {}};
  g_tables[1].impl = table("flashinfer_rope_llama31_pos_ids",
                           "FlashInfer BatchQKApplyLlama31RotaryPosIds (apply_llama31_rope_pos_ids)",
                           Entry::kLlama31, &g_tables[1]);
  g_tables[2] = Table{Entry::kCosSinCache, true, {}};
  g_tables[2].impl = table("flashinfer_rope_cos_sin_cache",
                           "FlashInfer BatchQKApplyRotaryPosIdsCosSinCache (apply_rope_with_cos_sin_cache), the "
                           "caller's fp32 cache",
                           Entry::kCosSinCache, &g_tables[2]);
  g_tables[3] = Table{Entry::kPosIds, false, {}};
  g_tables[3].impl = table("flashinfer_rope_pos_ids_any_rotary_dim",
                           "flashinfer_rope_pos_ids without declining a rotary_dim its vectors do not fit",
                           Entry::kPosIds, &g_tables[3]);
  g_tables[4] = Table{Entry::kRopeQuantizeAppend, true, {}};
  g_tables[4].impl = table("flashinfer_rope_quantize_append",
                           "FlashInfer RopeQuantizeAppendPagedKVCache (rope_quantize_fp8_append_paged_kv_cache, "
                           "GQA/MHA): q as fp8 codes, k and v appended to a paged fp8 cache",
                           Entry::kRopeQuantizeAppend, &g_tables[4]);
  for (int i = 0; i < kTables; ++i) g_pointers[i] = &g_tables[i].impl;
}

}  // namespace
}  // namespace flashinfer_adapter

extern "C" __attribute__((visibility("default"))) const ropecheck_impl_t* const* ropecheck_get_impls(
    uint32_t host_abi_version, uint32_t* count) {
  if (host_abi_version != ROPECHECK_ABI_VERSION) return nullptr;
  static std::once_flag once;
  std::call_once(once, flashinfer_adapter::init_tables);
  *count = flashinfer_adapter::kTables;
  return flashinfer_adapter::g_pointers;
}

// For the frameworks runner (plugin_runner.py, through ctypes): 1 when the CUDA
// runtime finds a device, else 0 with the reason in `why`.
extern "C" __attribute__((visibility("default"))) int ropecheck_flashinfer_has_device(char* why, std::size_t n) {
  const std::string missing = flashinfer_adapter::device_missing();
  if (n) std::snprintf(why, n, "%s", missing.c_str());
  return missing.empty() ? 1 : 0;
}
