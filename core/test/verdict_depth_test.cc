// SPDX-License-Identifier: MIT
// The judge's verdict-only depth (core/judge/judge.h, JudgeDepth::kVerdict)
// against its full depth: ErrorModel::budget_floor never exceeds a budget
// the table gives, under every built-in kernel's declared policy; a pair's
// budgets worked out alone are the table's, bit for bit; and the two
// depths reach the same verdict, the same violations and the same first
// one, on correct outputs and on outputs made wrong on purpose.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/case_fit.h"
#include "core/cases/rng.h"
#include "core/judge/budget_table.h"
#include "core/judge/judge.h"
#include "core/judge/reference_result.h"
#include "core/kernel/declared_capabilities.h"
#include "core/kernel/kernel_call.h"
#include "impls/registry.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

// Every built-in kernel (the policy kernels too: each declares a policy of
// its own) on the quick suite's cases of a seed fitted to it, with their
// reference; those of more than 2^15 rotated elements left out (the floor depends
// on the dtypes and the policy, not on the case's size: the long prefills
// took most of a minute and added no dtype or policy).
template <class Visit>
void for_each_fitted_case(std::uint64_t seed, Visit visit) {
  for (const RegisteredImpl& r : registered_impls()) {
    const ropecheck_impl_t& impl = *r.table;
    for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
      const Case c = fit_case(make_case(Suite::kQuick, seed, i), declared_choices(impl));
      if (!outside_capabilities(impl, c).empty()) continue;
      if (c.rotated_elements() > (std::int64_t{1} << 15)) continue;
      const QkBuffers in = make_inputs(c);
      const ReferenceResult ref = compute_reference(c, in);
      visit(impl, c, in, ref);
    }
  }
}

void expect_same_verdict(const CaseOutcome& full, const CaseOutcome& verdict, const std::string& what) {
  EXPECT_EQ(full.outcome, verdict.outcome) << what;
  EXPECT_EQ(full.message, verdict.message) << what;
  EXPECT_EQ(full.violations, verdict.violations) << what;
  EXPECT_EQ(full.outside_domain, verdict.outside_domain) << what;
  EXPECT_EQ(full.tokens, verdict.tokens) << what;
  EXPECT_EQ(full.judged_tokens, verdict.judged_tokens) << what;
  ASSERT_EQ(full.first.has_value(), verdict.first.has_value()) << what;
  if (full.first) {
    EXPECT_EQ(full.first->format(), verdict.first->format()) << what;
  }
}

TEST(VerdictDepth, BudgetFloorIsBelowEveryBudgetAndPairBudgetsAreTheTables) {
  std::int64_t elements = 0, above = 0, differ = 0;
  std::string first_above;
  for (std::uint64_t seed : {1u, 2u, 3u})
    for_each_fitted_case(seed, [&](const ropecheck_impl_t& impl, const Case& c, const QkBuffers&,
                                   const ReferenceResult& ref) {
      const ErrorModel model = case_error_model(impl, c, ref.attention_factor);
      const BudgetTable t = budget_table(model, ref);
      for (int w = 0; w < 2; ++w) {
        std::size_t k = 0;
        ref.for_each_pair(w, [&](const ReferenceResult::PairElements& pe) {
          // What the verdict-only judge works out for a pair past the floor.
          const ErrorModel::PairBudgets alone = model.pair_budgets(pe.terms);
          for (int side = 0; side < 2; ++side) {
            const auto s = static_cast<std::size_t>(side);
            const double budget = t.budget[static_cast<std::size_t>(w)][2 * k + s];
            const double mine = alone.terms[s].total();
            differ += std::memcmp(&mine, &budget, sizeof budget) != 0;
            const double value = pe.terms[s].value;
            if (!std::isfinite(value)) continue;
            const double floor = model.budget_floor(std::fabs(value));
            ++elements;
            if (floor > 0 && floor <= budget) continue;
            if (above++ == 0)
              first_above = std::string(impl.name) + " on " + c.describe() + ": floor " + std::to_string(floor) +
                            " > budget " + std::to_string(budget) + " at |value| " + std::to_string(std::fabs(value));
          }
          ++k;
        });
      }
    });
  EXPECT_GT(elements, 1000000);
  EXPECT_EQ(above, 0) << "of " << elements << " elements; first: " << first_above;
  EXPECT_EQ(differ, 0);
}

