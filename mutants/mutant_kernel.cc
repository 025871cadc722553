// One realistic buggy RoPE kernel per build, as a plugin: the same clean
// scalar kernel (double-precision frequencies and angles, fp32 rotation)
// with exactly one bug from rope-facts.md switched on by ROPECHECK_MUTANT.
// ROPECHECK_MUTANT=none builds the correct control, which must pass the
// gate: every mutant differs from it in one place only. Frequency bugs are
// written as changes of the config or of the correct frequencies
// (impls/common/engine_freqs.h), so the mutants carry no second copy of
// the formulas.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/abi_check.h"
#include "common/cache_builder.h"
#include "common/engine_freqs.h"
#include "common/head_io.h"
#include "common/impl_table.h"
#include "mutant_list.h"

#ifndef ROPECHECK_MUTANT
#error "build with -DROPECHECK_MUTANT=<name> (mutants/mutant_list.h)"
#endif

// Misbehaving plugins for the isolation and loader tests: the control kernel
// (ROPECHECK_MUTANT=none) with one failure mode, ROPECHECK_MISBEHAVE =
//   1 crash      a wild write on cases with more than 3 tokens
//   2 hang       an endless loop on cases with more than 3 tokens
//   3 unwritten  the last rotated channel of every q head never written
//   4 wrong_abi  the table claims ABI version 99
//   5 bad_caps   declares a cos/sin cache but exports no build_cache
//   6 no_entry   exports no ropecheck_get_impls
#ifndef ROPECHECK_MISBEHAVE
#define ROPECHECK_MISBEHAVE 0
#endif

