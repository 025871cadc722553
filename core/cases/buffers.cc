// SPDX-License-Identifier: MIT
// A case's storage: each element's place in q and k, the input bits, and the strides a kernel is called with.
#include "core/cases/buffers.h"

#include <algorithm>
#include <cstring>

#include "core/cases/rng.h"
#include "ropecheck/dtype.h"

namespace ropecheck {

int first_differing_channel(const unsigned char* a, const unsigned char* b, int head_dim, std::size_t esize) {
  if (std::memcmp(a, b, static_cast<std::size_t>(head_dim) * esize) == 0) return -1;
  for (int j = 0; j < head_dim; ++j)
    if (std::memcmp(a + static_cast<std::size_t>(j) * esize, b + static_cast<std::size_t>(j) * esize, esize) != 0)
      return j;
  return -1;
}

Geometry geometry(const Case& c) {
  Geometry g;
  g.head_dim = c.shape.head_dim;
  g.rotary_dim = c.shape.rotary_dim;
  g.tokens = c.tokens;
  g.seq_len = c.batch_seq_len() > 0 ? c.batch_seq_len() : std::max<std::int64_t>(c.tokens, 1);
  g.esize = dtype_size(c.dtype);
  g.heads = {c.q_heads, c.kv_heads};
  const std::int64_t d = c.shape.head_dim, s = g.seq_len, seqs = c.sequences();
  const std::int64_t seq_pad = c.batch_seq_len() > 0 ? c.seq_pad : 0;  // one sequence: nothing between
  for (int w = 0; w < 2; ++w) {
    const std::int64_t h = g.heads[w];
    std::int64_t &hs = g.head_stride[w], &ts = g.token_stride[w], &ss = g.seq_stride[w];
    switch (c.memory) {
      case MemoryLayout::kHeadMajor:  // [batch, heads, seq, dim]
        ts = d + c.head_pad;
        hs = s * ts + c.token_pad;
        ss = h * hs + seq_pad;
        break;
      case MemoryLayout::kFusedQkv:  // rows of q_heads + 2 kv_heads heads
        hs = d;
        ts = (c.q_heads + 2 * std::int64_t{c.kv_heads}) * d + c.token_pad;
        ss = s * ts + seq_pad;
        g.base[w] = w == 0 ? 0 : c.q_heads * d;
        break;
      case MemoryLayout::kSplitStrides:  // k's strides differ from q's
        hs = d + c.head_pad + (w == 1 ? 1 + c.token_pad % 3 : 0);
        ts = h * hs + c.token_pad + (w == 1 ? 3 : 0);
        ss = s * ts + seq_pad;
        break;
      case MemoryLayout::kTokenMajor:
        hs = d + c.head_pad;
        ts = h * hs + c.token_pad;
        ss = s * ts + seq_pad;
        break;
    }
    // Every buffer holds whole sequences (a fused row's v part included).
    g.elements[w] = seqs * ss;
  }
  return g;
}

std::optional<CallStrides> call_strides(const Case& c, const Geometry& g, bool granted) {
  CallStrides s;
  s.token_stride = g.token_stride;
  s.head_stride = g.head_stride;
  if (c.batch_seq_len() == 0) return s;
  if (granted) {
    s.seq_len = c.batch_seq_len();
    s.seq_stride = g.seq_stride;
    return s;
  }
  if (g.seq_len == 1) {  // one token per sequence: the sequence stride is a token stride
    s.token_stride = g.seq_stride;
    return s;
  }
  for (int w = 0; w < 2; ++w)
    if (g.seq_stride[w] != g.seq_len * g.token_stride[w]) return std::nullopt;
  return s;
}

void fill_canary(unsigned char* p, std::size_t bytes) {
  // Eight bytes at a time (the pattern's period, 2, divides 8): a byte loop
  // over every input buffer was 2% of a gate run.
  static constexpr unsigned char kEight[8] = {0xa5, 0x7f, 0xa5, 0x7f, 0xa5, 0x7f, 0xa5, 0x7f};
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) std::memcpy(p + i, kEight, 8);
  for (; i < bytes; ++i) p[i] = canary_byte(i);
}

namespace {

// Unseeded, a thread starts from a fixed state: nothing drawn here depends
// on the machine's entropy (seed_poison restarts it per call).
Rng& poison_rng() {
  static thread_local Rng rng(0x706f69736f6eull);  // "poison"
  return rng;
}

}  // namespace

