// SPDX-License-Identifier: MIT
// The exact result of a case on given inputs, element by element, with
// everything the error model needs to budget each element (ElementTerms).
// compute_reference evaluates it with the fast exact reference
// (reference/fast_rotation.h), compute_reference_mpfr with the MPFR path;
// the two agree bit for bit (fast_reference_test). The golden verifier
// rebuilds the same structure from an export's files; all go through
// assemble_reference or the same compact layout, so the per-element layout
// exists once.
#ifndef ROPECHECK_CORE_JUDGE_REFERENCE_RESULT_H_
#define ROPECHECK_CORE_JUDGE_REFERENCE_RESULT_H_

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/error_model/error_model.h"
#include "reference/fast_rotation.h"
#include "ropecheck/layout.h"

namespace ropecheck {

// One rotated element; the two elements of a pair are adjacent (first, second).
struct ReferenceElement {
  ElementTerms terms;
  double rounded = 0;  // exact value correctly rounded to the storage dtype
  std::int64_t offset = 0;
  std::int64_t token = 0;
  int head = 0, channel = 0;
};

// The exact values of one pair: outputs (to double and to the dtype).
struct ExactPair {
  double value[2] = {0, 0};
  double rounded[2] = {0, 0};
};

// One rotated pair as stored: its inputs (channels a and b as pair_channels
// names them) and exact outputs. 48 bytes for two elements; the
// ReferenceElement of each is derived on demand.
struct ReferencePair {
  double x = 0, y = 0;
  ExactPair exact;
};

// A case with more rotated elements than kSampleAbove is judged on a seeded
// sample of its tokens (judged_tokens): the kernel still rotates every
// token, pass-through channels and padding are still checked everywhere,
// and the report says how many tokens were judged.
inline constexpr std::int64_t kSampleAbove = std::int64_t{1} << 20;
inline constexpr std::int64_t kSampledTokens = 256;
// Every token of a case, or for a large one: the first and last token of
// each sequence (where partitions and tails end) and seeded random tokens,
// kSampledTokens in all, ascending.
std::vector<std::int64_t> judged_tokens(const Case& c);

struct ReferenceResult {
  double attention_factor = 1;
  // The tokens the result covers (judged_tokens), ascending: the walk goes
  // over these; per-token tables are indexed by the token's place here.
  std::vector<std::int64_t> tokens;
  std::vector<double> inv_freq;  // exact w_i rounded to double, rotary_dim/2 (each pair's own, multi-axis)
  // Per judged token and pair (token-major): exact p w_i, cos(p w_i), sin(p w_i)
  // rounded to double, without the attention factor.
  std::vector<double> angle, cos, sin;
  // Per tensor (q, k), every rotated pair in walk order: judged token, head, pair.
  std::array<std::vector<ReferencePair>, 2> pairs;
  // Where each pair's elements live (the case's geometry, layout, positions).
  Geometry geo;
  ropecheck_layout_t layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  std::vector<std::int64_t> positions;  // the case's, token-major (axis_count per token)
  int axis_count = 1;
  // Per pair: its axis, frequency group and index in that group's
  // frequencies (reference/axis_spec.h; 1D: axis 0, group 0, the pair).
  ref::PairAxes pair_axes;

  // The position pair `pair` of token `token` rotates with.
  std::int64_t pair_position(std::int64_t token, int pair) const {
    return positions[static_cast<std::size_t>(token * axis_count + pair_axes.axis[static_cast<std::size_t>(pair)])];
  }

  // Element `index` of tensor w in walk order (two per pair: first, second).
  ReferenceElement element(int w, std::size_t index) const;
  // The same, with the pair's place in `tokens`, head and pair index known.
  ReferenceElement element_at(int w, std::size_t index, std::int64_t token_place, int head, int pair) const;

  // Every rotated element of tensor w, in walk order, built on the fly:
  // for (const ReferenceElement& e : r.elements(w)) ...
  class ElementRange {
   public:
    class Iterator {
     public:
      Iterator(const ReferenceResult* r, int w, std::size_t i) : r_(r), w_(w), i_(i) {}
      ReferenceElement operator*() const { return r_->element_at(w_, i_, token_, head_, pair_); }
      // Walk order without divisions: pair, then head, then token.
      Iterator& operator++() {
        if (++i_ % 2 == 0 && ++pair_ == r_->geo.rotary_dim / 2) {
          pair_ = 0;
          if (++head_ == r_->geo.heads[static_cast<std::size_t>(w_)]) {
            head_ = 0;
            ++token_;
          }
        }
        return *this;
      }
      bool operator!=(const Iterator& o) const { return i_ != o.i_; }

