// SPDX-License-Identifier: MIT
// A fused qk-norm's elements, their budgets, and a run judged against them.
#include "core/judge/qk_norm_judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/cases/views.h"
#include "core/judge/reference_result.h"
#include "reference/rounding.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

// The channel paired with `channel` in a rotary dim of `rd`.
int norm_partner_channel(ropecheck_layout_t layout, int rd, int channel) {
  if (layout == ROPECHECK_LAYOUT_INTERLEAVED) return channel ^ 1;
  return channel < rd / 2 ? channel + rd / 2 : channel - rd / 2;
}

std::string norm_number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g (%a)", v, v);
  return b;
}

}  // namespace

std::vector<NormedElement> normed_elements(const Case& c, const QkBuffers& in, const QkNormCase& n,
                                           const NormedReference& ref, const NormedBudget& budget) {
  const ErrorModel& em = budget.rotation;
  const NormPolicy& np = budget.norm;
  const std::array<std::vector<double>, 2> input_error = norm_input_errors(c, in, n, ref, np);
  const Geometry g = geometry(c);
  std::vector<NormedElement> out;
  // The rotated channels: the rotation's budget at the normalised inputs,
  // with E10 (and the reference's rounding of them) as its input error.
  for (int w = 0; w < 2; ++w)
    for (const ReferenceElement& e : ref.rotated.elements(w)) {
      NormedElement x;
      x.w = w;
      x.token = e.token;
      x.head = e.head;
      x.channel = e.channel;
      x.offset = e.offset;
      x.terms = e.terms;
      const int other = norm_partner_channel(c.layout, c.shape.rotary_dim, e.channel);
      const auto& err = input_error[static_cast<std::size_t>(w)];
      const double here = err[static_cast<std::size_t>(e.offset)];
      const double there = err[static_cast<std::size_t>(g.offset(w, e.token, e.head, other))];
      x.terms.input_error_x = x.terms.side == 0 ? here : there;
      x.terms.input_error_y = x.terms.side == 0 ? there : here;
      x.value = e.terms.value;
      x.budget = em.budget(x.terms);
      out.push_back(x);
    }
  // The pass-through channels: the normalised value itself, stored in S
  // (for an fp32 intermediate the store is one more rounding).
  const bool kept_f32 = np.intermediate == NormIntermediate::kKeepF32 && c.dtype != ROPECHECK_DTYPE_F32;
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[static_cast<std::size_t>(w)]; ++h)
        for (int j = c.shape.rotary_dim; j < c.shape.head_dim; ++j) {
          NormedElement x;
          x.w = w;
          x.token = t;
          x.head = h;
          x.channel = j;
          x.offset = g.offset(w, t, h, j);
          x.rotated = false;
          x.value = load_as_double(ref.normed.bytes[static_cast<std::size_t>(w)].data(),
                                   static_cast<std::size_t>(x.offset), ROPECHECK_DTYPE_F64);
          x.norm_error = input_error[static_cast<std::size_t>(w)][static_cast<std::size_t>(x.offset)];
          x.store = kept_f32 ? std::max(0.5 * ref::ulp_of(std::fabs(x.value) + x.norm_error, c.dtype), 0x1p-1074) : 0.0;
          x.budget = x.norm_error + x.store;
          out.push_back(x);
        }
  return out;
}

NormVerdict judge_qk_norm(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const QkNormCase& n,
                          const KernelRun& run) {
  NormVerdict v;
  const NormedReference ref = normed_reference(c, in, n);
  const ErrorModel em = case_error_model(impl, c, ref.rotated.attention_factor);
  for (const NormedElement& e :
       normed_elements(c, in, n, ref, {.rotation = em, .norm = norm_policy_of(impl.norm_policy, n.form)})) {
    const double got = load_as_double(run.out.bytes[static_cast<std::size_t>(e.w)].data(),
                                      static_cast<std::size_t>(e.offset), c.dtype);
    const double units = std::fabs(got - e.value) / e.budget;
    const double u = std::isnan(units) ? HUGE_VAL : units;
    if (!(u <= 1.0) && v.first.empty())
      v.first = std::string(e.w == 0 ? "q" : "k") + "[token " + std::to_string(e.token) + ", head " +
                std::to_string(e.head) + ", channel " + std::to_string(e.channel) + "] position " +
                c.token_positions(e.token) + ": got " + norm_number(got) + ", expected " + norm_number(e.value) +
                ", budget " + norm_number(e.budget) + " [" +
                (e.rotated ? em.explain(e.terms)
                           : "pass-through: norm " + norm_number(e.norm_error) + " + store " + norm_number(e.store)) +
                "]";
    v.worst = std::max(v.worst, u);
  }
  v.outside = write_outside_views(c, run.out, run.initial);
  return v;
}

}  // namespace ropecheck
