// SPDX-License-Identifier: MIT
// One kernel body for every KernelForm: each step computed as the kernel it
// stands for computes it, in its dtype and order. Built with
// -ffp-contract=off (impls/CMakeLists.txt): a fused operation happens only
// where the form says fma.
#include "impls/policy/policy_kernel.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/fast_sincos_model.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/policy/storage_arith.h"
#include "ropecheck/numbers.h"

namespace ropecheck::impl {
namespace {

// FTZ/DAZ on an fp32 value (MXCSR's FTZ and DAZ, CUDA's -ftz=true): below
// the smallest normal number, 2^-126, it reads and is written as a zero of
// its sign.
float flushed(float v) { return std::fabs(v) < 0x1p-126f ? std::copysign(0.0f, v) : v; }

// fl32(1/ln 2): the constant an exp that works in powers of two scales its
// argument by (Cephes' expf and those built on it, MLX's CPU exp among them).
constexpr float kLog2eF = 1.44269504088896340736f;

// exp(x) as 2^(x fl32(1/ln 2)) with that product rounded in fp32, then an
// exp2 within 1 ulp (glibc's exp2f): a relative error of |x| (u +
// |fl32(1/ln 2) ln 2 - 1|) beyond the 1 ulp, the growth EXP_LOG's
// freq_exp_slope declares (kExpLogSlope in policy_kernels.cc).
float exp_via_exp2(float x) { return std::exp2(x * kLog2eF); }

bool has_powf_form(std::uint32_t scheme) {
  return scheme == ROPECHECK_SCHEME_DEFAULT || scheme == ROPECHECK_SCHEME_LINEAR || scheme == ROPECHECK_SCHEME_LONGROPE;
}

// The LongRoPE factor list in use: the engine's rule (long past the original
// context), or the one a kernel without a runtime sequence length fixed.
const double* longrope_factors(const KernelForm& f, const ropecheck_freq_spec_t& s) {
  if (f.angle == AngleForm::kRunningF32) return f.longrope_long_factors ? s.long_factor : s.short_factor;
  return s.seq_len > s.original_max_position ? s.long_factor : s.short_factor;
}

// CUDA-style per-pair frequencies, w = powf(b, fl(-2i/d)) then / fl(s) or
// / fl(ff); the schemes without such a form keep the engine formula.
std::vector<float> powf_frequencies(const ropecheck_freq_spec_t& s, int d, const KernelForm& f,
                                    std::vector<float> engine) {
  if (!has_powf_form(s.scheme)) return engine;
  const float b = static_cast<float>(s.base);
  for (int i = 0; i < d / 2; ++i) {
    float w = std::pow(b, static_cast<float>(-2 * i) / static_cast<float>(d));
    if (s.scheme == ROPECHECK_SCHEME_LINEAR) w = w / static_cast<float>(s.factor);
    if (s.scheme == ROPECHECK_SCHEME_LONGROPE) w = w / static_cast<float>(longrope_factors(f, s)[i]);
    engine[static_cast<std::size_t>(i)] = w;
  }
  return engine;
}

// Llama 3.1's per-pair divisors as llama.cpp's converter writes them into
// the GGUF's rope_freqs tensor (convert_hf_to_gguf.py, LlamaModel
// generate_extra_tensors): freqs = 1 / base^(arange(0, d, 2) / d) in fp32,
// then per pair, in fp32 (the converter's float32 tensors), 1 unchanged, factor past the low-frequency
// wavelength, else 1 / ((1 - smooth) / factor + smooth). ggml divides theta
// by it. Equal factors (Llama 4, whose converter asserts otherwise): no
// blend band, as the engine and HF read them.
std::vector<float> llama3_freq_factors(const ropecheck_freq_spec_t& s, int d) {
  const int pairs = d / 2;
  std::vector<float> ff(static_cast<std::size_t>(pairs), 1.0f);
  const float L = static_cast<float>(s.original_max_position);
  const float lf = static_cast<float>(s.low_freq_factor);
  const float factor = static_cast<float>(s.factor);
  const float low_wavelen = static_cast<float>(static_cast<double>(s.original_max_position) / s.low_freq_factor);
  const float high_wavelen = static_cast<float>(static_cast<double>(s.original_max_position) / s.high_freq_factor);
  for (int i = 0; i < pairs; ++i) {
    const float freq = 1.0f / std::pow(static_cast<float>(s.base), static_cast<float>(2 * i) / static_cast<float>(d));
    const float wavelen = static_cast<float>(kTwoPi) / freq;
    float v = 1.0f;
    if (wavelen < high_wavelen) {
      v = 1.0f;
    } else if (wavelen > low_wavelen || !(s.high_freq_factor > s.low_freq_factor)) {
      v = factor;
    } else {
      const float smooth = (L / wavelen - lf) / static_cast<float>(s.high_freq_factor - s.low_freq_factor);
      v = 1.0f / ((1.0f - smooth) / factor + smooth);
    }
    ff[static_cast<std::size_t>(i)] = v;
  }
  return ff;
}

// Fills c[i], s[i] (m and the direction folded in) for one position, the
// way the form forms angles and evaluates sin/cos.
class TrigRow {
 public:
  TrigRow(const KernelForm& f, const ropecheck_freq_spec_t& spec, int d, float sign)
      : f_(f), pairs_(d / 2), sign_(sign) {
    if (f.angle == AngleForm::kF64 || f.angle == AngleForm::kF64OfF32Pos) {
      w64_ = engine_frequencies<double>(spec, d);
      m32_ = static_cast<float>(w64_.attention_factor);
      return;
    }
    if (f.angle == AngleForm::kTableF32) {
      // The double frequencies' reciprocals rounded to fp32 (MLX's freqs),
      // inverted in fp32 (mx.fast.rope's reciprocal(freqs)).
      const EngineFreqs<double> e = engine_frequencies<double>(spec, d);
      m32_ = static_cast<float>(e.attention_factor);
      for (const double w : e.inv_freq) w32_.push_back(1.0f / static_cast<float>(1.0 / w));
      return;
    }
    const EngineFreqs<float> e = engine_frequencies<float>(spec, d);
    m32_ = e.attention_factor;
    w32_ = f.angle == AngleForm::kPowF32 ? powf_frequencies(spec, d, f, e.inv_freq) : e.inv_freq;
    if (f.angle == AngleForm::kRunningF32) init_running(spec, d);
    if (f.angle == AngleForm::kExpLogF32) init_exp_log(spec, d);
  }