namespace ropecheck::mutant {
namespace {

using impl::EngineFreqs;
constexpr Bug kBug = Bug::ROPECHECK_MUTANT;

constexpr ropecheck_caps_t kCaps =
    impl::scalar_caps(impl::kBothLayouts, kBug == Bug::cache_no_bounds_check ? ROPECHECK_CAP_COS_SIN_CACHE
                                                                              : ROPECHECK_CAP_NEGATIVE_POSITIONS);
// What the control achieves and declares: frequencies and angles in double,
// libm sin/cos in double, rotation and cos/sin in fp32.
constexpr ropecheck_policy_t kPolicy =
    impl::policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32);

float round_bf16(float v) { return bf16_to_f32(f32_to_bf16(v)); }

// The frequencies the kernel uses: correct, or with the mutant's bug.
EngineFreqs<double> frequencies(const ropecheck_freq_spec_t& spec, int d, int head_dim) {
  ropecheck_freq_spec_t s = spec;
  const bool yarn = s.scheme == ROPECHECK_SCHEME_YARN;
  switch (kBug) {
    case Bug::yarn_truncate_ignored:
      if (yarn) s.truncate = 1;
      break;
    case Bug::yarn_explicit_factor_ignored:
      if (yarn) s.has_attention_factor = 0;
      break;
    case Bug::llama31_factors_swapped:
      std::swap(s.low_freq_factor, s.high_freq_factor);
      break;
    case Bug::dynamic_ntk_constant:
      if (s.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK) s.scheme = ROPECHECK_SCHEME_NTK_AWARE;
      break;
    case Bug::longrope_never_switching:
      s.seq_len = 0;
      break;
    default:
      break;
  }
  EngineFreqs<double> f;
  if (kBug == Bug::exponent_over_head_dim) {
    f = impl::engine_frequencies<double>(s, head_dim);  // b^(-2i/head_dim)
    f.inv_freq.resize(d / 2);
  } else if (kBug == Bug::exponent_off_by_one) {
    f = impl::engine_frequencies<double>(s, d + 2);  // b^(-2i/(d+2))
    f.inv_freq.resize(d / 2);
  } else {
    f = impl::engine_frequencies<double>(s, d);
  }
  if (yarn && kBug == Bug::yarn_ramp_reversed) {
    // w = w/s r + w (1 - r) with the ramp reversed is w/s (1 - r) + w r.
    ropecheck_freq_spec_t plain = s;
    plain.scheme = ROPECHECK_SCHEME_DEFAULT;
    const auto w = impl::engine_frequencies<double>(plain, d).inv_freq;
    for (int i = 0; i < d / 2; ++i) f.inv_freq[i] = w[i] + w[i] / s.factor - f.inv_freq[i];
  }
  if (yarn && kBug == Bug::yarn_attention_factor_missing) f.attention_factor = 1;
  if (yarn && kBug == Bug::yarn_attention_factor_twice) f.attention_factor *= f.attention_factor;
  return f;
}

// sin/cos by their Taylor series to x^13, accurate on [-pi, pi] only: the
// "fast sincos without range reduction" of the bug list.
void taylor_sincos(double x, double* s, double* c) {
  double term = x, sum = x;
  for (int k = 1; k <= 6; ++k) {
    term *= -x * x / ((2 * k) * (2 * k + 1));
    sum += term;
  }
  *s = sum;
  term = 1;
  double csum = 1;
  for (int k = 1; k <= 6; ++k) {
    term *= -x * x / ((2 * k - 1) * (2 * k));
    csum += term;
  }
  *c = csum;
}

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  ropecheck_apply_params_t checked = *p;
  // The missing bounds check: positions are not compared with the cache.
  if (kBug == Bug::cache_no_bounds_check) checked.cache_max_position = INT64_MAX;
  if (auto st = impl::check_apply(kCaps, &checked, err, n)) return st;
  const int d = p->rotary_dim, pairs = d / 2;
  if ((ROPECHECK_MISBEHAVE == 1 || ROPECHECK_MISBEHAVE == 2) && p->num_tokens > 3) {
    volatile int* wild = reinterpret_cast<int*>(static_cast<std::uintptr_t>(64));
    if (ROPECHECK_MISBEHAVE == 1) *wild = 1;
    for (volatile bool forever = true; forever;) {
    }
  }
  const EngineFreqs<double> f = frequencies(*p->freq, d, p->head_dim);
  const double m = f.attention_factor;
  const double sign = (p->direction == ROPECHECK_DIRECTION_INVERSE) != (kBug == Bug::direction_flipped) ? -1 : 1;
  const double theta_scale = std::pow(p->freq->base, -2.0 / d);
  std::vector<float> c(pairs), s(pairs);
  ropecheck_apply_params_t q = *p;
  if (kBug == Bug::k_rotated_with_q_heads) q.num_kv_heads = p->num_q_heads;
  impl::for_each_head(q, [&](std::int64_t t) { return kBug == Bug::position_offset_ignored ? t : impl::position_at(p, t); },
                      [&](const impl::HeadRef& h) {
    if (kBug == Bug::cache_no_bounds_check) {
      const float* row = static_cast<const float*>(p->cos_sin_cache) + h.position * d;
      for (int i = 0; i < pairs; ++i) {
        c[i] = row[i];
        s[i] = static_cast<float>(sign) * row[pairs + i];
      }
    } else {
      float running = static_cast<float>(h.position);  // ggml: theta *= theta_scale, in fp32
      for (int i = 0; i < pairs; ++i) {
        double a = static_cast<double>(h.position) * f.inv_freq[i];
        if (kBug == Bug::angle_in_bf16) a = round_bf16(static_cast<float>(a));
        if (kBug == Bug::running_product_angles) {
          const double correction = f.inv_freq[i] / std::pow(p->freq->base, -2.0 * i / d);
          a = static_cast<float>(running * static_cast<float>(correction));
          running *= static_cast<float>(theta_scale);
        }
        double sa, ca;
        if (kBug == Bug::fast_sincos_no_range_reduction) {
          taylor_sincos(a, &sa, &ca);
        } else {
          sa = std::sin(a);
          ca = std::cos(a);
        }
        c[i] = static_cast<float>(m * ca);
        s[i] = static_cast<float>(sign * m * sa);
        if (kBug == Bug::cos_sin_in_bf16) {
          c[i] = round_bf16(c[i]);
          s[i] = round_bf16(s[i]);
        }
      }
    }
    if (kBug == Bug::last_pair_unrotated) {
      c[pairs - 1] = 1;
      s[pairs - 1] = 0;
    }
    const unsigned layout = kBug == Bug::layout_swapped ? 1u - p->layout : p->layout;
    if (ROPECHECK_MISBEHAVE == 3 && h.out == p->q_out) {
      // Rotate into a scratch head, then store all but the last rotated channel.
      std::vector<float> head(p->head_dim);
      for (int j = 0; j < p->head_dim; ++j) head[j] = impl::load_f32(h.in, h.offset + j, p->dtype);
      ropecheck_apply_params_t scratch = *p;
      scratch.dtype = ROPECHECK_DTYPE_F32;
      impl::rotate_head_pairs(scratch, impl::HeadRef{head.data(), head.data(), 0, h.token, h.position}, layout,
                              c.data(), s.data());
      for (int j = 0; j < d - 1; ++j) impl::store_f32(h.out, h.offset + j, p->dtype, head[j]);
      return;
    }
    impl::rotate_head_pairs(*p, h, layout, c.data(), s.data());
    if (kBug == Bug::pass_through_scaled)  // the attention factor applied to the whole head
      for (int j = d; j < p->head_dim; ++j)
        impl::store_f32(h.out, h.offset + j, p->dtype, static_cast<float>(m) * impl::load_f32(h.in, h.offset + j, p->dtype));
  });
  return ROPECHECK_OK;
}

ropecheck_status_t build_cache(void*, const ropecheck_freq_spec_t* f, std::int32_t d, std::int64_t rows,
                               std::uint32_t dtype, void* cache, char* err, std::size_t n) {
  return impl::build_cos_sin_cache_f64(f, d, rows, dtype, cache, err, n);
}

const ropecheck_impl_t kImpl{sizeof(ropecheck_impl_t),
                             ROPECHECK_MISBEHAVE == 4 ? 99u : ROPECHECK_ABI_VERSION,
                             bug_info(kBug).name,
                             bug_info(kBug).description,
                             ROPECHECK_MISBEHAVE == 5 ? impl::scalar_caps(impl::kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE)
                                                      : kCaps,
                             kPolicy,
                             nullptr,
                             apply,
                             kBug == Bug::cache_no_bounds_check ? build_cache : nullptr,
                             nullptr};
const ropecheck_impl_t* const kTable[] = {&kImpl};

}  // namespace
}  // namespace ropecheck::mutant

#if ROPECHECK_MISBEHAVE != 6
extern "C" __attribute__((visibility("default"))) const ropecheck_impl_t* const* ropecheck_get_impls(
    std::uint32_t host_abi_version, std::uint32_t* count) {
  if (host_abi_version != ROPECHECK_ABI_VERSION) return nullptr;
  *count = 1;
  return ropecheck::mutant::kTable;
}
#endif
