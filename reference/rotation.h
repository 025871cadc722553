// SPDX-License-Identifier: MIT
// The rotation itself in high precision: angles p*w_i exact for any int64
// position, cos/sin cached per position, and three independent code paths
// (per-pair loop, the vector rotate_half / rotate_every_two form, and the
// complex multiply) that must agree to the last bits of the working
// precision.
#ifndef ROPECHECK_REFERENCE_ROTATION_H_
#define ROPECHECK_REFERENCE_ROTATION_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ropecheck/kernel_abi.h"
#include "ropecheck/layout.h"
#include "reference/freq_spec.h"
#include "reference/frequencies.h"
#include "reference/real.h"

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

  // Multi-axis RoPE: consecutive sections of pairs rotate with the position
  // of their own axis, frequencies indexed globally. M-RoPE (Qwen2-VL):
  // sections = mrope_section (t, h, w); axial 2D vision RoPE: two equal
  // sections (row, column). section_pairs must sum to rotary_dim/2 and match
  // axis_positions in length (ConfigError otherwise).
  void rotate_sections(const R* x, R* out, const std::vector<std::int64_t>& axis_positions,
                       const std::vector<int>& section_pairs, ropecheck_layout_t layout,
                       ropecheck_direction_t direction);

  // One pair with a position and frequency of its own (multi-axis RoPE,
  // reference/axis_spec.h): channels a and b of x rotate by
  // position * w_index of this rope's frequencies and scale by m; only
  // out[a] and out[b] are written (x and out may alias).
  void rotate_one_pair(const R* x, R* out, int a, int b, std::int64_t position, int index,
                       ropecheck_direction_t direction);

 private:
  FreqSpec spec_;
  HeadShape shape_;
  Frequencies<R> freqs_;
  std::unordered_map<std::int64_t, Trig> trig_cache_;
};

// RoFormer section 3.4.3: the long-term decay bound of relative distance r,
// (1 / (d/2)) sum_{j=1}^{d/2} |S_j(r)|, S_j(r) = sum_{k<j} e^{i r w_k}, for
// r = 0 .. max_r in steps of `step`, from this reference's frequencies.
template <class R>
std::vector<double> decay_curve(const Frequencies<R>& f, std::int64_t max_r, std::int64_t step);

extern template class ReferenceRope<Real>;
extern template class ReferenceRope<RealHigh>;
extern template class ReferenceRope<RealAlt>;

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_ROTATION_H_
