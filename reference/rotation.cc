// SPDX-License-Identifier: MIT
// The rotation in high precision: exact angles for any int64 position, cos/sin per position.
#include "reference/rotation.h"

#include <utility>

#include "ropecheck/numbers.h"

namespace ropecheck::ref {
namespace {

// Pair i of `in` rotated by the angle whose cos/sin `t` holds, scaled by m:
// x' = x c - y s, y' = x s + y c (s negated for the inverse direction).
template <class R, class Trig>
void rotate_pair(const std::vector<R>& in, R* out, ropecheck_layout_t layout, int d, int i, const Trig& t,
                 const R& m, bool inverse) {
  int a, b;
  pair_channels(layout, d, i, &a, &b);
  const R c = m * t.cos[i];
  const R s = inverse ? R(-(m * t.sin[i])) : R(m * t.sin[i]);
  out[a] = in[a] * c - in[b] * s;
  out[b] = in[a] * s + in[b] * c;
}

}  // namespace

template <class R>
ReferenceRope<R>::ReferenceRope(const FreqSpec& spec, HeadShape shape)
    : spec_(spec), shape_(shape) {
  validate(spec_, shape_);
  freqs_ = compute_frequencies<R>(spec_, shape_.rotary_dim);
}

template <class R>
const typename ReferenceRope<R>::Trig& ReferenceRope<R>::trig(std::int64_t position) {
  auto it = trig_cache_.find(position);
  if (it != trig_cache_.end()) return it->second;
  const int pairs = shape_.rotary_dim / 2;
  Trig t;
  t.cos.resize(pairs);
  t.sin.resize(pairs);
  for (int i = 0; i < pairs; ++i) {
    const R a = angle(position, i);
    t.cos[i] = cos(a);
    t.sin[i] = sin(a);
  }
  return trig_cache_.emplace(position, std::move(t)).first->second;
}

template <class R>
void ReferenceRope<R>::rotate(const R* x, R* out, std::int64_t position, ropecheck_layout_t layout,
                              ropecheck_direction_t direction, Path path) {
  const int d = shape_.rotary_dim;
  const int pairs = d / 2;
  const Trig& t = trig(position);
  const R& m = freqs_.attention_factor;
  const bool inverse = direction == ROPECHECK_DIRECTION_INVERSE;
  std::vector<R> in(x, x + shape_.head_dim);  // out may alias x

  switch (path) {
    case Path::kPairLoop:
      for (int i = 0; i < pairs; ++i) rotate_pair(in, out, layout, d, i, t, m, inverse);
      break;
    case Path::kVectorForm: {
      // Full-length cos/sin and the rotated copy, as the tensor code writes it.
      std::vector<R> cos_full(d), sin_full(d), rot(d);
      for (int j = 0; j < d; ++j) {
        const int i = layout == ROPECHECK_LAYOUT_INTERLEAVED ? j / 2 : j % pairs;
        cos_full[j] = t.cos[i];
        sin_full[j] = inverse ? R(-t.sin[i]) : t.sin[i];
        if (layout == ROPECHECK_LAYOUT_INTERLEAVED)
          rot[j] = (j % 2 == 0) ? R(-in[j + 1]) : in[j - 1];  // rotate_every_two
        else
          rot[j] = (j < pairs) ? R(-in[j + pairs]) : in[j - pairs];  // rotate_half
      }
      for (int j = 0; j < d; ++j) out[j] = (in[j] * cos_full[j] + rot[j] * sin_full[j]) * m;
      break;
    }
    case Path::kComplex:
      for (int i = 0; i < pairs; ++i) {
        int a, b;
        pair_channels(layout, d, i, &a, &b);
        const R& re = in[a];
        const R& im = in[b];
        const R& c = t.cos[i];
        const R s = inverse ? R(-t.sin[i]) : t.sin[i];
        const R k1 = c * (re + im);
        const R k2 = re * (s - c);
        const R k3 = im * (c + s);
        out[a] = m * (k1 - k3);
        out[b] = m * (k1 + k2);
      }
      break;
  }
  for (int j = d; j < shape_.head_dim; ++j) out[j] = in[j];
}

template <class R>
void ReferenceRope<R>::rotate_sections(const R* x, R* out, const std::vector<std::int64_t>& axis_positions,
                                       const std::vector<int>& section_pairs, ropecheck_layout_t layout,
                                       ropecheck_direction_t direction) {
  const int d = shape_.rotary_dim;
  if (axis_positions.size() != section_pairs.size())
    throw ConfigError("axis_positions", "must have one position per section (" +
                                            std::to_string(section_pairs.size()) + ")");
  int total = 0;
  for (int n : section_pairs) {
    if (n < 0) throw ConfigError("sections", "sizes must be >= 0");
    total += n;
  }
  if (total != d / 2)
    throw ConfigError("sections", "must sum to rotary_dim/2 = " + std::to_string(d / 2) + " (got " +
                                      std::to_string(total) + ")");
  const R& m = freqs_.attention_factor;
  const bool inverse = direction == ROPECHECK_DIRECTION_INVERSE;
  std::vector<R> in(x, x + shape_.head_dim);
  int i = 0;
  for (std::size_t k = 0; k < section_pairs.size(); ++k) {
    const Trig& t = trig(axis_positions[k]);
    for (int n = 0; n < section_pairs[k]; ++n, ++i) rotate_pair(in, out, layout, d, i, t, m, inverse);
  }
  for (int j = d; j < shape_.head_dim; ++j) out[j] = in[j];
}

template <class R>
void ReferenceRope<R>::rotate_one_pair(const R* x, R* out, int a, int b, std::int64_t position, int index,
                                       ropecheck_direction_t direction) {
  const Trig& t = trig(position);
  const R& m = freqs_.attention_factor;
  const R c = m * t.cos[index];
  const R s = direction == ROPECHECK_DIRECTION_INVERSE ? R(-(m * t.sin[index])) : R(m * t.sin[index]);
  const R xa = x[a], xb = x[b];
  out[a] = xa * c - xb * s;
  out[b] = xa * s + xb * c;
}

template <class R>
std::vector<double> decay_curve(const Frequencies<R>& f, std::int64_t max_r, std::int64_t step) {
  // Doubles suffice for a curve meant for plotting and trend checks; the
  // frequencies come from the reference, rounded once.
  std::vector<double> w;
  for (const R& v : f.inv_freq) w.push_back(v.template convert_to<double>());
  const std::size_t half = w.size();
  std::vector<double> out;
  for (std::int64_t r = 0; r <= max_r; r += step) {
    std::complex<double> s = 0;
    double acc = 0;
    for (std::size_t j = 0; j < half; ++j) {
      const double a = std::fmod(static_cast<double>(r) * w[j], kTwoPi);
      s += std::complex<double>(std::cos(a), std::sin(a));
      acc += std::abs(s);
    }
    out.push_back(acc / static_cast<double>(half));
  }
  return out;
}

template std::vector<double> decay_curve<Real>(const Frequencies<Real>&, std::int64_t, std::int64_t);

template class ReferenceRope<Real>;
template class ReferenceRope<RealHigh>;
template class ReferenceRope<RealAlt>;
template Frequencies<Real> compute_frequencies<Real>(const FreqSpec&, int);
template Frequencies<RealHigh> compute_frequencies<RealHigh>(const FreqSpec&, int);
template Frequencies<RealAlt> compute_frequencies<RealAlt>(const FreqSpec&, int);

}  // namespace ropecheck::ref
