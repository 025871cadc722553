// SPDX-License-Identifier: MIT
// Accuracy against context length, per implementation and storage dtype,
// by the measures that tell kernels apart: the error in ulps against the
// correctly rounded exact result, the error beyond the final rounding to
// the storage dtype, and the position up to which a kernel stays within N
// ulps. Error / budget does not: the last rounding to bf16 reaches its own
// budget term at every context length for every kernel. Everything here is
// read from ImplReport::ulps_by_position; the markdown summary, the HTML
// report and `check --within` all take it from these functions.
#ifndef ROPECHECK_GATE_ACCURACY_H_
#define ROPECHECK_GATE_ACCURACY_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gate/gate.h"

namespace ropecheck {

// The ulps the report's reach columns use when the user names none: 1 (a
// kernel that stays correctly rounded or one rounding off) and 4.
inline constexpr std::array<double, 2> kReachUlps = {1, 4};

// The error beyond the final rounding, from the error against the exact
// result in ulps at the pair's magnitude m r (PositionPoint::worst_pair_ulps):
// max(0, pair ulps - 1/2). The last store to the storage dtype moves an
// element by at most half an ulp of the element, and |exact| <= m r (a
// computed value crossing a power of two above m r aside), so a kernel
// whose only error is that store shows 0 here; what remains is a
// lower bound on the error of its arithmetic before that rounding
// (|computed - exact| >= |stored - exact| - |stored - computed|).
double beyond_final_rounding(double pair_ulps);

// One position range (core/judge's bins) of one dtype.
struct RangeAccuracy {
  std::int64_t positions = 0;      // distinct |position| judged in the range
  double worst_rounded_ulps = 0;   // vs the correctly rounded exact result (element ulps)
  double worst_beyond = 0;         // beyond_final_rounding of the worst pair ulps
  int case_index = -1;             // where that worst pair error was seen
};

// A point of a plot: the worst of the positions in one 1/8 octave.
struct AccuracyPoint {
  double log2_position = 0;  // log2(|position| + 1) of the bucket's first position
  double worst_rounded_ulps = 0, worst_beyond = 0;
};

// How far a kernel stays within `ulps` (pair ulps against the exact result):
// the largest |position| up to which every judged position does (-1: none),
// and the first judged position beyond it, with its error and case (-1: none).
struct Reach {
  double ulps = 0;
  std::int64_t holds = -1;
  std::int64_t beyond = -1;
  double beyond_ulps = 0;
  int beyond_case = -1;
};

struct DtypeAccuracy {
  int dtype = 0;
  std::array<RangeAccuracy, kPositionBins> ranges{};
  std::vector<AccuracyPoint> curve;
};

// Per storage dtype (in the ABI's order) the kernel was judged in.
std::vector<DtypeAccuracy> accuracy_by_dtype(const ImplReport& i);
Reach reach_within(const std::map<std::int64_t, UlpsAt>& by_position, double ulps);
// "4095 (2^12.0)", "none".
std::string reach_text(const Reach& r);

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_ACCURACY_H_
