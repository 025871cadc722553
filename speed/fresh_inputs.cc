#include "speed/fresh_inputs.h"

#include <cmath>

#include "core/judge/reference_result.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::speed {

FreshInputs::FreshInputs(const Case& c, std::uint64_t seed)
    : c_(c), g_(geometry(c)), rng_(seed, 0x62656e6368u), judged_(judged_tokens(c)) {
  for (int w = 0; w < 2; ++w) {
    auto& buf = in_.bytes[static_cast<std::size_t>(w)];
    buf.resize(static_cast<std::size_t>(g_.elements[w]) * g_.esize);
    fill_canary(buf.data(), buf.size());
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g_.heads[w]; ++h)
        for (int j = 0; j < g_.head_dim; ++j) store_value(buf.data(), g_.offset(w, t, h, j), c.dtype, value());
  }
}

double FreshInputs::value() {
  // (1 + m/128) 2^e, m < 128, e in [-3, 1], either sign: exact in every
  // storage dtype.
  const double v = std::ldexp(1.0 + static_cast<double>(rng_.below(128)) / 128.0, static_cast<int>(rng_.range(-3, 1)));
  return rng_.chance(0.5) ? -v : v;
}

const QkBuffers& FreshInputs::next() {
  const int changes = static_cast<int>(rng_.range(1, kMaxChanged));
  const int tensors = c_.kv_heads > 0 ? 2 : 1;
  for (int i = 0; i < changes; ++i) {
    const int w = static_cast<int>(rng_.below(static_cast<std::uint64_t>(tensors)));
    const std::int64_t t = judged_[rng_.below(judged_.size())];
    const int h = static_cast<int>(rng_.below(static_cast<std::uint64_t>(g_.heads[w])));
    const int j = static_cast<int>(rng_.below(static_cast<std::uint64_t>(g_.rotary_dim)));
    unsigned char* buf = in_.bytes[static_cast<std::size_t>(w)].data();
    const std::int64_t at = g_.offset(w, t, h, j);
    const double old = load_as_double(buf, static_cast<std::size_t>(at), c_.dtype);
    double v = value();
    while (exactly_equal(v, old)) v = value();
    store_value(buf, at, c_.dtype, v);
  }
  return in_;
}

}  // namespace ropecheck::speed
