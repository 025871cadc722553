// SPDX-License-Identifier: MIT
// Kernels that compute RoPE exactly the way the kernels people run do, one
// per precision policy of docs/ERROR_MODEL.md: Hugging Face's eager code in
// the activation dtype, a fused multiply-add form (vLLM-style), ggml's CPU
// loop, powf frequencies (CUDA-style), CUDA's __sincosf on a raw angle
// (modelled), fp32 positions, subnormals flushed (XLA CPU), MLX's
// exp-of-log frequencies and its table of reciprocals. Each is a KernelForm (the arithmetic, step by
// step) and the Policy it declares; the bug catalogue (mutants/) pairs a form
// with one more rounding than the policy declares to show the budget is tight.
#ifndef ROPECHECK_IMPLS_POLICY_POLICY_KERNEL_H_
#define ROPECHECK_IMPLS_POLICY_POLICY_KERNEL_H_

#include <span>
#include <string_view>

#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace ropecheck::impl {

// How w_i and the angle are formed.
enum class AngleForm {
  kInvPowF32,    // HF: w = 1 / powf(b, fl(2i/d)) in fp32 (engine formula per scheme), a = fl32(fl32(p) w)
  kPowF32,       // CUDA: w = powf(b, fl(-2i/d)) [/ fl(s) | / fl(ff)], a = fl32(fl32(p) w)
  kRunningF32,   // ggml: theta *= powf(b', fl(-2/d)) along the pairs, / fl(ff), * fl(1/fl(s)), YaRN's mix
  kF64,          // w and a = p w in double
  kF64OfF32Pos,  // as kF64 with p converted to fp32 first
  // MLX (mx.fast.rope): w = exp(fl(fl(-i) fl(fl(logf(b)) / (d/2)))) with an
  // exp that scales its argument by fl32(1/ln 2) first (fp32); linear scales
  // the positions, a = fl32(fl32(fl32(p) fl32(1/s)) w)
  kExpLogF32,
  // a table of the frequencies in double, rounded to fp32 as reciprocals
  // (MLX's `freqs`) and inverted in fp32, a = fl32(fl32(p) w)
  kTableF32,
};

struct KernelForm {
  AngleForm angle = AngleForm::kInvPowF32;
  // __sincosf (the model in fast_sincos_model.h) on the angle cast to fp32,
  // unreduced; else libm in the angle's precision.
  bool fast_sincos = false;
  bool cos_sin_in_storage = false;  // m cos, m sin rounded to the storage dtype before use
  bool math_in_storage = false;     // every rotation op rounded to the storage dtype (else fp32)
  bool fma = false;                 // x c - y s as fma(x, c, -fl(y s))
  bool longrope_long_factors = false;  // a fixed LongRoPE list: long (else short) factors
  // FTZ/DAZ (XLA's CPU runtime): every fp32 value below 2^-126, an input, an
  // intermediate or a result, is read and written as zero
  bool flush_subnormals = false;
  // Bugs of the bug catalogue (mutants/policy_mutants.cc), never set by a
  // correct kernel: YaRN's ramp at the channel index i0 = 2i where ggml's
  // rope_yarn_ramp takes i0 / 2; the running product's theta rounded to bf16
  // at every step.
  bool yarn_ramp_channel_index = false;
  bool running_product_bf16 = false;
};

struct PolicyKernel {
  const char* name;
  const char* description;
  KernelForm form;
  ropecheck_caps_t caps;
  Policy policy;
};

// The correct kernels, each passing the gate under its declared policy.
std::span<const PolicyKernel> policy_kernels();
const PolicyKernel* find_policy_kernel(std::string_view name);
// The ABI table of a kernel row; the row must outlive the table (ctx).
ropecheck_impl_t policy_kernel_table(const PolicyKernel* k);
// Tables of policy_kernels(), in order.
std::span<const ropecheck_impl_t* const> policy_kernel_impls();

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_POLICY_POLICY_KERNEL_H_
