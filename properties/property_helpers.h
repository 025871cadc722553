// SPDX-License-Identifier: MIT
// What the property files share: per-element budgets looked up by storage
// offset, calling a kernel or explaining why not, the capability check over
// derived cases, and naming an element in a failure message.
#ifndef ROPECHECK_PROPERTIES_PROPERTY_HELPERS_H_
#define ROPECHECK_PROPERTIES_PROPERTY_HELPERS_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/error_model/error_model.h"
#include "core/kernel/kernel_call.h"
#include "core/judge/reference_result.h"
#include "properties/property.h"
#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"

namespace ropecheck::prop {

// ElementBudgets (properties/property.h) of a case for the implementation's
// declared policy. table: budget_table of ref under impl's model, when the caller holds it.
ElementBudgets element_budgets(const ropecheck_impl_t& impl, const Case& c, const ReferenceResult& ref,
                               const BudgetTable* table = nullptr);
// The same of a (derived) case context's own case, kept by the context.
const ElementBudgets& element_budgets(const ropecheck_impl_t& impl, CaseContext& ctx);

// Element `off` of tensor w (0 q, 1 k) of a buffer, as a double.
inline double stored_value(const QkBuffers& b, int w, std::int64_t off, ropecheck_dtype_t dt) {
  return load_as_double(b.bytes[w].data(), static_cast<std::size_t>(off), dt);
}

// The result of a property whose call of the kernel was not OK: a skip
// counted as declined when the kernel declined the case (ABI 1.7's
// MAY_DECLINE, core/kernel/declined_call.h), else the failure, after
// `context` ("with the slots handed out ...: ").
PropertyResult failed_run(const ropecheck_impl_t& impl, const KernelRun& run, const std::string& context = "");

// Calls the implementation; on a non-OK status returns the failure to report
// (or the skip of a case it declined).
std::optional<PropertyResult> call_or_fail(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in,
                                           KernelRun* out);

// ctx.base_run(impl), or the failure to report when it failed.
std::optional<PropertyResult> base_run_or_fail(const ropecheck_impl_t& impl, CaseContext& ctx, const KernelRun** out);

// A skip when any of the (derived) cases lies outside the implementation's
// declared capabilities.
std::optional<PropertyResult> skip_outside_capabilities(const ropecheck_impl_t& impl,
                                                        std::initializer_list<const Case*> cs);

// Position shift that keeps every position inside int32 and a cache's reach.
std::int64_t draw_shift(const Case& c, std::uint64_t salt, std::int64_t max_shift);

// <f(q_a), f(k_b)> of every q head, its kv head and every pair of tokens
// is the same in the case and in `shifted` (the same inputs at positions
// that keep every q-k offset), within the dot-product budget both runs'
// element budgets imply: |<a, b> - <a', b'>| <= sum |a_j| e(b_j) +
// |b_j| e(a_j) + e(a_j) e(b_j). `shift` says how the positions moved.
PropertyResult dots_unchanged(const ropecheck_impl_t& impl, CaseContext& ctx, const Case& shifted,
                              const std::string& shift);

// "q[token 1, head 0, channel 3] position 77", for failure messages.
std::string element_name(const Case& c, int w, std::int64_t token, int head, int channel);

// Calls fn(w, token, head, pair, offset_a, offset_b) for every rotated pair
// of a case's q and k; fn returns a failure to stop, or nullopt to go on.
template <class Fn>
std::optional<PropertyResult> for_each_pair(const Case& c, Fn&& fn) {
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int i = 0; i < g.rotary_dim / 2; ++i) {
          int a, b;
          pair_channels(c.layout, g.rotary_dim, i, &a, &b);
          if (auto f = fn(w, t, h, i, g.offset(w, t, h, a), g.offset(w, t, h, b))) return f;
        }
  return std::nullopt;
}

// Compares `got` with `want_scale * want` pair by pair: the distance between
// the two pairs within budget(w, offset_a, offset_b), a rotation-invariant
// bound.
template <class Budget>
PropertyResult compare_pairs(const Case& c, const QkBuffers& got, const QkBuffers& want, double want_scale,
                             Budget budget, const std::string& what) {
  double worst = 0;
  auto fail = for_each_pair(c, [&](int w, std::int64_t t, int h, int i, std::int64_t oa,
                                   std::int64_t ob) -> std::optional<PropertyResult> {
    const double dist = std::hypot(stored_value(got, w, oa, c.dtype) - want_scale * stored_value(want, w, oa, c.dtype),
                                   stored_value(got, w, ob, c.dtype) - want_scale * stored_value(want, w, ob, c.dtype));
    const double bud = budget(w, oa, ob) * (1 + 0x1p-40);
    const double units = dist / bud;
    worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
    if (!(units <= 1.0))
      return PropertyResult::fail(what + " off by " + std::to_string(dist) + " (budget " + std::to_string(bud) +
                                      ") at " + element_name(c, w, t, h, 0) + ", pair " + std::to_string(i),
                                  units);
    return std::nullopt;
  });
  if (fail) return *fail;
  return {Outcome::kPass, {}, worst, {}};
}

// Inputs for a case `to` derived from `from` (another memory layout, fewer
// heads, tokens picked or reordered): token t of `to` gets the values of
// token token_of[t] of `from` (to.tokens entries), every head `to` has
// (its heads are a prefix of from's), all channels; padding holds canaries.
QkBuffers remap_inputs(const Case& from, const QkBuffers& in, const Case& to, const std::vector<std::int64_t>& token_of);

// One token of a run's outputs: the case it ran, the outputs, the token.
struct TokenOf {
  const Case& c;
  const QkBuffers& out;
  std::int64_t token;
};

// First element of token b.token of run b whose bits differ from token
// a.token of run a, over every head both have and every channel (q alone
// with q_only), as "q[head 1, channel 7]: x (hex) vs y (hex)"; empty when
// identical.
std::string first_token_difference(const TokenOf& a, const TokenOf& b, bool q_only = false);

// Bitwise equality of two stored elements, treating +0 and -0 as equal.
bool same_value(const QkBuffers& a, const QkBuffers& b, int w, std::int64_t off, ropecheck_dtype_t dt);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_PROPERTY_HELPERS_H_
