// SPDX-License-Identifier: MIT
// The fast exact reference's w_i and m (FastReference's first step), and a
// per-thread cache of them keyed by everything they depend on: the fields
// of the frequency spec its scheme reads, bit for bit, and the rotary dim.
// They do not depend on positions or inputs, and callers (compute_reference, once per
// case: the gate, the differential fuzzer once per execution) build a
// FastReference for every case, often with a spec seen just before.
#ifndef ROPECHECK_REFERENCE_FAST_FREQUENCIES_H_
#define ROPECHECK_REFERENCE_FAST_FREQUENCIES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "reference/fast_rotation.h"
#include "reference/freq_spec.h"

namespace ropecheck::ref {

// w_i and m on BoundedReal (bounded_real.h), each with RN to double.
// ok false: the bounds left a branch of the formulas or a rounding to
// double open; the caller takes the MPFR path's frequencies instead.
struct FastFrequencies {
  bool ok = false;
  FastValue m;
  double m_d = 1;
  std::vector<FastValue> w;
  std::vector<double> w_d;
};

// Computes them, as ReferenceRope<Real> would, on BoundedReal. The spec
// must be valid (validate()).
FastFrequencies compute_fast_frequencies(const FreqSpec& spec, int rotary_dim);

// The same, from this thread's cache (computed on a miss). The value is
// shared and never changes.
std::shared_ptr<const FastFrequencies> cached_fast_frequencies(const FreqSpec& spec, int rotary_dim);

// The MPFR path's frequencies (compute_frequencies<Real>), for the elements
// the fast path leaves undecided, from a cache of the same kind.
std::shared_ptr<const ExactFrequencies> cached_exact_frequencies(const FreqSpec& spec, int rotary_dim);

// The caches' key: the rotary dim, the scheme, and every field the scheme's
// formulas read (compute_frequencies) as its bits (-0.0 and 0.0 differ; a
// NaN equals its own bits), each array with its length; LongRoPE's seq_len
// as which factors it picks. Two specs with the same key give the same
// frequencies. A hit does not validate: the caller's spec must be valid
// (FastReference validates it first), as one differing only in a field its
// scheme ignores shares a valid one's entry.
std::vector<std::uint64_t> freq_key(const FreqSpec& spec, int rotary_dim);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_FAST_FREQUENCIES_H_
