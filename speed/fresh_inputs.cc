// SPDX-License-Identifier: MIT
// The inputs of a bench row's calls, fresh for every call: the definitions of speed/fresh_inputs.h.
#include "speed/fresh_inputs.h"

#include <cmath>

#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::speed {

FreshInputs::FreshInputs(const Case& c, std::uint64_t seed) : c_(c), g_(geometry(c)), rng_(seed, 0x62656e6368u) {
  for (int w = 0; w < 2; ++w) {
    auto& buf = in_.bytes[static_cast<std::size_t>(w)];
    buf.resize(static_cast<std::size_t>(g_.elements[w]) * g_.esize);
    fill_canary(buf.data(), buf.size());
    draw(w, false);
  }
}

const char* FreshInputs::description() {
  return "every element of q and k drawn anew for each call, each differing from the previous call's";
}

double FreshInputs::value(std::uint64_t r) {
  // (1 + m/128) 2^e, m < 128, e in [-3, 1], either sign: exact in every
  // storage dtype. 12 bits of r: 7 for m, 4 for e (mod 5), 1 for the sign.
  const double v = std::ldexp(1.0 + static_cast<double>(r & 127) / 128.0, static_cast<int>((r >> 7) & 15) % 5 - 3);
  return (r >> 11) & 1 ? -v : v;
}

void FreshInputs::draw(int w, bool differ) {
  unsigned char* buf = in_.bytes[static_cast<std::size_t>(w)].data();
  std::uint64_t bits = 0;
  int left = 0;
  for (std::int64_t t = 0; t < c_.tokens; ++t)
    for (int h = 0; h < g_.heads[w]; ++h)
      for (int j = 0; j < g_.head_dim; ++j) {
        if (left == 0) bits = rng_.bits(), left = 5;  // 12 bits a value, five from each 64-bit draw
        double v = value(bits);
        bits >>= 12;
        --left;
        const std::int64_t at = g_.offset(w, t, h, j);
        // Never the value it held: its negation differs (v is never 0).
        if (differ && exactly_equal(v, load_as_double(buf, static_cast<std::size_t>(at), c_.dtype))) v = -v;
        store_value(buf, at, c_.dtype, v);
      }
}

const QkBuffers& FreshInputs::next() {
  for (int w = 0; w < (c_.kv_heads > 0 ? 2 : 1); ++w) draw(w, true);
  return in_;
}

}  // namespace ropecheck::speed