// Element i of tensor w moved by `ulps` units in the last place of its
// stored value (the stored bits as an integer, within the dtype's width:
// across binades, away from or towards zero), or set to a NaN (ulps 0).
void corrupt(KernelRun& run, const Case& c, int w, std::size_t i, std::int64_t ulps) {
  unsigned char* base = run.out.bytes[static_cast<std::size_t>(w)].data();
  const std::size_t es = dtype_size(c.dtype);
  if (ulps == 0) {
    store_value(base, static_cast<std::int64_t>(i), c.dtype, std::nan(""));
    return;
  }
  std::uint64_t bits = stored_bits(base, i, c.dtype);
  bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(bits) + ulps);
  if (es < sizeof bits) bits &= (std::uint64_t{1} << (8 * es)) - 1;
  std::memcpy(base + i * es, &bits, es);
}

// The offsets of the rotated elements of q (0) and k (1): those the two
// depths judge differently (the rest are judged alike).
std::array<std::vector<std::int64_t>, 2> rotated_elements(const ReferenceResult& ref) {
  std::array<std::vector<std::int64_t>, 2> at;
  for (int w = 0; w < 2; ++w)
    ref.for_each_pair(w, [&](const ReferenceResult::PairElements& pe) {
      at[static_cast<std::size_t>(w)].push_back(pe.offset[0]);
      at[static_cast<std::size_t>(w)].push_back(pe.offset[1]);
    });
  return at;
}

TEST(VerdictDepth, SameVerdictAsTheFullJudge) {
  int judged = 0, corrupted = 0, failed = 0;
  Rng rng(0x5eed);
  for_each_fitted_case(
      1, [&](const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const ReferenceResult& ref) {
        KernelRun run = call_kernel(impl, c, in);
        const JudgedCase j{.c = c, .in = in, .ref = ref};
        const std::string what = std::string(impl.name) + " on " + c.describe();
        expect_same_verdict(judge(impl, j, run), judge(impl, j, run, nullptr, JudgeDepth::kVerdict), what);
        ++judged;
        if (!run.ok()) return;
        // Wrong on purpose: three rotated elements of q or k moved by 1, 2,
        // 8 or 2^9 ulps (two binades and more in bf16, fp16 and fp32
        // alike), or set to a NaN: some stay within their budgets, most not.
        const std::array<std::vector<std::int64_t>, 2> rotated = rotated_elements(ref);
        for (std::int64_t ulps : {1, -2, 8, 1 << 9, 0}) {
          const int w = static_cast<int>(rng.below(2));
          const std::vector<std::int64_t>& at = rotated[static_cast<std::size_t>(w)];
          if (at.empty()) continue;
          KernelRun wrong = run;
          for (int e = 0; e < 3; ++e) corrupt(wrong, c, w, static_cast<std::size_t>(at[rng.below(at.size())]), ulps);
          const CaseOutcome full = judge(impl, j, wrong);
          ++corrupted;
          failed += full.outcome == Outcome::kFail;
          expect_same_verdict(full, judge(impl, j, wrong, nullptr, JudgeDepth::kVerdict),
                              what + " moved by " + std::to_string(ulps) + " ulps");
        }
      });
  EXPECT_GT(judged, 1000);
  // Most corruptions are caught (by both depths), not all: a 1-ulp move
  // often stays within its budget.
  EXPECT_GT(failed, corrupted / 2);
  EXPECT_LT(failed, corrupted);
}

}  // namespace
}  // namespace ropecheck
