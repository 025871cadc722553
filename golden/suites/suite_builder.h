// SPDX-License-Identifier: MIT
// Builds the case list of one golden suite: ids in order from 1, each
// case's data seed a pure function of (suite salt, id), every config
// validated as it is added. Shared by the suites of suites.cc and the
// multi-axis cases of axis_suites.cc.
#ifndef ROPECHECK_GOLDEN_SUITES_SUITE_BUILDER_H_
#define ROPECHECK_GOLDEN_SUITES_SUITE_BUILDER_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/cases/rng.h"
#include "golden/suites/suites.h"

namespace ropecheck::golden {

// One case as a suite lists it: a row of a suite's table (designated or
// positional initialisers, one per case), or the values of a case a suite
// draws. direction is the one field a case's Case takes beyond these.
struct CaseRow {
  std::string name{}, comment{};
  ref::FreqSpec freq{};
  ref::HeadShape shape{};
  ropecheck_layout_t layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  ropecheck_dtype_t dtype = ROPECHECK_DTYPE_F32;
  std::vector<std::int64_t> positions{};  // one per token (a multi-axis case: add_axes's rows instead)
  int q_heads = 2, kv_heads = 1;
  ropecheck_direction_t direction = ROPECHECK_DIRECTION_FORWARD;
};

class SuiteBuilder {
 public:
  explicit SuiteBuilder(std::uint64_t salt) : salt_(salt) {}

  // A 1D case: one position per token.
  GoldenCase& add(CaseRow row) {
    GoldenCase g;
    g.id = static_cast<int>(cases_.size()) + 1;
    g.name = std::move(row.name);
    g.comment = std::move(row.comment);
    g.c.index = g.id;
    g.c.freq = row.freq;
    g.c.shape = row.shape;
    g.c.layout = row.layout;
    g.c.dtype = row.dtype;
    g.c.direction = row.direction;
    g.c.tokens = static_cast<std::int64_t>(row.positions.size());
    g.c.positions = std::move(row.positions);
    g.c.q_heads = row.q_heads;
    g.c.kv_heads = row.kv_heads;
    g.c.in_place = true;
    g.c.data_seed = Rng::mix(salt_ * 0x100000001b3ull + static_cast<std::uint64_t>(g.id));
    ref::validate(g.c.freq, g.c.shape);
    cases_.push_back(std::move(g));
    return cases_.back();
  }

  // A multi-axis case: rows[a][t] is token t's position on axis a (every
  // row as long as the first), stored token-major as Case holds them
  // (row.positions is not read).
  GoldenCase& add_axes(CaseRow row, const ref::AxisSpec& axes, const std::vector<std::vector<std::int64_t>>& rows) {
    if (rows.size() != static_cast<std::size_t>(axes.num_axes))
      throw std::logic_error(row.name + ": " + std::to_string(rows.size()) + " position rows for " + axes.describe());
    row.positions.clear();
    for (std::size_t t = 0; t < rows.at(0).size(); ++t)
      for (const auto& r : rows) row.positions.push_back(r.at(t));
    GoldenCase& g = add(std::move(row));
    g.c.axes = axes;
    g.c.tokens = static_cast<std::int64_t>(rows.at(0).size());
    ref::validate_axes(g.c.axes, g.c.freq, g.c.shape);
    return g;
  }

  std::vector<GoldenCase> take() { return std::move(cases_); }

 private:
  std::uint64_t salt_;
  std::vector<GoldenCase> cases_;
};

inline ref::FreqSpec default_spec(double base = 10000.0) {
  ref::FreqSpec f;
  f.base = base;
  return f;
}

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_SUITES_SUITE_BUILDER_H_
