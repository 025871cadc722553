// SPDX-License-Identifier: MIT
// The inputs of a bench row's calls, fresh for every call: every element of
// each call's q and k is drawn anew, and differs from the previous call's
// element there (issue #49: when each call changed a few elements, a kernel
// that compared its inputs with the previous call's and recomputed only the
// tokens that changed was timed 28-47x faster than the arithmetic it does).
// A kernel that keeps anything of an earlier call (by the buffers' address,
// by a hash of its inputs, a token's last rotation) finds nothing to reuse
// and does all the work, or returns a result computed for other inputs and
// is judged wrong (every timed call is judged, speed/bench_run.h); the
// buffers also move between calls (an isolated worker alternates two
// regions, core/isolation/isolation.h). Values are activations' (normal,
// 2^-3 to 4 in magnitude, 8 significant bits: exact in fp32, fp16 and
// bf16), never the subnormals and edge values of the gate's inputs
// (core/cases/buffers.h): subnormal operands slow some arithmetic by orders
// of magnitude, and no production activation is one.
#ifndef ROPECHECK_SPEED_FRESH_INPUTS_H_
#define ROPECHECK_SPEED_FRESH_INPUTS_H_

#include <cstdint>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/rng.h"

namespace ropecheck::speed {

class FreshInputs {
 public:
  // The first call's inputs, every element drawn from `seed`.
  FreshInputs(const Case& c, std::uint64_t seed);
  // The next call's: every element drawn anew, none equal to the current one.
  const QkBuffers& next();
  // How the inputs vary from call to call, for the report.
  static const char* description();
  const QkBuffers& current() const { return in_; }

 private:
  double value(std::uint64_t r);
  // Every element of tensor w drawn (different from what it holds when `differ`).
  void draw(int w, bool differ);

  Case c_;
  Geometry g_;
  Rng rng_;
  QkBuffers in_;
};

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_FRESH_INPUTS_H_
