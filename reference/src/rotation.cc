#include "ropecheck/reference/rotation.h"

#include <utility>

namespace ropecheck::ref {

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
      for (int i = 0; i < pairs; ++i) {
        int a, b;
        pair_channels(layout, d, i, &a, &b);
        const R c = m * t.cos[i];
        const R s = inverse ? R(-(m * t.sin[i])) : R(m * t.sin[i]);
        out[a] = in[a] * c - in[b] * s;
        out[b] = in[a] * s + in[b] * c;
      }
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

template class ReferenceRope<Real>;
template class ReferenceRope<RealHigh>;
template class ReferenceRope<RealAlt>;
template Frequencies<Real> compute_frequencies<Real>(const FreqSpec&, int);
template Frequencies<RealHigh> compute_frequencies<RealHigh>(const FreqSpec&, int);
template Frequencies<RealAlt> compute_frequencies<RealAlt>(const FreqSpec&, int);

}  // namespace ropecheck::ref
