// SPDX-License-Identifier: MIT
// The correct policy kernels: what each computes (its KernelForm), what it
// supports and the policy it declares. docs/ERROR_MODEL.md gives each one's
// slack on the standard suite; the bug catalogue (mutants/mutant_list.h) the
// variant with one more rounding than declared, which the gate must kill.
#include <vector>

#include "impls/kernel_support/impl_table.h"
#include "impls/policy/policy_kernel.h"

namespace ropecheck::impl {
namespace {

constexpr std::uint32_t kBaseFlags = kCommonFlags | ROPECHECK_CAP_NEGATIVE_POSITIONS;
constexpr ropecheck_caps_t kAllCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS);
// ggml's loop forms every scheme llama.cpp has (explicit frequencies are not
// one), YaRN's correction range always floored/ceiled (ggml_rope_yarn_corr_dims),
// and takes its positions as an I32 tensor (ggml.c, ggml_rope_impl asserts
// b->type == GGML_TYPE_I32): the catalogue's kernel that declares int32
// positions alone (issue #48: such a kernel was once handed int64 ids
// narrowed to int32).
constexpr ropecheck_caps_t kRunningCaps{sizeof(ropecheck_caps_t), kBothLayouts, kStorageDtypes,
                                        kAllSchemes & ~(1u << ROPECHECK_SCHEME_EXPLICIT), 4096,
                                        (kBaseFlags & ~ROPECHECK_CAP_POS_INT64) | ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN |
                                            ROPECHECK_CAP_YARN_TRUNCATED_ONLY};
// vLLM floors/ceils YaRN's correction range always and multiplies its own
// mscale by an attn_factor instead of taking HF's attention_factor.
constexpr ropecheck_caps_t kVllmCaps{sizeof(ropecheck_caps_t), kBothLayouts, kStorageDtypes, kAllSchemes, 4096,
                                     kBaseFlags | ROPECHECK_CAP_YARN_TRUNCATED_ONLY |
                                         ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR};

constexpr Policy kHfEager = libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_OF_STORAGE,
                                        ROPECHECK_DTYPE_OF_STORAGE);
// CUDA __sincosf on an fp32 argument (impls/kernel_support/fast_sincos_model.h):
// the documented 2^-21.19 on [-pi, pi] plus the fp32 rounding of an argument
// there (pi 2^-24), and beyond fl32(pi) a phase error of the reduction's
// 1.5955e-7 |x| plus the argument's own rounding 2^-24 |x|.
constexpr double kFastC0 = 4.1799e-07 + 3.14159265358979 * 0x1p-24;  // 2^-21.19 = 4.17998e-7, rounded up
constexpr double kFastRange = 3.14159274101257324;                     // fl32(pi)
constexpr double kFastSlope = 1.5956e-07 + 0x1p-24;

constexpr Policy kF32Product =
    libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32);
// exp(x) as exp2f(fl32(x fl32(1/ln 2))) (policy_kernel.cc, exp_via_exp2): the
// product's rounding (u32, relative to x / ln 2, so u32 |x| in the result)
// and the constant's own |fl32(1/ln 2) ln 2 - 1| = 1.3346e-8, per unit |x|,
// rounded up; exp2f's 1 ulp is freq_pow_max_ulp's.
constexpr double kExpLogSlope = 0x1p-24 + 1.335e-8;
// The schemes a base and a position scale form (mx.fast.rope's base and
// scale): the default powers, the NTK-scaled bases, linear.
constexpr std::uint32_t kBaseSchemes = (1u << ROPECHECK_SCHEME_DEFAULT) | (1u << ROPECHECK_SCHEME_LINEAR) |
                                       (1u << ROPECHECK_SCHEME_NTK_AWARE) | (1u << ROPECHECK_SCHEME_DYNAMIC_NTK);
constexpr ropecheck_caps_t kBaseSchemeCaps{sizeof(ropecheck_caps_t), kBothLayouts, kStorageDtypes, kBaseSchemes, 4096,
                                           kBaseFlags};