     private:
      const ReferenceResult* r_;
      int w_;
      std::size_t i_;
      std::int64_t token_ = 0;
      int head_ = 0, pair_ = 0;
    };
    ElementRange(const ReferenceResult* r, int w) : r_(r), w_(w) {}
    Iterator begin() const { return {r_, w_, 0}; }
    Iterator end() const { return {r_, w_, size()}; }
    std::size_t size() const { return 2 * r_->pairs[static_cast<std::size_t>(w_)].size(); }

   private:
    const ReferenceResult* r_;
    int w_;
  };
  ElementRange elements(int w) const { return {this, w}; }

  // Both elements of one rotated pair (first, second), as elements() gives
  // them one after the other.
  struct PairElements {
    std::int64_t token = 0;
    int head = 0, pair = 0;
    std::array<ElementTerms, 2> terms;
    std::array<int, 2> channel{};
    std::array<std::int64_t, 2> offset{};
    std::array<double, 2> rounded{};
  };
  // Calls fn(const PairElements&) for every rotated pair of tensor w in
  // walk order: what elements() walks, a pair at a time, the head's offset
  // and the pair's channels worked out once (the judge and the properties'
  // budgets go over every element of every case).
  template <class Fn>
  void for_each_pair(int w, Fn&& fn) const {
    const int np = geo.rotary_dim / 2;
    std::vector<std::array<int, 2>> channels(static_cast<std::size_t>(np));
    for (int i = 0; i < np; ++i) pair_channels(layout, geo.rotary_dim, i, &channels[i][0], &channels[i][1]);
    const std::vector<ReferencePair>& all = pairs[static_cast<std::size_t>(w)];
    std::size_t k = 0;
    PairElements v;
    for (std::size_t place = 0; place < tokens.size(); ++place) {
      v.token = tokens[place];
      for (v.head = 0; v.head < geo.heads[static_cast<std::size_t>(w)]; ++v.head) {
        const std::int64_t base = geo.offset(w, v.token, v.head, 0);
        for (v.pair = 0; v.pair < np; ++v.pair, ++k) {
          const ReferencePair& p = all[k];
          const auto i = static_cast<std::size_t>(v.pair);
          const std::size_t t = place * static_cast<std::size_t>(np) + i;
          set_pair_terms(v.terms, {.x = p.x,
                                   .y = p.y,
                                   .value = {p.exact.value[0], p.exact.value[1]},
                                   .cos_a = cos[t],
                                   .sin_a = sin[t],
                                   .abs_angle = std::fabs(angle[t]),
                                   .position = pair_position(v.token, v.pair),
                                   .pair = pair_axes.index[i],
                                   .freq_group = pair_axes.group[i]});
          v.channel = channels[i];
          v.offset = {base + channels[i][0], base + channels[i][1]};
          v.rounded = {p.exact.rounded[0], p.exact.rounded[1]};
          fn(static_cast<const PairElements&>(v));
        }
      }
    }
  }
};

// Fills result.pairs for every rotated pair of the case from `pair_values`
// (tensor, token, head, pair, channel of first, channel of second) -> its
// exact outputs; inputs come from `in`, cos/sin and angles from the
// result's per-token tables, which the caller has filled.
void assemble_reference(
    const Case& c, const QkBuffers& in,
    const std::function<ExactPair(int w, std::int64_t token, int head, int pair, int a, int b)>& pair_values,
    ReferenceResult* result);

// The exact result of a case's inputs: the fast exact reference, the MPFR
// path deciding what its bounds leave open. `stats`, when given, receives
// its counters (elements, fallbacks). ROPECHECK_REFERENCE=mpfr in the
// environment forces the MPFR path; =both runs both and aborts, naming the
// case and element, on any difference.
ReferenceResult compute_reference(const Case& c, const QkBuffers& in, ref::FastStats* stats = nullptr);

// The MPFR path alone (reference/rotation.h, 134-bit MPFR): the second
// opinion the fast path is checked against.
ReferenceResult compute_reference_mpfr(const Case& c, const QkBuffers& in);

// The error model of a case for a kernel declaring `policy`: the case's
// frequency groups (per-axis frequencies have one per axis) each budgeted
// over their own rotary dim; with `caller_cache`, for a kernel reading the
// cos/sin cache the caller passes in (ABI 1.6) in that dtype.
ErrorModel case_error_model(const Policy& policy, const Case& c, double attention_factor,
                            std::optional<ropecheck_dtype_t> caller_cache = std::nullopt);

// First difference between two results, bit for bit (the sign of zero
// included), as "what at where"; empty when identical.
std::string first_difference(const ReferenceResult& a, const ReferenceResult& b);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_REFERENCE_RESULT_H_
