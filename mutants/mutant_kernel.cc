// SPDX-License-Identifier: MIT
// One realistic buggy RoPE kernel per row of mutant_list.h: the same clean
// scalar kernel (double-precision frequencies and angles, fp32 rotation)
// with exactly one bug switched on by the table's context, or, for the rows
// of policy_mutants.cc, a policy kernel with one more rounding than it declares. Bug::none is the
// correct control, which must pass the gate: every mutant differs from it in
// one place only. Frequency bugs are written as changes of the config or of
// the correct frequencies (impls/kernel_support/engine_freqs.h), so the
// mutants carry no second copy of the formulas.
#include "mutants/mutant_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/pair_axes.h"
#include "impls/kernel_support/token_offsets.h"
#include "impls/policy/storage_arith.h"
#include "mutants/cos_sin_cache_mutants.h"
#include "mutants/kv_write_mutants.h"
#include "mutants/qk_norm_mutants.h"
#include "mutants/quant_out_mutants.h"
#include "mutants/policy_mutants.h"

namespace ropecheck::mutant {
namespace {

using impl::EngineFreqs;

// What a table's ctx points at.
struct Kernel {
  Bug bug = Bug::none;
};

constexpr ropecheck_caps_t caps_of(Bug bug) {
  // The capability restrictions of ABI 1.1, declared by the rows that break
  // the behaviour left inside them.
  const std::uint32_t restriction = bug == Bug::yarn_truncation_dropped ? ROPECHECK_CAP_YARN_TRUNCATED_ONLY
                                    : bug == Bug::attention_factor_dropped_no_explicit
                                        ? ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR
                                        : 0u;
  // Every row takes multi-axis positions (ABI 1.3), per-axis frequencies
  // too but for the cache row (a cache holds rotary_dim's frequencies).
  return impl::standard_caps(impl::kBothLayouts,
                             bug == Bug::cache_no_bounds_check
                                 ? ROPECHECK_CAP_COS_SIN_CACHE | impl::kAllAxisForms
                                 : ROPECHECK_CAP_NEGATIVE_POSITIONS | restriction | impl::kAllAxisForms |
                                       ROPECHECK_CAP_AXIS_FREQUENCIES);
}
// What the control achieves and declares: frequencies and angles in double,
// libm sin/cos in double, rotation and cos/sin in fp32.
constexpr ropecheck_policy_t kPolicy =
    libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32);

float round_bf16(float v) { return impl::round_to_storage(v, ROPECHECK_DTYPE_BF16); }
float round_f16(float v) { return impl::round_to_storage(v, ROPECHECK_DTYPE_F16); }

// The frequencies the kernel uses: correct, or with the mutant's bug.
EngineFreqs<double> frequencies(Bug bug, const ropecheck_freq_spec_t& spec, int d, int head_dim) {
  ropecheck_freq_spec_t s = spec;
  const bool yarn = s.scheme == ROPECHECK_SCHEME_YARN;
  switch (bug) {
    case Bug::yarn_truncate_ignored:
      if (yarn) s.truncate = 1;
      break;
    case Bug::yarn_truncation_dropped:
      if (yarn) s.truncate = 0;
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
  if (bug == Bug::exponent_over_head_dim) {
    f = impl::engine_frequencies<double>(s, head_dim);  // b^(-2i/head_dim)
    f.inv_freq.resize(d / 2);
  } else if (bug == Bug::exponent_off_by_one) {
    f = impl::engine_frequencies<double>(s, d + 2);  // b^(-2i/(d+2))
    f.inv_freq.resize(d / 2);
  } else {
    f = impl::engine_frequencies<double>(s, d);
  }
  if (yarn && bug == Bug::yarn_ramp_reversed) {
    // w = w/s r + w (1 - r) with the ramp reversed is w/s (1 - r) + w r.
    ropecheck_freq_spec_t plain = s;
    plain.scheme = ROPECHECK_SCHEME_DEFAULT;
    const auto w = impl::engine_frequencies<double>(plain, d).inv_freq;
    for (int i = 0; i < d / 2; ++i) f.inv_freq[i] = w[i] + w[i] / s.factor - f.inv_freq[i];
  }
  if (yarn && (bug == Bug::yarn_attention_factor_missing || bug == Bug::attention_factor_dropped_no_explicit))
    f.attention_factor = 1;
  if (yarn && bug == Bug::yarn_attention_factor_twice) f.attention_factor *= f.attention_factor;
  return f;
}

// Each pair's axis as the kernel assigns it: correct, or with the
// mutant's multi-axis bug.
impl::PairAxisMap axis_map(Bug bug, const ropecheck_apply_params_t& p) {
  ropecheck_apply_params_t q = p;
  std::vector<std::int32_t> reversed;
  if (impl::axes_of(&p) > 0) {
    if (bug == Bug::mrope_interleaved_as_sections && p.axis_assignment == ROPECHECK_AXES_INTERLEAVED)
      q.axis_assignment = ROPECHECK_AXES_SECTIONS;
    if (bug == Bug::mrope_sections_reversed && p.axis_assignment == ROPECHECK_AXES_SECTIONS) {
      reversed.assign(p.axis_sections, p.axis_sections + p.num_axes);
      std::reverse(reversed.begin(), reversed.end());
      q.axis_sections = reversed.data();
    }
  }
  return impl::pair_axis_map(q);
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


// x c - y s and x s + y c each as one fused multiply-add: the other
// rounding of the rotation (in budget for a SEPARATE policy, other bits).
void rotate_head_pairs_fma(const ropecheck_apply_params_t& p, const impl::HeadRef& h, unsigned layout,
                           const float* c, const float* s) {
  for (int i = 0; i < p.rotary_dim / 2; ++i) {
    int ia, ib;
    pair_channels(layout, p.rotary_dim, i, &ia, &ib);
    const float x = impl::load_f32(h.in, h.offset + ia, p.dtype);
    const float y = impl::load_f32(h.in, h.offset + ib, p.dtype);
    impl::store_f32(h.out, h.offset + ia, p.dtype, std::fmaf(x, c[i], -(y * s[i])));
    impl::store_f32(h.out, h.offset + ib, p.dtype, std::fmaf(x, s[i], y * c[i]));
  }
}

// Elements from a view's first element to its last (every stride >= 0).
std::int64_t span_of(const ropecheck_apply_params_t& p, const impl::TensorStrides& st, int heads) {
  return p.num_tokens > 0 && heads > 0 ? st.offset(p.num_tokens - 1, heads - 1) + p.head_dim : 0;
}

// The shape bugs' changes to the call: how tokens are addressed, which
// rows are rotated. Returns the params the head walk uses.
ropecheck_apply_params_t shape_bug_params(Bug bug, const ropecheck_apply_params_t* p) {
  ropecheck_apply_params_t q = *p;
  if (bug == Bug::k_rotated_with_q_heads) q.num_kv_heads = p->num_q_heads;
  if (bug == Bug::k_head_stride_from_q) q.k_head_stride = p->q_head_stride;
  if (bug == Bug::seq_stride_ignored) q.seq_len = 0;
  if (bug == Bug::k_unrotated_single_kv_head && p->num_kv_heads == 1) {
    q.num_kv_heads = 0;
    if (p->k_in != p->k_out) {  // out of place: k copied as it came in
      const impl::TensorStrides ks = impl::k_strides(*p);
      const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
      for (std::int64_t t = 0; t < p->num_tokens; ++t)
        std::memcpy(static_cast<char*>(p->k_out) + ks.offset(t, 0) * es,
                    static_cast<const char*>(p->k_in) + ks.offset(t, 0) * es, static_cast<std::size_t>(p->head_dim) * es);
    }
  }
  if (bug == Bug::clears_output_span) {
    const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
    if (p->q_in != p->q_out)
      std::memset(p->q_out, 0, static_cast<std::size_t>(span_of(*p, impl::q_strides(*p), p->num_q_heads)) * es);
    if (p->num_kv_heads > 0 && p->k_in != p->k_out)
      std::memset(p->k_out, 0, static_cast<std::size_t>(span_of(*p, impl::k_strides(*p), p->num_kv_heads)) * es);
  }
  return q;
}

// One call's walk over its heads, with the row's bug: what every head shares
// (frequencies, direction, the positions' addressing) set once, then each
// head's angles, layout, rotation and pass-through in steps of their own.
class HeadPass {
 public:
  HeadPass(Bug bug, const ropecheck_apply_params_t* p)
      : bug_(bug), p_(*p), d_(p->rotary_dim), pairs_(p->rotary_dim / 2), axes_(axis_map(bug, *p)),
        multi_(axes_.axes > 0),
        // Per-axis frequencies (multi-axis calls that ask for them) or the
        // scheme's over rotary_dim, with the frequency bugs of the 1D rows.
        f_(multi_ && p->axis_frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS && bug != Bug::axis_frequencies_shared
               ? impl::pair_frequencies<double>(*p, axes_)
               : frequencies(bug, *p->freq, p->rotary_dim, p->head_dim)),
        sign_((p->direction == ROPECHECK_DIRECTION_INVERSE) != (bug == Bug::direction_flipped) ? -1 : 1),
        c_(pairs_), s_(pairs_), pos_(pairs_), seq_len_(impl::seq_len_of(*p)), rows_(*p),
        q_rows_(p->num_tokens * p->num_q_heads) {
    if (bug == Bug::axis_stride_ignored) rows_.position_axis_stride = p->num_tokens;  // how it addresses the rows
  }

  // The position the kernel reads for token t on an axis.
  std::int64_t position_of(std::int64_t t, int axis) const {
    if (bug_ == Bug::position_offset_ignored) return t;
    if (bug_ == Bug::mrope_temporal_only) axis = 0;
    if (bug_ == Bug::decode_first_row_position && seq_len_ == 1) return impl::position_at(&rows_, 0, axis);
    if (bug_ == Bug::batch_positions_ignored && seq_len_ > 0) return impl::position_at(&rows_, t % seq_len_, axis);
    return impl::position_at(&rows_, t, axis);
  }

  void head(const impl::HeadRef& h, std::int64_t kv_heads) {
    if (dropped(kv_heads)) return;
    angles(h);
    rotate(h, layout(h));
    if (bug_ == Bug::pass_through_scaled)  // the attention factor applied to the whole head
      for (int j = d_; j < p_.head_dim; ++j)
        impl::store_f32(h.out, h.offset + j, p_.dtype,
                        static_cast<float>(f_.attention_factor) * impl::load_f32(h.in, h.offset + j, p_.dtype));
  }

 private:
  // The pair (c_[i], s_[i]) of pair i at its position, with the bug's effect on it.
  void trig(int i, float* running) {
    const double m = f_.attention_factor;
    double a = static_cast<double>(pos_[i]) * f_.inv_freq[i];
    if (bug_ == Bug::angle_in_bf16) a = round_bf16(static_cast<float>(a));
    if (bug_ == Bug::angle_in_fp16) a = round_f16(static_cast<float>(a));
    if (bug_ == Bug::running_product_angles) {  // ggml: theta *= theta_scale, in fp32
      const double correction = f_.inv_freq[i] / std::pow(p_.freq->base, -2.0 * i / d_);
      a = static_cast<float>(*running * static_cast<float>(correction));
      *running *= static_cast<float>(std::pow(p_.freq->base, -2.0 / d_));
    }
    double sa, ca;
    if (bug_ == Bug::fast_sincos_no_range_reduction) {
      taylor_sincos(a, &sa, &ca);
    } else {
      sa = std::sin(a);
      ca = std::cos(a);
    }
    c_[i] = static_cast<float>(m * ca);
    s_[i] = static_cast<float>(sign_ * m * sa);
    if (bug_ == Bug::cos_sin_in_bf16) {
      c_[i] = round_bf16(c_[i]);
      s_[i] = round_bf16(s_[i]);
    }
  }

  // partition_drops_tail_rows: the walk's row (q's rows first) past the
  // last whole block of 64 is skipped.
  bool dropped(std::int64_t kv_heads) {
    if (bug_ != Bug::partition_drops_tail_rows) return false;
    const bool in_q = row_ < q_rows_;
    const std::int64_t local = in_q ? row_ : row_ - q_rows_;
    const std::int64_t rows = in_q ? q_rows_ : p_.num_tokens * kv_heads;
    ++row_;
    return rows > 64 && local >= rows / 64 * 64;
  }

  // Each pair's cos and sin for the head, with the angle bugs.
  void angles(const impl::HeadRef& h) {
    for (int i = 0; i < pairs_; ++i) pos_[i] = multi_ ? position_of(h.token, axes_.axis[i]) : h.position;
    if (bug_ == Bug::cache_no_bounds_check) {
      for (int i = 0; i < pairs_; ++i) {
        const float* row = static_cast<const float*>(p_.cos_sin_cache) + pos_[i] * d_;
        c_[i] = row[i];
        s_[i] = static_cast<float>(sign_) * row[pairs_ + i];
      }
    } else {
      float running = static_cast<float>(h.position);
      for (int i = 0; i < pairs_; ++i) trig(i, &running);
    }
    if (bug_ == Bug::last_pair_unrotated) {
      c_[pairs_ - 1] = 1;
      s_[pairs_ - 1] = 0;
    }
    if (bug_ == Bug::tail_pairs_unrotated && pairs_ > 8)
      for (int i = pairs_ / 8 * 8; i < pairs_; ++i) c_[i] = 1, s_[i] = 0;
  }

  // The pairing the kernel uses for the head, with the layout bugs.
  unsigned layout(const impl::HeadRef& h) const {
    unsigned layout = p_.layout;
    if (bug_ == Bug::layout_swapped || (bug_ == Bug::layout_swapped_above_4096 && h.position > 4096) ||
        (bug_ == Bug::layout_swapped_head_dim_192 && p_.head_dim >= 192))
      layout = 1u - layout;
    if (bug_ == Bug::mrope_layout_hard_coded && multi_) layout = ROPECHECK_LAYOUT_HALF_SPLIT;
    return layout;
  }

  void rotate(const impl::HeadRef& h, unsigned layout) {
    if (bug_ == Bug::mrope_partial_over_head_dim && multi_ && layout == ROPECHECK_LAYOUT_HALF_SPLIT &&
        d_ < p_.head_dim) {
      // Partners at i + head_dim/2 (inside the head, outside the rotary part).
      for (int i = 0; i < pairs_; ++i) {
        const std::int64_t a = h.offset + i, b = h.offset + i + p_.head_dim / 2;
        const float x = impl::load_f32(h.in, a, p_.dtype), y = impl::load_f32(h.in, b, p_.dtype);
        impl::store_f32(h.out, a, p_.dtype, x * c_[i] - y * s_[i]);
        impl::store_f32(h.out, b, p_.dtype, x * s_[i] + y * c_[i]);
      }
    } else if ((bug_ == Bug::fma_when_many_tokens && p_.num_tokens > 32) ||
               (bug_ == Bug::fma_when_q_alone && p_.num_kv_heads == 0)) {
      rotate_head_pairs_fma(p_, h, layout, c_.data(), s_.data());
    } else {
      impl::rotate_head_pairs(p_, h, layout, c_.data(), s_.data());
    }
  }

  const Bug bug_;
  const ropecheck_apply_params_t& p_;
  const int d_, pairs_;
  const impl::PairAxisMap axes_;
  const bool multi_;
  const EngineFreqs<double> f_;
  const double sign_;
  std::vector<float> c_, s_;
  std::vector<std::int64_t> pos_;
  const std::int64_t seq_len_;
  ropecheck_apply_params_t rows_;
  const std::int64_t q_rows_;
  std::int64_t row_ = 0;
};

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Bug bug = static_cast<const Kernel*>(ctx)->bug;
  ropecheck_apply_params_t checked = *p;
  // The missing bounds check: positions are not compared with the cache.
  if (bug == Bug::cache_no_bounds_check) checked.cache_max_position = INT64_MAX;
  if (auto st = impl::check_apply(caps_of(bug), &checked, err, n)) return st;
  HeadPass pass(bug, p);
  const ropecheck_apply_params_t q = shape_bug_params(bug, p);
  impl::for_each_head(
      q, [&](std::int64_t t) { return pass.position_of(t, 0); },
      [&](const impl::HeadRef& h) { pass.head(h, q.num_kv_heads); });
  return ROPECHECK_OK;
}

ropecheck_impl_t table_of(const Kernel* k, const BugInfo& info) {
  return impl::kernel_table(info.name, info.description, caps_of(k->bug),
                            k->bug == Bug::cache_no_bounds_check ? impl::kCacheBuilderPolicy : kPolicy, apply,
                            k->bug == Bug::cache_no_bounds_check ? impl::build_cos_sin_cache_entry : nullptr, nullptr,
                            const_cast<Kernel*>(k));
}

constexpr int kBugCount = static_cast<int>(std::size(kBugs));

}  // namespace

const ropecheck_impl_t* mutant_impl(Bug bug) {
  static const auto* tables = [] {
    static Kernel kernels[kBugCount];
    static ropecheck_impl_t t[kBugCount];
    for (int i = 0; i < kBugCount; ++i) {
      kernels[i].bug = kBugs[i].bug;
      const impl::PolicyKernel* policy_row = policy_mutant(kBugs[i].bug);
      t[i] = policy_row                         ? impl::policy_kernel_table(policy_row)
             : is_kv_write_bug(kBugs[i].bug) ? kv_write_mutant_table(kBugs[i], &t[0])
             : is_qk_norm_bug(kBugs[i].bug)  ? qk_norm_mutant_table(kBugs[i], &t[0])
             : is_quant_out_bug(kBugs[i].bug) ? quant_out_mutant_table(kBugs[i], &t[0])
             : is_cos_sin_cache_bug(kBugs[i].bug) ? cos_sin_cache_mutant_table(kBugs[i])
                                             : table_of(&kernels[i], kBugs[i]);
    }
    return t;
  }();
  return &tables[static_cast<int>(bug)];
}

const ropecheck_impl_t* find_mutant(std::string_view name) {
  for (const BugInfo& b : kBugs)
    if (name == b.name) return mutant_impl(b.bug);
  return nullptr;
}

}  // namespace ropecheck::mutant
