// SPDX-License-Identifier: MIT
// The arithmetic of a bench report and of `bench compare`, on series built
// by hand: the quartiles (Hyndman and Fan's definition 7: numpy.percentile's
// documented results), the roofline flag, compare's verdicts (the same
// kernel, one slowed, one failing or missing in B, rows matched by shape
// when each report holds one kernel), and the JSON round trip with its
// checksum. Linked into core_test (speed/CMakeLists.txt): no binary of its
// own. The command's own verdicts are speed/test/bench_test.sh.
#include <gtest/gtest.h>

#include <string>

#include "reference/freq_spec.h"
#include "speed/bench_compare.h"
#include "speed/bench_json.h"
#include "speed/bench_report.h"
#include "speed/timing_stats.h"

namespace ropecheck::speed {
namespace {

SeriesStats series(std::vector<double> seconds, double bytes) {
  SeriesStats s;
  s.seconds = std::move(seconds);
  s.bytes = bytes;
  s.summarize();
  return s;
}

// One timed row: the kernel's calls take `kernel` seconds around a 10%
// spread, the in-place pass's 1 ms, both moving 1 MB.
BenchRow row(const std::string& impl, double kernel) {
  BenchRow r;
  r.impl = impl;
  r.model = "m";
  r.tokens = 16;
  r.q_heads = 4;
  r.kv_heads = 2;
  r.head_dim = r.rotary_dim = 64;
  r.scheme = "default(base=10000)";
  r.kernel = series({kernel * 0.95, kernel, kernel * 1.05, kernel * 0.97, kernel * 1.03}, 1e6);
  r.copy = series({0.0019, 0.002, 0.0021, 0.002, 0.002}, 1e6);
  r.rmw = series({0.00095, 0.001, 0.00105, 0.001, 0.001}, 1e6);
  return r;
}

BenchReport report(std::vector<BenchRow> rows) {
  BenchReport r;
  r.machine = "test";
  r.date = "2026-11-26T00:00:00Z";
  r.caches = "warm";
  r.repetitions = 5;
  r.judged_per_row = 3;
  r.rows = std::move(rows);
  return r;
}

TEST(BenchStats, QuartilesAreDefinitionSeven) {
  // numpy.percentile([1, 2, 3, 4], [25, 50, 75]) is [1.75, 2.5, 3.25].
  const SeriesStats s = series({4, 1, 3, 2}, 8);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.gbps(), 8 / 2.5 / 1e9);
  EXPECT_DOUBLE_EQ(s.rel_iqr(), 1.5 / 2.5);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.25), 7);
}

TEST(BenchStats, ARateAboveTheInPlacePassIsFlagged) {
  const BenchRow ok = row("k", 0.002);  // half the pass's rate
  EXPECT_FALSE(roofline_exceeded(ok.kernel, ok.rmw));
  const BenchRow fast = row("k", 0.0005);  // twice the pass's rate, spreads of 10%
  EXPECT_TRUE(roofline_exceeded(fast.kernel, fast.rmw));
  // Within both spreads of the pass's fastest call: not flagged.
  const BenchRow close = row("k", 0.00093);
  EXPECT_FALSE(roofline_exceeded(close.kernel, close.rmw));
}

TEST(BenchCompare, TheSameKernelIsWithinTheNoiseAndASlowedOneRegresses) {
  const BenchReport a = report({row("k", 0.002)});
  const Comparison same = compare_bench(a, report({row("k", 0.0021)}));
  ASSERT_EQ(same.rows.size(), 1u);
  EXPECT_EQ(same.rows[0].change, Change::kWithinNoise);
  EXPECT_FALSE(same.regressed());
  const Comparison slow = compare_bench(a, report({row("k", 0.008)}));
  EXPECT_EQ(slow.rows[0].change, Change::kSlower);
  EXPECT_NEAR(slow.rows[0].slowdown, 4, 1e-9);
  EXPECT_GT(slow.rows[0].noise, 0);
  EXPECT_TRUE(slow.regressed());
  EXPECT_EQ(compare_bench(a, report({row("k", 0.0005)})).rows[0].change, Change::kFaster);
}

TEST(BenchCompare, ASlowerBaselineKeepsTheRatio) {
  // B's machine is twice as slow for the kernel and the pass alike.
  BenchRow b = row("k", 0.004);
  b.rmw = series({0.0019, 0.002, 0.0021, 0.002, 0.002}, 1e6);
  EXPECT_EQ(compare_bench(report({row("k", 0.002)}), report({b})).rows[0].change, Change::kWithinNoise);
}

TEST(BenchCompare, AFailureOrAMissingRowInBIsARegression) {
  BenchRow failed = row("k", 0.002);
  failed.status = RowStatus::kFailed;
  failed.reason = "call 2's output is wrong";
  const Comparison c = compare_bench(report({row("k", 0.002)}), report({failed}));
  EXPECT_EQ(c.rows[0].change, Change::kFailedInB);
  EXPECT_TRUE(c.regressed());
  BenchRow other = row("k", 0.002);
  other.choice.dtype = ROPECHECK_DTYPE_BF16;
  const Comparison m = compare_bench(report({row("k", 0.002)}), report({other}));
  EXPECT_EQ(m.rows[0].change, Change::kMissingInB);
  EXPECT_EQ(m.only_in_b.size(), 1u);
}

TEST(BenchCompare, OneKernelEachIsMatchedByShapeElseByName) {
  const Comparison renamed = compare_bench(report({row("k", 0.002)}), report({row("k_v2", 0.008)}));
  EXPECT_TRUE(renamed.by_shape);
  EXPECT_EQ(renamed.rows[0].change, Change::kSlower);
  const Comparison two = compare_bench(report({row("k", 0.002), row("j", 0.002)}),
                                       report({row("k", 0.002), row("j2", 0.002)}));
  EXPECT_FALSE(two.by_shape);
  EXPECT_EQ(two.rows[1].change, Change::kMissingInB);
}

TEST(BenchJson, RoundTripsAndRefusesAnEditedReport) {
  BenchReport r = report({row("k", 0.002)});
  r.impl_failures.emplace_back("j", "no row lies within its declared capabilities");
  r.seed = 18446744073709551615ull;
  const std::string text = bench_to_json(r);
  const BenchReport back = bench_from_json(text);
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_EQ(back.rows[0].key(), r.rows[0].key());
  EXPECT_EQ(back.rows[0].kernel.seconds, r.rows[0].kernel.seconds);
  EXPECT_DOUBLE_EQ(back.rows[0].kernel.median, r.rows[0].kernel.median);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.impl_failures, r.impl_failures);
  std::string edited = text;
  edited.replace(edited.find("\"tokens\": 16"), 12, "\"tokens\": 17");
  EXPECT_THROW(bench_from_json(edited), ref::ConfigError);
  try {
    bench_from_json(edited);
  } catch (const ref::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sha256"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ropecheck::speed