  void fill(std::int64_t pos, float* c, float* s) const {
    float theta = static_cast<float>(pos);
    for (int i = 0; i < pairs_; ++i) {
      const auto k = static_cast<std::size_t>(i);
      switch (f_.angle) {
        case AngleForm::kInvPowF32:
        case AngleForm::kPowF32:
        case AngleForm::kTableF32:
        case AngleForm::kExpLogF32: {
          // MLX scales the positions (linear), then multiplies by w.
          const float pf = static_cast<float>(pos);
          const float a = (scale_positions_ ? pf * position_scale_ : pf) * w32_[k];
          c[i] = std::cos(a) * m32_;
          s[i] = sign_ * std::sin(a) * m32_;
          break;
        }
        case AngleForm::kRunningF32: {
          // ggml-cpu ggml_rope_cache_init: rope_yarn(theta / ff, freq_scale, ...), then theta *= theta_scale.
          const float extrap = theta / ff_[k];
          float a = freq_scale_ * extrap;
          if (!ramp_mix_.empty()) a = a * (1.0f - ramp_mix_[k]) + extrap * ramp_mix_[k];  // rope_yarn
          c[i] = std::cos(a) * m32_;
          s[i] = sign_ * std::sin(a) * m32_;
          theta *= theta_scale_;
          if (f_.running_product_bf16) theta = round_to_storage(theta, ROPECHECK_DTYPE_BF16);
          break;
        }
        default: {
          const double p = f_.angle == AngleForm::kF64OfF32Pos ? static_cast<float>(pos) : static_cast<double>(pos);
          const double a = p * w64_.inv_freq[k];
          if (f_.fast_sincos) {  // the unreduced fp32 argument straight into __sincosf
            const float r = static_cast<float>(a);
            c[i] = fast_sincos::cos(r) * m32_;
            s[i] = sign_ * fast_sincos::sin(r) * m32_;
          } else {
            c[i] = static_cast<float>(w64_.attention_factor * std::cos(a));
            s[i] = static_cast<float>(sign_ * w64_.attention_factor * std::sin(a));
          }
        }
      }
    }
  }

