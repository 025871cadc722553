#include "core/buffers.h"

#include <cstring>
#include <random>

#include "core/rng.h"
#include "ropecheck/dtype.h"

namespace ropecheck {

Geometry geometry(const Case& c) {
  Geometry g;
  g.head_dim = c.shape.head_dim;
  g.rotary_dim = c.shape.rotary_dim;
  g.tokens = c.tokens;
  g.esize = dtype_size(c.dtype);
  g.heads = {c.q_heads, c.kv_heads};
  for (int w = 0; w < 2; ++w) {
    g.head_stride[w] = c.shape.head_dim + c.head_pad;
    g.token_stride[w] = g.heads[w] * g.head_stride[w] + c.token_pad;
    g.elements[w] = c.tokens * g.token_stride[w];
  }
  return g;
}

void fill_canary(unsigned char* p, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) p[i] = canary_byte(i);
}

void fill_poison(unsigned char* p, std::size_t bytes, ropecheck_dtype_t t) {
  static thread_local Rng rng((static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}());
  const std::size_t es = dtype_size(t);
  const DtypeFormat f = dtype_format(t);
  const int mantissa = f.precision - 1;  // stored significand bits
  const int width = static_cast<int>(es * 8);
  for (std::size_t i = 0; i + es <= bytes; i += es) {
    const std::uint64_t r = rng.bits();
    std::uint64_t payload = r & ((std::uint64_t{1} << mantissa) - 1);
    if (payload == 0) payload = 1;  // a NaN, not an infinity
    const std::uint64_t exponent = ((std::uint64_t{1} << (width - 1 - mantissa)) - 1) << mantissa;
    const std::uint64_t sign = (r >> 63) << (width - 1);
    const std::uint64_t v = sign | exponent | payload;
    std::memcpy(p + i, &v, es);  // little-endian: the low bytes
  }
  for (std::size_t i = bytes - bytes % es; i < bytes; ++i) p[i] = static_cast<unsigned char>(rng.bits());
}

void store_value(unsigned char* base, std::int64_t i, ropecheck_dtype_t t, double v) {
  switch (t) {
    case ROPECHECK_DTYPE_F16: {
      const std::uint16_t b = f32_to_f16(static_cast<float>(v));
      std::memcpy(base + 2 * i, &b, 2);
      break;
    }
    case ROPECHECK_DTYPE_BF16: {
      const std::uint16_t b = f32_to_bf16(static_cast<float>(v));
      std::memcpy(base + 2 * i, &b, 2);
      break;
    }
    case ROPECHECK_DTYPE_F64:
      std::memcpy(base + 8 * i, &v, 8);
      break;
    default: {
      const float f = static_cast<float>(v);
      std::memcpy(base + 4 * i, &f, 4);
      break;
    }
  }
}

QkBuffers make_inputs(const Case& c) {
  const Geometry g = geometry(c);
  QkBuffers in;
  Rng rng(c.data_seed);
  for (int w = 0; w < 2; ++w) {
    auto& buf = in.bytes[w];
    buf.resize(static_cast<std::size_t>(g.elements[w]) * g.esize);
    fill_canary(buf.data(), buf.size());
    for (std::int64_t tok = 0; tok < c.tokens; ++tok)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j)
          store_value(buf.data(), g.offset(w, tok, h, j), c.dtype, draw_input(rng, c.dtype));
  }
  return in;
}

}  // namespace ropecheck
