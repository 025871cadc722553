// SPDX-License-Identifier: MIT
#include "core/judge/judge.h"

#include <cstdio>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

#include "core/cases/views.h"
#include "core/kernel/declined_call.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "reference/rounding.h"

namespace ropecheck {
int position_bin(std::int64_t p) {
  const std::int64_t a = abs_position(p);
  if (a < (1u << 10)) return 0;
  if (a < (1u << 16)) return 1;
  if (a < (1u << 20)) return 2;
  return 3;
}

const char* position_bin_name(int bin) {
  constexpr const char* kNames[] = {"<2^10", "2^10..2^16", "2^16..2^20", ">=2^20"};
  return kNames[bin];
}

std::string value_text(double v, std::uint64_t bits, int bytes) {
  char b[96];
  if (bytes > 0 && (std::isnan(v) || exactly_equal(v, 0.0)))
    std::snprintf(b, sizeof b, "%s (bits 0x%0*llx)", std::isnan(v) ? "nan" : std::signbit(v) ? "-0" : "0", 2 * bytes,
                  static_cast<unsigned long long>(bits));
  else
    std::snprintf(b, sizeof b, "%.9g (%a)", v, v);
  return b;
}

std::uint64_t stored_bits(const unsigned char* base, std::size_t i, ropecheck_dtype_t t) {
  const std::size_t es = dtype_size(t);
  std::uint64_t bits = 0;
  std::memcpy(&bits, base + i * es, es);  // little-endian: the low bytes
  return bits;
}

std::string Violation::format() const {
  std::ostringstream os;
  os << what;
  if (token >= 0) os << " at " << tensor << "[token " << token << ", head " << head << ", channel " << channel
                     << "] position " << position;
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", budget);
  os << ": got " << value_text(got, got_bits, got_bytes) << ", expected " << value_text(expected, expected_bits, expected_bytes)
     << ", budget " << b;
  if (!detail.empty()) os << " [" << detail << "]";
  return os.str();
}

CaseOutcome judge(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in,
                  const ReferenceResult& ref, const KernelRun& run, const BudgetTable* budgets) {
  CaseOutcome out;
  if (std::string bad = ErrorModel::check_policy(policy_of(impl)); !bad.empty()) {
    out.outcome = Outcome::kFail;
    out.message = "declared policy rejected: " + bad;
    return out;
  }
  if (!run.ok()) {
    // A case the kernel declined (ABI 1.7's MAY_DECLINE) is a skip.
    std::string declined = declined_by_kernel(impl, run);
    out.outcome = declined.empty() ? Outcome::kFail : Outcome::kSkipped;
    out.message = declined.empty() ? run.failure() : std::move(declined);
    return out;
  }
  const Geometry g = geometry(c);
  const ErrorModel model = case_error_model(impl, c, ref.attention_factor);
  std::optional<BudgetTable> own;
  if (budgets == nullptr) budgets = &own.emplace(budget_table(model, ref));
  check_budget_table(*budgets, ref);
  auto note = [&](Violation v) {
    ++out.violations;
    if (!out.first) out.first = std::move(v);
  };
  const char* names[2] = {"q", "k"};
  const double domain = model.overflow_free_limit();  // per element, the same for all
  std::map<std::int64_t, PositionPoint> points;
  // Elements come in walk order: the pairs of a token (one position in 1D)
  // one after the other, so the point of the last position is usually the
  // next one's too.
  PositionPoint* last_point = nullptr;
  for (int w = 0; w < 2; ++w) {
    const unsigned char* got = run.out.bytes[w].data();
    const std::vector<double>& budget_of = budgets->budget[static_cast<std::size_t>(w)];
    const std::vector<std::uint8_t>& dominant_of = budgets->dominant[static_cast<std::size_t>(w)];
    const std::vector<double>& norm_of = budgets->norm[static_cast<std::size_t>(w)];
    std::size_t k = 0;  // the pair's place in walk order
    // Pair by pair: both elements share x and y, so the pair's ulp is
    // worked out once for both.
    ref.for_each_pair(w, [&](const ReferenceResult::PairElements& pe) {
      const std::size_t pair_at = k++;
      const double pair_ulp = ref::ulp_of(ref.attention_factor * norm_of[pair_at], c.dtype);
      for (int side = 0; side < 2; ++side) {
        const ElementTerms& e = pe.terms[side];
        const auto at = static_cast<std::size_t>(pe.offset[side]);
        const double v = load_as_double(got, at, c.dtype);
        if (!std::isfinite(e.x) || !std::isfinite(e.y)) {
          // A non-finite input makes the exact result non-finite; its class is
          // the reference's whenever the signs of cos and sin are certain.
          const double te = model.trig_error(e);
          const bool certain = std::fabs(e.cos_a) > te && std::fabs(e.sin_a) > te;
          const bool same_class = std::isnan(v) ? std::isnan(e.value)
                                                : (std::isinf(e.value) && std::signbit(v) == std::signbit(e.value));
          if (std::isfinite(v) || (certain && !same_class))
            note({names[w], pe.token, pe.head, pe.channel[side], e.position, v, e.value, 0.0,
                  std::isfinite(v) ? "finite output from a non-finite input"
                                   : "non-finite input propagated unlike the reference",
                  "", stored_bits(got, at, c.dtype), 0, static_cast<int>(g.esize), 0});
          continue;
        }
        if (std::fmax(std::fabs(e.x), std::fabs(e.y)) > domain) {
          ++out.outside_domain;
          continue;
        }
        const double budget = budget_of[2 * pair_at + static_cast<std::size_t>(side)];
        double units = std::fabs(v - e.value) / budget;
        // Rounding to the storage dtype may overflow: an infinity is what a
        // correct kernel stores when the budget interval around the exact value
        // reaches the overflow threshold on that infinity's side (at a long
        // context an fp32-product kernel's budget covers the whole circle, so
        // either side can be reached; found by differential_fuzzer).
        if (std::isinf(v) && (v > 0 ? e.value + budget >= overflow_threshold(c.dtype)
                                    : e.value - budget <= -overflow_threshold(c.dtype)))
          units = 0;
        const double ulps = (std::isinf(v) && exactly_equal(v, pe.rounded[side]))
                                ? 0.0
                                : std::fabs(v - pe.rounded[side]) / ref::ulp_of(pe.rounded[side], c.dtype);
        BinStats& b = out.bins[position_bin(e.position)];
        ++b.elements;
        // Also catches NaN. The budget's breakdown is written for the first
        // violation alone: formatting it for every element of a wrong
        // output cost more than judging them.
        if (!(units <= 1.0))
          note(out.first ? Violation{}
                         : Violation{names[w], pe.token, pe.head, pe.channel[side], e.position, v, e.value, budget,
                                     "outside budget", model.explain(e), stored_bits(got, at, c.dtype), 0,
                                     static_cast<int>(g.esize), 0});
        const double u = std::isnan(units) ? HUGE_VAL : units;
        const double l = std::isnan(ulps) ? HUGE_VAL : ulps;
        const int term = dominant_of[2 * pair_at + static_cast<std::size_t>(side)];
        ++out.elements_by_term[term];
        out.worst_by_term[term] = std::max(out.worst_by_term[term], u);
        b.worst_units = std::max(b.worst_units, u);
        b.worst_ulps = std::max(b.worst_ulps, l);
        if (!last_point || last_point->position != e.position) {
          last_point = &points[e.position];
          last_point->position = e.position;
        }
        PositionPoint& pt = *last_point;
        pt.worst_units = std::max(pt.worst_units, u);
        pt.worst_ulps = std::max(pt.worst_ulps, l);
        const double pl = std::fabs(v - e.value) / pair_ulp;
        pt.worst_pair_ulps = std::max(pt.worst_pair_ulps, std::isnan(pl) ? HUGE_VAL : pl);
        out.worst_units = std::max(out.worst_units, u);
        out.worst_ulps = std::max(out.worst_ulps, l);
        out.sum_units += u;
        ++out.units_elements;
      }
    });
    // Everything else: pass-through channels must be bit-identical to the
    // input; padding (and the other parts of a fused qkv row) must keep what
    // the output held before the call (in place the input's canaries, out of
    // place the call's poison). Rotated elements of tokens outside a sample
    // are the only ones not judged.
    for (std::int64_t tok = 0; tok < c.tokens; ++tok)
      for (int head = 0; head < g.heads[w]; ++head) {
        const std::int64_t o = g.offset(w, tok, head, 0);
        // One compare of the head's pass-through channels; element by
        // element only to name those that differ.
        const std::size_t from = static_cast<std::size_t>(o + g.rotary_dim) * g.esize;
        if (std::memcmp(got + from, in.bytes[w].data() + from,
                        static_cast<std::size_t>(g.head_dim - g.rotary_dim) * g.esize) == 0)
          continue;
        for (int ch = g.rotary_dim; ch < g.head_dim; ++ch)
          if (std::memcmp(got + (o + ch) * g.esize, in.bytes[w].data() + (o + ch) * g.esize, g.esize) != 0)
            note({names[w], tok, head, ch, c.position(tok),
                  load_as_double(got, o + ch, c.dtype), load_as_double(in.bytes[w].data(), o + ch, c.dtype), 0.0,
                  "pass-through channel modified", "", stored_bits(got, static_cast<std::size_t>(o + ch), c.dtype),
                  stored_bits(in.bytes[w].data(), static_cast<std::size_t>(o + ch), c.dtype), static_cast<int>(g.esize),
                  static_cast<int>(g.esize)});
      }
    const unsigned char* before = run.initial.bytes[w].data();
    // The first write outside the view is named (core/cases/views.h).
    if (const std::int64_t off = first_write_outside_view(g, w, got, before); off >= 0)
      note({names[w], -1, -1, -1, 0, load_as_double(got, off, c.dtype), load_as_double(before, off, c.dtype), 0.0,
            outside_view_message(w, off), "", stored_bits(got, static_cast<std::size_t>(off), c.dtype),
            stored_bits(before, static_cast<std::size_t>(off), c.dtype), static_cast<int>(g.esize),
            static_cast<int>(g.esize)});
  }
  out.tokens = c.tokens;
  out.judged_tokens = static_cast<std::int64_t>(ref.tokens.size());
  for (const auto& [pos, pt] : points) out.points.push_back(pt);
  if (out.violations > 0) {
    out.outcome = Outcome::kFail;
    out.message = std::to_string(out.violations) + " element(s) wrong; first: " + out.first->format();
  }
  return out;
}

}  // namespace ropecheck