 private:
  // ggml's CPU rope (llama.cpp ggml/src/ggml-cpu/ops.cpp, ggml_rope_cache_init
  // and rope_yarn) with its inputs formed as llama.cpp forms them.
  void init_running(const ropecheck_freq_spec_t& spec, int d) {
    // The base of theta_scale = powf(freq_base, -2.0f/n_dims): freq_base is an
    // fp32 parameter, so NTK's scaled base (engine-computed, in double as
    // HF's Python floats) reaches the loop rounded to fp32.
    const float base = static_cast<float>(engine_base(spec, d));
    theta_scale_ = std::pow(base, -2.0f / static_cast<float>(d));
    // freq_scale = 1 / factor for linear and YaRN (llama.cpp's rope_freq_scale).
    const bool scaled = spec.scheme == ROPECHECK_SCHEME_LINEAR || spec.scheme == ROPECHECK_SCHEME_YARN;
    freq_scale_ = scaled ? 1.0f / static_cast<float>(spec.factor) : 1.0f;
    ff_.assign(static_cast<std::size_t>(pairs_), 1.0f);
    if (spec.scheme == ROPECHECK_SCHEME_LONGROPE)
      for (int i = 0; i < pairs_; ++i)
        ff_[static_cast<std::size_t>(i)] = static_cast<float>(longrope_factors(f_, spec)[i]);
    if (spec.scheme == ROPECHECK_SCHEME_LLAMA3) ff_ = llama3_freq_factors(spec, d);
    if (spec.scheme == ROPECHECK_SCHEME_YARN) init_yarn(spec, d);
  }

  // MLX's default frequencies (mlx/fast.cpp, rope's fallback):
  // exp(arange(0, -d/2, -1) * fl32(logf(base) / (d/2))) in fp32, the base
  // NTK's or dynamic NTK's scaled one as a caller passes it; the linear
  // scheme's 1/s multiplies the positions (mx.fast.rope's scale).
  void init_exp_log(const ropecheck_freq_spec_t& spec, int d) {
    const float step = std::log(static_cast<float>(engine_base(spec, d))) / static_cast<float>(pairs_);
    for (int i = 0; i < pairs_; ++i) w32_[static_cast<std::size_t>(i)] = exp_via_exp2(static_cast<float>(-i) * step);
    scale_positions_ = spec.scheme == ROPECHECK_SCHEME_LINEAR;
    if (scale_positions_) position_scale_ = static_cast<float>(1.0 / spec.factor);
  }

  void init_yarn(const ropecheck_freq_spec_t& spec, int d) {
    // ggml.c ggml_rope_yarn_corr_dims: the correction dims in fp32, floored
    // and ceiled always (the kernel declares YARN_TRUNCATED_ONLY).
    const auto corr = [&](double rotations) {
      return static_cast<float>(d) *
             std::log(static_cast<float>(spec.original_max_position) /
                      (static_cast<float>(rotations) * 2.0f * static_cast<float>(kPi))) /
             (2.0f * std::log(static_cast<float>(spec.base)));
    };
    const float low = std::max(0.0f, std::floor(corr(spec.beta_fast)));
    const float high = std::min(static_cast<float>(d - 1), std::ceil(corr(spec.beta_slow)));
    // ops.cpp rope_yarn_ramp: y = (i0/2 - low) / MAX(0.001f, high - low);
    // ramp_mix = 1 - MIN(1, MAX(0, y)), the weight of the extrapolated angle.
    // Where the clamped range is empty (low > high: corr(beta_fast) >= d,
    // bases below about sqrt(L / 201)) ggml's MAX extrapolates every pair and
    // HF's (high - low) interpolates every pair; this kernel takes HF's, the
    // definition the gate holds kernels to (a divergence of ggml, not modelled).
    const float span = high >= low ? std::max(0.001f, high - low) : high - low;
    ramp_mix_.resize(static_cast<std::size_t>(pairs_));
    for (int i = 0; i < pairs_; ++i) {
      const int index = f_.yarn_ramp_channel_index ? 2 * i : i;
      const float y = (static_cast<float>(index) - low) / span;
      ramp_mix_[static_cast<std::size_t>(i)] = 1.0f - std::min(1.0f, std::max(0.0f, y));
    }
    // rope_yarn: mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale), YaRN's
    // derived attention factor; an explicit one or DeepSeek's mscale ratio
    // llama.cpp folds into its attn_factor at load: the engine's, in fp32.
    if (!spec.has_attention_factor && !(spec.mscale > 0 && spec.mscale_all_dim > 0) && spec.factor > 1)
      m32_ = 1.0f + 0.1f * std::log(1.0f / freq_scale_);
  }

