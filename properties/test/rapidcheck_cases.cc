// SPDX-License-Identifier: MIT
// Cases for the RapidCheck property tests, drawn by the one case generator.
#include "properties/test/rapidcheck_cases.h"

#include <cstdint>

#include "core/cases/axis_cases.h"
#include "core/cases/rng.h"

namespace ropecheck {
namespace {

// Every decision of the generator is one RapidCheck draw, shrinking to 0.
// Drawn at RapidCheck's nominal size: inRange scales its range with the
// size, and at the small sizes of the first tests every decision would be
// its first option (the generator's suite distribution is what we want).
std::uint64_t draw_below(std::uint64_t n) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::uint64_t>(0, n));
}

class RapidCheckChoices : public Choices {
 public:
  std::uint64_t below(std::uint64_t n) override { return draw_below(n); }
  double uniform() override { return static_cast<double>(draw_below(std::uint64_t{1} << 53)) * 0x1p-53; }
  std::uint64_t bits() override { return draw_below(std::uint64_t{1} << 30); }
};

}  // namespace

rc::Gen<Case> gen_case(bool multi_axis) {
  return rc::gen::exec([multi_axis] {
    RapidCheckChoices choices;
    Case c = draw_case(choices, suite_limits(Suite::kStandard));
    if (multi_axis) make_multi_axis(choices, static_cast<int>(choices.below(kAxisFamilyCount)), &c);
    return c;
  });
}

void showValue(const Case& c, std::ostream& os) { os << c.describe() << " data_seed=" << c.data_seed; }

}  // namespace ropecheck
