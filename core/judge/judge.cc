// SPDX-License-Identifier: MIT
// The judge: a kernel's run against the exact result, element by element, within the budgets of its policy.
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
#include "reference/power_of_two_division.h"
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

namespace {

constexpr const char* kTensorNames[2] = {"q", "k"};

// One run being judged: what every element's verdict reads, the tensor
// being walked (q, then k) and the outcome the verdicts add up to.
struct Judging {
  const Case& c;
  const QkBuffers& in;
  const KernelRun& run;
  const ErrorModel& model;
  // The case's budget table; null only at the verdict-only depth, where a
  // pair's budgets are worked out when an element of it needs them.
  const BudgetTable* budgets;
  const JudgeDepth depth;
  const Geometry g;
  const double domain;  // model.overflow_free_limit(): per element, the same for all
  CaseOutcome out{};
  std::map<std::int64_t, PositionPoint> points{};
  // Elements come in walk order: the pairs of a token (one position in 1D)
  // one after the other, so the point of the last position is usually the
  // next one's too.
  PositionPoint* last_point = nullptr;
  int w = 0;  // the tensor walked
  const unsigned char* got = nullptr;
  const std::vector<double>* budget_of = nullptr;
  const std::vector<std::uint8_t>* dominant_of = nullptr;
  // Without a table: the budgets of the pair last worked out, and its place.
  ErrorModel::PairBudgets pair_budgets{};
  std::size_t budgets_pair = SIZE_MAX;

