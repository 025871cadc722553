// The rotation itself in high precision: angles p*w_i exact for any int64
// position, cos/sin cached per position, and three independent code paths
// (per-pair loop, the vector rotate_half / rotate_every_two form, and the
// complex multiply) that must agree to the last bits of the working
// precision.
#ifndef ROPECHECK_REFERENCE_ROTATION_H_
#define ROPECHECK_REFERENCE_ROTATION_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ropecheck/kernel_abi.h"
#include "ropecheck/layout.h"
#include "ropecheck/reference/freq_spec.h"
#include "ropecheck/reference/frequencies.h"
#include "ropecheck/reference/real.h"

namespace ropecheck::ref {

enum class Path {
  kPairLoop,    // x' = x cos - y sin, y' = x sin + y cos per pair
  kVectorForm,  // x * cos_full + rotate_half(x) * sin_full (HF), or rotate_every_two
  kComplex,     // (x + jy) e^{ja} with Gauss's three-multiplication product
};

template <class R>
class ReferenceRope {
 public:
  struct Trig {
    std::vector<R> cos, sin;  // of p * w_i, without the attention factor
  };

  // Validates (throws ConfigError) and computes the frequencies once.
  ReferenceRope(const FreqSpec& spec, HeadShape shape);

  const FreqSpec& spec() const { return spec_; }
  HeadShape shape() const { return shape_; }
  const Frequencies<R>& freqs() const { return freqs_; }
  R angle(std::int64_t position, int pair) const { return R(position) * freqs_.inv_freq[pair]; }

  // cos/sin of every pair at a position; computed once per position.
  const Trig& trig(std::int64_t position);

  // Rotates one head: x and out hold head_dim values (may alias).
  void rotate(const R* x, R* out, std::int64_t position, ropecheck_layout_t layout,
              ropecheck_direction_t direction, Path path = Path::kPairLoop);

 private:
  FreqSpec spec_;
  HeadShape shape_;
  Frequencies<R> freqs_;
  std::unordered_map<std::int64_t, Trig> trig_cache_;
};

extern template class ReferenceRope<Real>;
extern template class ReferenceRope<RealHigh>;
extern template class ReferenceRope<RealAlt>;

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_ROTATION_H_
