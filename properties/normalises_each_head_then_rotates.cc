// Rope/NormalisesEachHeadThenRotates: a kernel fused with the qk-norm (ABI
// 1.5, QK_NORM), called with one (core/cases/qk_norm_case.h), normalises
// every head of q and k by RMSNorm over all its head_dim channels and then
// rotates: each rotated element within the rotation's budget taken at the
// normalised values plus E10's bound carried through it, each pass-through
// element within E10's bound (and its store), against the exact norm and
// rotation (core/judge/qk_norm_reference.h); nothing outside the views
// written; the same bits from a second call. The bug classes: the norm
// fused after the rotation or across it (tenstorrent/tt-mlir PR #9042),
// Gemma's 1 + w taken for w or the reverse, eps dropped, the statistic over
// the rotary channels only, an intermediate rounded where fp32 is declared,
// the pairing layout hard-coded in the fused path (SGLang PR #30342, vLLM
// #49290), q's weight used for k.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/cases/qk_norm_case.h"
#include "core/cases/views.h"
#include "core/judge/qk_norm_reference.h"
#include "properties/property_helpers.h"
#include "reference/rounding.h"
#include "ropecheck/layout.h"
#include "ropecheck/names.h"
#include "ropecheck/policy.h"

namespace ropecheck::prop {
namespace {

// The channel paired with `channel` in a rotary dim of `rd`.
int partner_channel(ropecheck_layout_t layout, int rd, int channel) {
  if (layout == ROPECHECK_LAYOUT_INTERLEAVED) return channel ^ 1;
  return channel < rd / 2 ? channel + rd / 2 : channel - rd / 2;
}

std::string number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g (%a)", v, v);
  return b;
}

}  // namespace

PropertyResult normalises_each_head_then_rotates(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const QkNormCase norm = qk_norm_case(c, impl.norm_policy);
  const QkBuffers in = inputs_for_norm(c, ctx.inputs(), norm);
  const KernelRun run = call_kernel_twice(impl, c, in, &norm);
  if (!run.ok()) return PropertyResult::fail(run.failure() + " (" + norm.describe() + ")");
  const NormedReference ref = normed_reference(c, in, norm);
  const std::array<std::vector<double>, 2> input_error =
      norm_input_errors(c, in, norm, ref, norm_policy_of(impl.norm_policy, norm.form));
  const ErrorModel em = case_error_model(impl, c, ref.rotated.attention_factor);
  const Geometry g = geometry(c);
  double worst = 0;
  std::string first;
  auto judge = [&](int w, std::int64_t t, int h, int j, double want, double budget, const std::string& why) {
    const double got = stored_value(run.out, w, g.offset(w, t, h, j), c.dtype);
    const double units = std::fabs(got - want) / budget;
    const double u = std::isnan(units) ? HUGE_VAL : units;
    if (!(u <= 1.0) && first.empty())
      first = element_name(c, w, t, h, j) + ": got " + number(got) + ", expected " + number(want) + ", budget " +
              number(budget) + " [" + why + "]";
    worst = std::max(worst, u);
  };
  // The rotated channels: the rotation's budget at the normalised inputs,
  // with E10 (and the reference's rounding of them) as its input error.
  for (int w = 0; w < 2; ++w)
    for (const ReferenceElement& e : ref.rotated.elements(w)) {
      ElementTerms terms = e.terms;
      const int other = partner_channel(c.layout, c.shape.rotary_dim, e.channel);
      const auto& err = input_error[static_cast<std::size_t>(w)];
      const double here = err[static_cast<std::size_t>(e.offset)];
      const double there = err[static_cast<std::size_t>(g.offset(w, e.token, e.head, other))];
      terms.input_error_x = terms.side == 0 ? here : there;
      terms.input_error_y = terms.side == 0 ? there : here;
      judge(w, e.token, e.head, e.channel, e.terms.value, em.budget(terms), em.explain(terms));
    }
  // The pass-through channels: the normalised value itself, stored in S
  // (for an fp32 intermediate the store is one more rounding).
  const bool kept_f32 = impl.norm_policy.intermediate == ROPECHECK_NORM_KEEP_F32 && c.dtype != ROPECHECK_DTYPE_F32;
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[static_cast<std::size_t>(w)]; ++h)
        for (int j = c.shape.rotary_dim; j < c.shape.head_dim; ++j) {
          const std::int64_t off = g.offset(w, t, h, j);
          const double want = stored_value(ref.normed, w, off, ROPECHECK_DTYPE_F64);
          const double e = input_error[static_cast<std::size_t>(w)][static_cast<std::size_t>(off)];
          const double store =
              kept_f32 ? std::max(0.5 * ref::ulp_of(std::fabs(want) + e, c.dtype), 0x1p-1074) : 0.0;
          judge(w, t, h, j, want, e + store, "pass-through: norm " + number(e) + " + store " + number(store));
        }
  if (std::string outside = write_outside_views(c, run.out, run.initial); !outside.empty())
    return PropertyResult::fail(outside + " (" + norm.describe() + ")");
  if (!first.empty()) return PropertyResult::fail(first + " (" + norm.describe() + ")", worst);
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
