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

class SuiteBuilder {
 public:
  explicit SuiteBuilder(std::uint64_t salt) : salt_(salt) {}

  // A 1D case: one position per token.
  GoldenCase& add(std::string name, std::string comment, const ref::FreqSpec& f, ref::HeadShape shape,
                  ropecheck_layout_t layout, ropecheck_dtype_t dtype, std::vector<std::int64_t> positions,
                  int q_heads = 2, int kv_heads = 1) {
    GoldenCase g;
    g.id = static_cast<int>(cases_.size()) + 1;
    g.name = std::move(name);
    g.comment = std::move(comment);
    g.c.index = g.id;
    g.c.freq = f;
    g.c.shape = shape;
    g.c.layout = layout;
    g.c.dtype = dtype;
    g.c.tokens = static_cast<std::int64_t>(positions.size());
    g.c.positions = std::move(positions);
    g.c.q_heads = q_heads;
    g.c.kv_heads = kv_heads;
    g.c.in_place = true;
    g.c.data_seed = Rng::mix(salt_ * 0x100000001b3ull + static_cast<std::uint64_t>(g.id));
    ref::validate(g.c.freq, g.c.shape);
    cases_.push_back(std::move(g));
    return cases_.back();
  }

  // A multi-axis case: rows[a][t] is token t's position on axis a (every
  // row as long as the first), stored token-major as Case holds them.
  GoldenCase& add_axes(std::string name, std::string comment, const ref::FreqSpec& f, ref::HeadShape shape,
                       ropecheck_layout_t layout, ropecheck_dtype_t dtype, const ref::AxisSpec& axes,
                       const std::vector<std::vector<std::int64_t>>& rows, int q_heads, int kv_heads) {
    if (rows.size() != static_cast<std::size_t>(axes.num_axes))
      throw std::logic_error(name + ": " + std::to_string(rows.size()) + " position rows for " + axes.describe());
    std::vector<std::int64_t> token_major;
    for (std::size_t t = 0; t < rows.at(0).size(); ++t)
      for (const auto& row : rows) token_major.push_back(row.at(t));
    GoldenCase& g = add(std::move(name), std::move(comment), f, shape, layout, dtype, std::move(token_major),
                        q_heads, kv_heads);
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