const PolicyKernel kKernels[] = {
    {"policy_hf_eager",
     "HF transformers' eager apply_rotary_pos_emb in the activation dtype: fp32 inv_freq and angles, cos/sin cast "
     "to q.dtype, q*cos, rotate_half(q)*sin and their sum each rounded to it",
     {AngleForm::kInvPowF32, false, true, true, false, false}, kAllCaps, kHfEager},
    {"policy_fma_storage",
     "vLLM-style: cos/sin in the activation dtype, x*c - y*s with one product fused (HFMA in bf16/fp16, fmaf in "
     "fp32); YaRN with the truncated correction range, no explicit attention factor",
     {AngleForm::kInvPowF32, false, true, true, true, false}, kVllmCaps,
     with_rotation(kHfEager, ROPECHECK_ROTATION_FMA)},
    {"policy_ggml_cpu",
     "ggml's CPU loop (llama.cpp): theta *= powf(base, -2/d) along the pairs (NTK: the scaled base), / "
     "freq_factors (LongRoPE's, fixed at load; Llama 3.1's fp32 rope_freqs), * freq_scale, YaRN's fp32 ramp mix, "
     "cosf/sinf, fp32 rotation",
     {AngleForm::kRunningF32, false, false, false, false, false}, kRunningCaps,
     libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_RUNNING_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32)},
    {"policy_cuda_powf",
     "CUDA-style: w = powf(base, -2i/d), fp32 angle, sinf/cosf, x*c - y*s with an fp32 fma, the result cast to "
     "the storage dtype",
     {AngleForm::kPowF32, false, false, false, true, false}, kAllCaps,
     with_rotation(libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32,
                               ROPECHECK_DTYPE_F32),
                   ROPECHECK_ROTATION_FMA)},
    {"policy_fast_sincos",
     "CUDA __sincosf (modelled) on the double angle cast to fp32, no range reduction; fp32 fma rotation",
     {AngleForm::kF64, true, false, false, true, false}, kAllCaps,
     with_rotation(with_fast_range(fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, kFastC0,
                                                      ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
                                   kFastRange, kFastSlope),
                   ROPECHECK_ROTATION_FMA)},
    {"policy_f64_fp32_positions",
     "frequencies and angles in double of the position converted to fp32 first, sin/cos in double, fp32 rotation",
     {AngleForm::kF64OfF32Pos, false, false, false, false, false}, kAllCaps,
     with_positions_f32(libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32,
                                    ROPECHECK_DTYPE_F32))},
    // 1.7's policy parts.
    {"policy_flush_subnormals",
     "XLA's CPU runtime (JAX on CPU): HF's fp32 arithmetic with FTZ/DAZ, every fp32 input, intermediate and "
     "result below 2^-126 read and written as zero",
     [] {
       KernelForm f{AngleForm::kInvPowF32, false, false, false, false, false};
       f.flush_subnormals = true;
       return f;
     }(),
     kAllCaps, with_subnormals_flushed(kF32Product)},
    {"policy_exp_log",
     "MLX's frequencies: w = exp(-i fl(logf(b) / (d/2))) in fp32 with an exp scaling its argument by fl32(1/ln 2), "
     "linear as a position scale, fp32 angle product, cosf/sinf, fp32 rotation",
     {AngleForm::kExpLogF32, false, false, false, false, false}, kBaseSchemeCaps,
     with_freq_form(kF32Product, ROPECHECK_FREQ_EXP_LOG, kExpLogSlope)},
    {"policy_freq_table",
     "a frequency table: every scheme's frequencies in double, their reciprocals rounded to fp32 and inverted in "
     "fp32 (mx.fast.rope's freqs), fp32 angle product, cosf/sinf, fp32 rotation",
     {AngleForm::kTableF32, false, false, false, false, false}, kAllCaps,
     with_freq_form(kF32Product, ROPECHECK_FREQ_TABLE)},
};

}  // namespace

std::span<const PolicyKernel> policy_kernels() { return kKernels; }

const PolicyKernel* find_policy_kernel(std::string_view name) {
  for (const PolicyKernel& k : kKernels)
    if (name == k.name) return &k;
  return nullptr;
}

std::span<const ropecheck_impl_t* const> policy_kernel_impls() {
  static const std::vector<ropecheck_impl_t> tables = [] {
    std::vector<ropecheck_impl_t> v;
    for (const PolicyKernel& k : kKernels) v.push_back(policy_kernel_table(&k));
    return v;
  }();
  static const std::vector<const ropecheck_impl_t*> pointers = [] {
    std::vector<const ropecheck_impl_t*> v;
    for (const ropecheck_impl_t& t : tables) v.push_back(&t);
    return v;
  }();
  return pointers;
}

}  // namespace ropecheck::impl
