// SPDX-License-Identifier: MIT
// What the property files share: budgets by offset, calling a kernel or saying why not, capability checks.
#include "properties/property_helpers.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/cases/rng.h"
#include "core/kernel/declined_call.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::prop {

ElementBudgets element_budgets(const ropecheck_impl_t& impl, const Case& c, const ReferenceResult& ref,
                               const BudgetTable* table) {
  std::optional<BudgetTable> own;
  if (table == nullptr) table = &own.emplace(budget_table(case_error_model(impl, c, ref.attention_factor), ref));
  check_budget_table(*table, ref);
  const Geometry g = geometry(c);
  ElementBudgets j;
  j.attention_factor = ref.attention_factor;
  for (int w = 0; w < 2; ++w) {
    const auto n = static_cast<std::size_t>(g.elements[w]);
    j.value[w].assign(n, 0.0);
    j.budget[w].assign(n, 0.0);
    j.pair_budget[w].assign(n, 0.0);
    j.pair_budget_no_angle[w].assign(n, 0.0);
    const auto tw = static_cast<std::size_t>(w);
    std::size_t k = 0;  // the pair's place in walk order
    ref.for_each_pair(w, [&](const ReferenceResult::PairElements& pe) {
      for (int side = 0; side < 2; ++side) {
        const auto off = static_cast<std::size_t>(pe.offset[side]);
        j.value[w][off] = pe.terms[side].value;
        j.budget[w][off] = table->budget[tw][2 * k + static_cast<std::size_t>(side)];
        j.pair_budget[w][off] = table->pair[tw][k];
        j.pair_budget_no_angle[w][off] = table->pair_no_angle[tw][k];
      }
      ++k;
    });
  }
  return j;
}

const ElementBudgets& element_budgets(const ropecheck_impl_t& impl, CaseContext& ctx) {
  return ctx.element_budgets(impl);
}

PropertyResult failed_run(const ropecheck_impl_t& impl, const KernelRun& run, const std::string& context) {
  if (std::string declined = declined_by_kernel(impl, run); !declined.empty())
    return PropertyResult::decline(std::move(declined));
  return PropertyResult::fail(context + run.failure());
}

std::optional<PropertyResult> call_or_fail(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in,
                                           KernelRun* out) {
  *out = call_kernel(impl, c, in);
  if (out->ok()) return std::nullopt;
  return failed_run(impl, *out);
}

std::optional<PropertyResult> base_run_or_fail(const ropecheck_impl_t& impl, CaseContext& ctx, const KernelRun** out) {
  *out = &ctx.base_run(impl);
  if ((*out)->ok()) return std::nullopt;
  return failed_run(impl, **out);
}

std::optional<PropertyResult> skip_outside_capabilities(const ropecheck_impl_t& impl,
                                                        std::initializer_list<const Case*> cs) {
  for (const Case* c : cs)
    if (std::string why = outside_capabilities(impl, *c); !why.empty())
      return PropertyResult::decline("outside capabilities: " + why);
  return std::nullopt;
}

std::int64_t draw_shift(const Case& c, std::uint64_t salt, std::int64_t max_shift) {
  Rng rng(c.data_seed, salt);
  const std::int64_t room = std::int64_t{2147483647} - c.max_abs_position();
  const std::int64_t hi = std::max<std::int64_t>(0, std::min(max_shift, room));
  return rng.range(0, hi);
}

std::string element_name(const Case& c, int w, std::int64_t token, int head, int channel) {
  return std::string(w == 0 ? "q" : "k") + "[token " + std::to_string(token) + ", head " + std::to_string(head) +
         ", channel " + std::to_string(channel) + "] position " +
         c.token_positions(token);
}

QkBuffers remap_inputs(const Case& from, const QkBuffers& in, const Case& to, const std::vector<std::int64_t>& token_of) {
  const Geometry gf = geometry(from), gt = geometry(to);
  QkBuffers out;
  for (int w = 0; w < 2; ++w) {
    auto& buf = out.bytes[w];
    buf.resize(static_cast<std::size_t>(gt.elements[w]) * gt.esize);
    fill_canary(buf.data(), buf.size());
    for (std::int64_t t = 0; t < to.tokens; ++t)
      for (int h = 0; h < std::min(gt.heads[w], gf.heads[w]); ++h)
        std::memcpy(buf.data() + gt.offset(w, t, h, 0) * gt.esize,
                    in.bytes[w].data() + gf.offset(w, token_of[static_cast<std::size_t>(t)], h, 0) * gf.esize,
                    static_cast<std::size_t>(gt.head_dim) * gt.esize);
  }
  return out;
}