  void note(Violation v) {
    ++out.violations;
    if (!out.first) out.first = std::move(v);
  }
  void walk(int tensor) {
    w = tensor;
    got = run.out.bytes[static_cast<std::size_t>(w)].data();
    budgets_pair = SIZE_MAX;
    if (!budgets) return;
    budget_of = &budgets->budget[static_cast<std::size_t>(w)];
    dominant_of = &budgets->dominant[static_cast<std::size_t>(w)];
  }
  // The budget of one side of the pair at `pair_at` in walk order: the
  // table's, or without one the pair's, worked out as budget_table does
  // (ErrorModel::pair_budgets with the pair's angle part: bit for bit the
  // table's value).
  double budget(const ReferenceResult::PairElements& pe, std::size_t pair_at, int side) {
    if (budget_of) return (*budget_of)[2 * pair_at + static_cast<std::size_t>(side)];
    if (budgets_pair != pair_at) {
      pair_budgets = model.pair_budgets(pe.terms);
      budgets_pair = pair_at;
    }
    return pair_budgets.terms[static_cast<std::size_t>(side)].total();
  }
};

// The policy a kernel declares, or its run, leaves nothing to judge: the
// outcome that says why.
std::optional<CaseOutcome> not_judged(const ropecheck_impl_t& impl, const KernelRun& run) {
  CaseOutcome out;
  if (std::string bad = ErrorModel::check_policy(policy_of(impl)); !bad.empty()) {
    out.outcome = Outcome::kFail;
    out.message = "declared policy rejected: " + bad;
    return out;
  }
  if (run.ok()) return std::nullopt;
  // A case the kernel declined (ABI 1.7's MAY_DECLINE) is a skip.
  std::string declined = declined_by_kernel(impl, run);
  out.outcome = declined.empty() ? Outcome::kFail : Outcome::kSkipped;
  out.message = declined.empty() ? run.failure() : std::move(declined);
  return out;
}

// A non-finite input makes the exact result non-finite; its class is the
// reference's whenever the signs of cos and sin are certain.
void judge_non_finite(Judging& s, const ReferenceResult::PairElements& pe, int side, double v) {
  const ElementTerms& e = pe.terms[side];
  const auto at = static_cast<std::size_t>(pe.offset[side]);
  const double te = s.model.trig_error(e);
  const bool certain = std::fabs(e.cos_a) > te && std::fabs(e.sin_a) > te;
  const bool same_class =
      std::isnan(v) ? std::isnan(e.value) : (std::isinf(e.value) && std::signbit(v) == std::signbit(e.value));
  if (std::isfinite(v) || (certain && !same_class))
    s.note({kTensorNames[s.w], pe.token, pe.head, pe.channel[side], e.position, v, e.value, 0.0,
            std::isfinite(v) ? "finite output from a non-finite input"
                             : "non-finite input propagated unlike the reference",
            "", stored_bits(s.got, at, s.c.dtype), 0, static_cast<int>(s.g.esize), 0});
}

// What the statistics take of one judged element: the kernel's value, its
// |err| / budget, the pair's magnitude m r and the budget's dominant term.
struct ElementJudged {
  double v = 0, units = 0, pair_norm = 0;
  int term = 0;
};

// Adds an element's error to the statistics: |err| / budget, in ulps of the
// storage dtype at the element and at the pair's magnitude (infinite for a
// NaN), per budget term, per position bin, per position, overall. Out of
// line and out of libFuzzer's coverage (fuzz/coverage_ignorelist.txt), as
// judged_value: it runs for every element judged, and its compares (the
// dtype's, an ulp's binade, the position's bin, the last point) told the
// fuzzer nothing the case generator's own edges do not, at a traced
// compare each (bench/RESULTS.md, issue 53).
[[gnu::noinline]] void add_to_statistics(Judging& s, const ReferenceResult::PairElements& pe, int side,
                                         const ElementJudged& j) {
  const ElementTerms& e = pe.terms[side];
  const double rounded = pe.rounded[side];
  const double ulps = (std::isinf(j.v) && exactly_equal(j.v, rounded))
                          ? 0.0
                          : ref::divide_by_power_of_two(std::fabs(j.v - rounded), ref::ulp_of(rounded, s.c.dtype));
  const double pair_ulps =
      ref::divide_by_power_of_two(std::fabs(j.v - e.value), ref::ulp_of(j.pair_norm, s.c.dtype));
  const double u = std::isnan(j.units) ? HUGE_VAL : j.units, l = std::isnan(ulps) ? HUGE_VAL : ulps;
  const int term = j.term;
  BinStats& b = s.out.bins[position_bin(e.position)];
  ++b.elements;
  ++s.out.elements_by_term[term];
  s.out.worst_by_term[term] = std::max(s.out.worst_by_term[term], u);
  b.worst_units = std::max(b.worst_units, u);
  b.worst_ulps = std::max(b.worst_ulps, l);
  if (!s.last_point || s.last_point->position != e.position) {
    s.last_point = &s.points[e.position];
    s.last_point->position = e.position;
  }
  PositionPoint& pt = *s.last_point;
  pt.worst_units = std::max(pt.worst_units, u);
  pt.worst_ulps = std::max(pt.worst_ulps, l);
  pt.worst_pair_ulps = std::max(pt.worst_pair_ulps, std::isnan(pair_ulps) ? HUGE_VAL : pair_ulps);
  s.out.worst_units = std::max(s.out.worst_units, u);
  s.out.worst_ulps = std::max(s.out.worst_ulps, l);
  s.out.sum_units += u;
  ++s.out.units_elements;
}

// The kernel's value of element `at` of the tensor walked, as a double (a
// switch on the dtype and the narrow formats' decoding: out of line and
// out of libFuzzer's coverage, as add_to_statistics).
[[gnu::noinline]] double judged_value(const Judging& s, std::size_t at) { return load_as_double(s.got, at, s.c.dtype); }

// One rotated element of the tensor walked, the pair's `pair_at`-th in walk
// order, against its budget; pair_norm: the pair's magnitude m r.
void judge_rotated(Judging& s, const ReferenceResult::PairElements& pe, int side, std::size_t pair_at,
                   double pair_norm) {
  const ElementTerms& e = pe.terms[side];
  const auto at = static_cast<std::size_t>(pe.offset[side]);
  const ropecheck_dtype_t dt = s.c.dtype;
  const double v = judged_value(s, at);
  if (!std::isfinite(e.x) || !std::isfinite(e.y)) return judge_non_finite(s, pe, side, v);
  if (std::fmax(std::fabs(e.x), std::fabs(e.y)) > s.domain) {
    ++s.out.outside_domain;
    return;
  }
  const double err = std::fabs(v - e.value);
  // Verdict only: an error within the least budget any element of this
  // magnitude gets passes without its budget (ErrorModel::budget_floor <=
  // budget, so err / budget <= 1 as below); a NaN or infinite v never is.
  if (s.depth == JudgeDepth::kVerdict && err <= s.model.budget_floor(std::fabs(e.value))) return;
  const double budget = s.budget(pe, pair_at, side);
  double units = err / budget;
  // Rounding to the storage dtype may overflow: an infinity is what a
  // correct kernel stores when the budget interval around the exact value
  // reaches the overflow threshold on that infinity's side (at a long
  // context an fp32-product kernel's budget covers the whole circle, so
  // either side can be reached; found by differential_fuzzer).
  if (std::isinf(v) &&
      (v > 0 ? e.value + budget >= overflow_threshold(dt) : e.value - budget <= -overflow_threshold(dt)))
    units = 0;
  // Also catches NaN. The budget's breakdown is written for the first
  // violation alone: formatting it for every element of a wrong
  // output cost more than judging them.
  if (!(units <= 1.0))
    s.note(s.out.first ? Violation{}
                       : Violation{kTensorNames[s.w], pe.token, pe.head, pe.channel[side], e.position, v, e.value,
                                   budget, "outside budget", s.model.explain(e), stored_bits(s.got, at, dt), 0,
                                   static_cast<int>(s.g.esize), 0});
  if (s.depth == JudgeDepth::kVerdict) return;
  const std::size_t index = 2 * pair_at + static_cast<std::size_t>(side);
  add_to_statistics(s, pe, side, {.v = v, .units = units, .pair_norm = pair_norm, .term = (*s.dominant_of)[index]});
}

// Everything else of the tensor walked: pass-through channels must be
// bit-identical to the input; padding (and the other parts of a fused qkv
// row) must keep what the output held before the call (in place the input's
// canaries, out of place the call's poison). Rotated elements of tokens
// outside a sample are the only ones not judged.
void judge_unrotated(Judging& s) {
  const Geometry& g = s.g;
  const int w = s.w;
  const ropecheck_dtype_t dt = s.c.dtype;
  const unsigned char* input = s.in.bytes[static_cast<std::size_t>(w)].data();
  for (std::int64_t tok = 0; tok < s.c.tokens; ++tok)
    for (int head = 0; head < g.heads[w]; ++head) {
      const std::int64_t o = g.offset(w, tok, head, 0);
      // One compare of the head's pass-through channels; element by
      // element only to name those that differ.
      const std::size_t from = static_cast<std::size_t>(o + g.rotary_dim) * g.esize;
      if (std::memcmp(s.got + from, input + from, static_cast<std::size_t>(g.head_dim - g.rotary_dim) * g.esize) == 0)
        continue;
      for (int ch = g.rotary_dim; ch < g.head_dim; ++ch)
        if (std::memcmp(s.got + (o + ch) * g.esize, input + (o + ch) * g.esize, g.esize) != 0)
          s.note({kTensorNames[w], tok, head, ch, s.c.position(tok), load_as_double(s.got, o + ch, dt),
                  load_as_double(input, o + ch, dt), 0.0, "pass-through channel modified", "",
                  stored_bits(s.got, static_cast<std::size_t>(o + ch), dt),
                  stored_bits(input, static_cast<std::size_t>(o + ch), dt), static_cast<int>(g.esize),
                  static_cast<int>(g.esize)});
    }
  const unsigned char* before = s.run.initial.bytes[static_cast<std::size_t>(w)].data();
  // The first write outside the view is named (core/cases/views.h).
  if (const std::int64_t off = first_write_outside_view(g, w, s.got, before); off >= 0)
    s.note({kTensorNames[w], -1, -1, -1, 0, load_as_double(s.got, off, dt), load_as_double(before, off, dt), 0.0,
            outside_view_message(w, off), "", stored_bits(s.got, static_cast<std::size_t>(off), dt),
            stored_bits(before, static_cast<std::size_t>(off), dt), static_cast<int>(g.esize),
            static_cast<int>(g.esize)});
}

}  // namespace

