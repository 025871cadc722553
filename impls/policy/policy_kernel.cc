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

namespace ropecheck::impl {
namespace {

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
    const EngineFreqs<float> e = engine_frequencies<float>(spec, d);
    m32_ = e.attention_factor;
    w32_ = f.angle == AngleForm::kPowF32 ? powf_frequencies(spec, d, f, e.inv_freq) : e.inv_freq;
    if (f.angle == AngleForm::kRunningF32) {
      // ggml-cpu: theta_scale = powf(freq_base, -2.0f/n_dims); freq_scale = 1/factor.
      theta_scale_ = std::pow(static_cast<float>(spec.base), -2.0f / static_cast<float>(d));
      freq_scale_ = spec.scheme == ROPECHECK_SCHEME_LINEAR ? 1.0f / static_cast<float>(spec.factor) : 1.0f;
      ff_.assign(static_cast<std::size_t>(pairs_), 1.0f);
      if (spec.scheme == ROPECHECK_SCHEME_LONGROPE)
        for (int i = 0; i < pairs_; ++i)
          ff_[static_cast<std::size_t>(i)] = static_cast<float>(longrope_factors(f, spec)[i]);
    }
  }

  void fill(std::int64_t pos, float* c, float* s) const {
    float theta = static_cast<float>(pos);
    for (int i = 0; i < pairs_; ++i) {
      const auto k = static_cast<std::size_t>(i);
      switch (f_.angle) {
        case AngleForm::kInvPowF32:
        case AngleForm::kPowF32: {
          const float a = static_cast<float>(pos) * w32_[k];
          c[i] = std::cos(a) * m32_;
          s[i] = sign_ * std::sin(a) * m32_;
          break;
        }
        case AngleForm::kRunningF32: {
          const float a = freq_scale_ * (theta / ff_[k]);
          c[i] = std::cos(a) * m32_;
          s[i] = sign_ * std::sin(a) * m32_;
          theta *= theta_scale_;
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
  const KernelForm& f_;
  int pairs_;
  float sign_;
  float m32_ = 1;
  std::vector<float> w32_, ff_;
  EngineFreqs<double> w64_;
  float theta_scale_ = 1, freq_scale_ = 1;
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
  auto r = [&](float v) { return round_to_storage(v, math); };  // one operation's rounding in the math dtype
  for_each_head_by_position(
      *p, [&](std::int64_t t) { return position_at(p, t); },
      [&](std::int64_t pos) {
        trig.fill(pos, c.data(), s.data());
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
          const float x = load_f32(h.in, h.offset + ia, storage), y = load_f32(h.in, h.offset + ib, storage);
          const float ci = c[static_cast<std::size_t>(i)], si = s[static_cast<std::size_t>(i)];
          const float o1 = f.fma ? fma_in_storage(x, ci, -r(y * si), math) : r(r(x * ci) - r(y * si));
          const float o2 = f.fma ? fma_in_storage(x, si, r(y * ci), math) : r(r(x * si) + r(y * ci));
          store_f32(h.out, h.offset + ia, storage, o1);
          store_f32(h.out, h.offset + ib, storage, o2);
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