std::string first_token_difference(const TokenOf& a, const TokenOf& b, bool q_only) {
  const Geometry ga = geometry(a.c), gb = geometry(b.c);
  for (int w = 0; w < (q_only ? 1 : 2); ++w)
    for (int h = 0; h < std::min(ga.heads[w], gb.heads[w]); ++h) {
      const int j = first_differing_channel(a.out.bytes[w].data() + ga.offset(w, a.token, h, 0) * ga.esize,
                                            b.out.bytes[w].data() + gb.offset(w, b.token, h, 0) * gb.esize,
                                            ga.head_dim, ga.esize);
      if (j < 0) continue;
      const std::int64_t oa = ga.offset(w, a.token, h, j), ob = gb.offset(w, b.token, h, j);
      char buf[256];
      const double x = stored_value(a.out, w, oa, a.c.dtype), y = stored_value(b.out, w, ob, b.c.dtype);
      std::snprintf(buf, sizeof buf, "%s[head %d, channel %d]: %.9g (%a) vs %.9g (%a)", w == 0 ? "q" : "k", h, j, x,
                    x, y, y);
      return buf;
    }
  return {};
}

bool same_value(const QkBuffers& a, const QkBuffers& b, int w, std::int64_t off, ropecheck_dtype_t dt) {
  const double x = stored_value(a, w, off, dt), y = stored_value(b, w, off, dt);
  if (std::isnan(x) || std::isnan(y)) {
    const std::size_t es = dtype_size(dt);
    return std::memcmp(a.bytes[w].data() + off * es, b.bytes[w].data() + off * es, es) == 0;
  }
  return exactly_equal(x, y);
}

PropertyResult dots_unchanged(const ropecheck_impl_t& impl, CaseContext& ctx, const Case& shifted,
                              const std::string& shift) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c, &shifted})) return *s;
  const QkBuffers& in = ctx.inputs();
  const KernelRun* base = nullptr;
  if (auto f = base_run_or_fail(impl, ctx, &base)) return *f;
  KernelRun moved;
  if (auto f = call_or_fail(impl, shifted, in, &moved)) return *f;
  const KernelRun* runs[2] = {base, &moved};
  // The shifted case is the same for every kernel: its reference and
  // budgets are shared (CaseContext::derived).
  const ElementBudgets* js[2] = {
      &element_budgets(impl, ctx),
      &element_budgets(impl, ctx.derived("dots_unchanged: " + shift, [&] { return CaseContext(shifted, in); }))};
  const Geometry g = geometry(c);
  const int group = c.q_heads / c.kv_heads;
  double worst = 0;
  for (int h = 0; h < c.q_heads; ++h)
    for (std::int64_t a = 0; a < c.tokens; ++a)
      for (std::int64_t b = 0; b < c.tokens; ++b) {
        double dot[2] = {0, 0}, budget = 0, mag = 0;
        for (int r = 0; r < 2; ++r)
          for (int j = 0; j < g.head_dim; ++j) {
            const std::int64_t oq = g.offset(0, a, h, j), ok = g.offset(1, b, h / group, j);
            const double qv = stored_value(runs[r]->out, 0, oq, c.dtype), kv = stored_value(runs[r]->out, 1, ok, c.dtype);
            dot[r] += qv * kv;
            mag += std::fabs(qv * kv);
            const double eq = js[r]->budget[0][oq], ek = js[r]->budget[1][ok];
            budget += std::fabs(js[r]->value[0][oq]) * ek + std::fabs(js[r]->value[1][ok]) * eq + eq * ek;
          }
        budget += 4.0 * g.head_dim * 0x1p-53 * mag;  // the dots themselves, in double
        const double units = std::fabs(dot[0] - dot[1]) / budget;
        worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
        if (!(units <= 1.0))
          return PropertyResult::fail(
              "q head " + std::to_string(h) + " token " + std::to_string(a) + " . k token " +
                  std::to_string(b) + ": dot " + std::to_string(dot[0]) + " at positions (" +
                  c.token_positions(a) + ", " + c.token_positions(b) +
                  ") but " + std::to_string(dot[1]) + " " + shift +
                  ", budget " + std::to_string(budget),
              units);
      }
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