CaseOutcome judge(const ropecheck_impl_t& impl, const JudgedCase& j, const KernelRun& run, const BudgetTable* budgets,
                  JudgeDepth depth) {
  if (std::optional<CaseOutcome> out = not_judged(impl, run)) return std::move(*out);
  const Case& c = j.c;
  const ReferenceResult& ref = j.ref;
  const ErrorModel model = case_error_model(impl, c, ref.attention_factor);
  std::optional<BudgetTable> own;
  if (budgets == nullptr && depth == JudgeDepth::kFull) budgets = &own.emplace(budget_table(model, ref));
  if (budgets) check_budget_table(*budgets, ref);
  Judging s{.c = c,
            .in = j.in,
            .run = run,
            .model = model,
            .budgets = budgets,
            .depth = depth,
            .g = geometry(c),
            .domain = model.overflow_free_limit()};
  for (int w = 0; w < 2; ++w) {
    s.walk(w);
    const std::vector<double>* norm_of = budgets ? &budgets->norm[static_cast<std::size_t>(w)] : nullptr;
    std::size_t k = 0;  // the pair's place in walk order
    ref.for_each_pair(w, [&](const ReferenceResult::PairElements& pe) {
      const std::size_t pair_at = k++;
      // The pair's magnitude m r, for the statistics alone.
      const double pair_norm = norm_of ? ref.attention_factor * (*norm_of)[pair_at] : 0.0;
      for (int side = 0; side < 2; ++side) judge_rotated(s, pe, side, pair_at, pair_norm);
    });
    judge_unrotated(s);
  }
  CaseOutcome& out = s.out;
  out.tokens = c.tokens;
  out.judged_tokens = static_cast<std::int64_t>(ref.tokens.size());
  for (const auto& [pos, pt] : s.points) out.points.push_back(pt);
  if (out.violations > 0) {
    out.outcome = Outcome::kFail;
    out.message = std::to_string(out.violations) + " element(s) wrong; first: " + out.first->format();
  }
  return std::move(out);
}

}  // namespace ropecheck