  const KernelForm& f_;
  int pairs_;
  float sign_;
  float m32_ = 1;
  std::vector<float> w32_, ff_, ramp_mix_;
  EngineFreqs<double> w64_;
  float theta_scale_ = 1, freq_scale_ = 1, position_scale_ = 1;
  bool scale_positions_ = false;
};

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const PolicyKernel& k = *static_cast<const PolicyKernel*>(ctx);
  if (auto st = check_apply(k.caps, p, err, n)) return st;
  const KernelForm& f = k.form;
  const int pairs = p->rotary_dim / 2;
  const std::uint32_t storage = p->dtype;
  const std::uint32_t math = f.math_in_storage ? storage : static_cast<std::uint32_t>(ROPECHECK_DTYPE_F32);
  const TrigRow trig(f, *p->freq, p->rotary_dim, p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f);
  std::vector<float> c(static_cast<std::size_t>(pairs)), s(c.size());
  // One operation's rounding in the math dtype (flushed first, where the
  // fp32 operation flushes: a bf16/fp16 op is an fp32 op rounded again).
  const bool ftz = f.flush_subnormals;
  auto r = [&](float v) { return round_to_storage(ftz ? flushed(v) : v, math); };
  auto in = [&](float v) { return ftz ? flushed(v) : v; };  // DAZ
  for_each_head_by_position(
      *p, [&](std::int64_t t) { return position_at(p, t); },
      [&](std::int64_t pos) {
        trig.fill(pos, c.data(), s.data());
        if (ftz)
          for (std::size_t i = 0; i < c.size(); ++i) {
            c[i] = flushed(c[i]);
            s[i] = flushed(s[i]);
          }
        if (f.cos_sin_in_storage)
          for (std::size_t i = 0; i < c.size(); ++i) {
            c[i] = round_to_storage(c[i], storage);
            s[i] = round_to_storage(s[i], storage);
          }
      },
      [&](const HeadRef& h) {
        for (int i = 0; i < pairs; ++i) {
          int ia, ib;
          pair_channels(p->layout, p->rotary_dim, i, &ia, &ib);
          const float x = in(load_f32(h.in, h.offset + ia, storage)), y = in(load_f32(h.in, h.offset + ib, storage));
          const float ci = c[static_cast<std::size_t>(i)], si = s[static_cast<std::size_t>(i)];
          const float o1 = f.fma ? fma_in_storage(x, ci, -r(y * si), math) : r(r(x * ci) - r(y * si));
          const float o2 = f.fma ? fma_in_storage(x, si, r(y * ci), math) : r(r(x * si) + r(y * ci));
          store_f32(h.out, h.offset + ia, storage, ftz ? flushed(o1) : o1);
          store_f32(h.out, h.offset + ib, storage, ftz ? flushed(o2) : o2);
        }
      });
  return ROPECHECK_OK;
}

}  // namespace

ropecheck_impl_t policy_kernel_table(const PolicyKernel* k) {
  return kernel_table(k->name, k->description, k->caps, k->policy, apply, nullptr, nullptr,
                      const_cast<PolicyKernel*>(k));
}

}  // namespace ropecheck::impl
