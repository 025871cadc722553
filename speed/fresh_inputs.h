// The inputs of a bench row's calls, fresh for every call: each call's q and
// k are the previous call's with new values at 1 to kMaxChanged places drawn
// at random among the rotated elements of the tokens the judge checks
// (judged_tokens, core/judge/reference_result.h), so no call's inputs equal
// an earlier call's. A kernel that returns a result kept from an earlier
// call without reading every input (kept by the buffers' address, by a hash
// of a sample of them, or from its first call) returns it here, and it is
// wrong exactly where the judge looks; the buffers also move between calls
// (an isolated worker alternates two regions, core/isolation/isolation.h).
// A few changes rather than all-new values: all-new values would only make
// such a cache miss, and the kernel that keeps one would pass unseen.
// Values are activations' (normal, 2^-3 to 4 in magnitude, 8 significant
// bits: exact in fp32, fp16 and bf16), never the subnormals and edge values
// of the gate's inputs (core/cases/buffers.h): subnormal operands slow some
// arithmetic by orders of magnitude, and no production activation is one.
#ifndef ROPECHECK_SPEED_FRESH_INPUTS_H_
#define ROPECHECK_SPEED_FRESH_INPUTS_H_

#include <cstdint>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/rng.h"

namespace ropecheck::speed {

inline constexpr int kMaxChanged = 8;

class FreshInputs {
 public:
  // The first call's inputs, every element drawn from `seed`.
  FreshInputs(const Case& c, std::uint64_t seed);
  // The next call's: the current ones changed at 1..kMaxChanged places.
  const QkBuffers& next();
  const QkBuffers& current() const { return in_; }

 private:
  double value();

  Case c_;
  Geometry g_;
  Rng rng_;
  std::vector<std::int64_t> judged_;
  QkBuffers in_;
};

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_FRESH_INPUTS_H_