void seed_poison(std::uint64_t key) { poison_rng() = Rng(key); }

const char* poison_kind_name(PoisonKind k) {
  switch (k) {
    case PoisonKind::kNan: return "NaN";
    case PoisonKind::kFinite: return "finite garbage";
    case PoisonKind::kInput: return "a copy of the input";
    case PoisonKind::kZero: return "zeros";
  }
  return "?";
}

PoisonKind draw_poison_kind(const PoisonKind* other_than) {
  for (;;) {
    const auto k = static_cast<PoisonKind>(poison_rng().bits() % kPoisonKinds);
    if (!other_than || k != *other_than) return k;
  }
}

void fill_poison(unsigned char* p, std::size_t bytes, ropecheck_dtype_t t, PoisonKind kind, const unsigned char* input) {
  Rng& rng = poison_rng();
  if (kind == PoisonKind::kInput && input) {
    std::memcpy(p, input, bytes);
    return;
  }
  if (kind == PoisonKind::kZero) {
    std::memset(p, 0, bytes);
    return;
  }
  const std::size_t es = dtype_size(t);
  const DtypeFormat f = dtype_format(t);
  const int mantissa = f.precision - 1;  // stored significand bits
  const int width = static_cast<int>(es * 8);
  const int exponent_bits = width - 1 - mantissa;
  const std::uint64_t bias = (std::uint64_t{1} << (exponent_bits - 1)) - 1;
  const std::uint64_t payload_mask = (std::uint64_t{1} << mantissa) - 1;
  const std::uint64_t nan_exponent = ((std::uint64_t{1} << exponent_bits) - 1) << mantissa;
  // One element from `width` random bits: the payload from the low
  // `mantissa`, the finite exponent's pick from the 5 above them, the sign
  // from the top one (mantissa + 5 < width - 1 in every dtype of two bytes
  // or more). A 64-bit draw serves 8 / es elements: one draw per element
  // was most of this function, which poisons every output of every call.
  auto element = [&](std::uint64_t r) {
    std::uint64_t payload = r & payload_mask;
    std::uint64_t exponent;
    if (kind == PoisonKind::kFinite) {
      exponent = (bias - 8 + ((r >> mantissa) & 31) % 17) << mantissa;  // 2^-8 .. 2^8: normal in every dtype
    } else {
      if (payload == 0) payload = 1;  // a NaN, not an infinity
      exponent = nan_exponent;
    }
    const std::uint64_t sign = ((r >> (width - 1)) & 1) << (width - 1);
    return sign | exponent | payload;
  };
  // The first 64 KiB of whole elements are drawn, the rest repeats them:
  // still fresh per call and unpredictable, and drawing every element of
  // every output was 3.5% of a quick gate.
  constexpr std::size_t kDrawn = std::size_t{64} << 10;  // a multiple of every element size
  const std::size_t whole = bytes - bytes % es;
  const std::size_t drawn = std::min(whole, kDrawn);
  std::size_t i = 0;
  if (es >= 2) {
    const std::size_t per = 8 / es;
    const std::uint64_t chunk_mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    for (; i + 8 <= drawn; i += 8) {
      std::uint64_t r = rng.next(), out = 0;
      for (std::size_t j = 0; j < per; ++j, r = width == 64 ? 0 : r >> width)
        out |= element(r & chunk_mask) << (static_cast<unsigned>(j) * static_cast<unsigned>(width));
      std::memcpy(p + i, &out, 8);  // little-endian: element j in bytes j es ..
    }
  }
  for (; i + es <= drawn; i += es) {
    const std::uint64_t v = element(rng.next());
    std::memcpy(p + i, &v, es);  // little-endian: the low bytes
  }
  for (; i < whole; i += std::min(drawn, whole - i)) std::memcpy(p + i, p, std::min(drawn, whole - i));
  for (; i < bytes; ++i) p[i] = static_cast<unsigned char>(rng.bits());
}

void fill_random_bytes(unsigned char* p, std::size_t bytes) {
  Rng& rng = poison_rng();
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t r = rng.bits();
    std::memcpy(p + i, &r, std::min<std::size_t>(8, bytes - i));
  }
}

std::uint64_t draw_below(std::uint64_t n) { return poison_rng().below(n); }

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
