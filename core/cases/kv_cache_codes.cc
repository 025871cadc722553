// SPDX-License-Identifier: MIT
// A KV cache's codes as ropecheck draws them: its boundary values and the bytes it arrives holding.
#include "core/cases/kv_cache_codes.h"

#include <cstring>
#include <type_traits>

#include "core/cases/buffers.h"

namespace ropecheck {
namespace {

// Stored significand bits of each rounding cache dtype (f32 is never asked).
int stored_significand_bits(KvDtype d) {
  switch (d) {
    case KvDtype::kF16: return 10;
    case KvDtype::kBF16: return 7;
    case KvDtype::kE4M3FN: return 3;
    case KvDtype::kE5M2: return 2;
    case KvDtype::kF32:
    default: return 23;
  }
}

// A random finite code's bits of d (never a NaN or an infinity).
std::uint32_t finite_code(std::uint64_t r, KvDtype d) {
  switch (d) {
    case KvDtype::kE4M3FN: {
      const auto b = static_cast<std::uint32_t>(r & 0xff);
      return (b & 0x7f) == 0x7f ? b & ~1u : b;  // 0x7f / 0xff are NaN
    }
    case KvDtype::kE5M2: {
      const auto b = static_cast<std::uint32_t>(r & 0xff);
      return (b & 0x7c) == 0x7c ? b & ~0x40u : b;  // exponent all ones: inf or NaN
    }
    case KvDtype::kF16: {
      const auto b = static_cast<std::uint32_t>(r & 0xffff);
      return (b & 0x7c00) == 0x7c00 ? b & ~0x4000u : b;
    }
    case KvDtype::kBF16: {
      const auto b = static_cast<std::uint32_t>(r & 0xffff);
      return (b & 0x7f80) == 0x7f80 ? b & ~0x4000u : b;
    }
    case KvDtype::kF32:
    default: {
      const auto b = static_cast<std::uint32_t>(r);
      return (b & 0x7f800000u) == 0x7f800000u ? b & ~0x40000000u : b;
    }
  }
}

std::uint32_t nan_code(KvDtype d) {
  switch (d) {
    case KvDtype::kE4M3FN: return 0x7f;
    case KvDtype::kE5M2: return 0x7e;
    case KvDtype::kF16: return 0x7e00;
    case KvDtype::kBF16: return 0x7fc0;
    case KvDtype::kF32:
    default: return 0x7fc00000u;
  }
}

// Every whole element of p (the tail under an element left as it is) replaced
// by code(its bits), an element of T at a time: one loop per dtype, the
// dtype's branch out of it (a switch and two byte copies per element were
// most of a KV-cache write's call set-up).
template <class T, class Code>
void each_element(unsigned char* p, std::size_t bytes, Code code) {
  const std::size_t n = bytes / sizeof(T);
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    v = static_cast<T>(code(v));
    std::memcpy(p + i * sizeof(T), &v, sizeof(T));
  }
}

template <class Code>
void each_element(unsigned char* p, std::size_t bytes, KvDtype d, Code code) {
  switch (kv_dtype_size(d)) {
    case 1: return each_element<std::uint8_t>(p, bytes, code);
    case 2: return each_element<std::uint16_t>(p, bytes, code);
    default: return each_element<std::uint32_t>(p, bytes, code);
  }
}

}  // namespace

double kv_cache_edge(Choices& rng, KvDtype d) {
  if (d == KvDtype::kF32) return 0;
  const std::uint32_t max_code = round_to_cache_code(HUGE_VAL, d, true);  // the largest finite value's
  const double top = cache_code_value(max_code, d);
  // Codes are sign-magnitude, magnitudes ordered as their bits: the smallest
  // normal is the first code of exponent field 1.
  const std::uint32_t smallest_normal = 1u << stored_significand_bits(d);
  double e = 0;
  switch (rng.below(8)) {
    case 0: {  // a tie between two adjacent finite codes, the lower one drawn
      const auto lo = static_cast<std::uint32_t>(rng.below(max_code));
      e = (cache_code_value(lo, d) + cache_code_value(lo + 1, d)) / 2;
      break;
    }
    case 1: e = top; break;
    case 2: e = top + (top - cache_code_value(max_code - 1, d)) / 2; break;  // half a step past the top
    case 3: e = 2 * top; break;
    case 4: e = cache_code_value(1, d); break;      // the smallest subnormal
    case 5: e = cache_code_value(1, d) / 2; break;  // the tie between it and zero
    case 6: e = cache_code_value(smallest_normal - 1, d); break;  // the largest subnormal
    default:  // the tie between the largest subnormal and the smallest normal
      e = (cache_code_value(smallest_normal - 1, d) + cache_code_value(smallest_normal, d)) / 2;
      break;
  }
  return rng.chance(0.5) ? -e : e;
}

void fill_cache_initial(unsigned char* p, std::size_t bytes, KvDtype d, CacheInitial kind) {
  switch (kind) {
    case CacheInitial::kRandomBytes: fill_random_bytes(p, bytes); return;
    case CacheInitial::kZeros: std::memset(p, 0, bytes); return;
    case CacheInitial::kNans: {
      const std::uint32_t code = nan_code(d);
      each_element(p, bytes, d, [code](std::uint32_t) { return code; });
      return;
    }
    case CacheInitial::kFiniteCodes: {
      fill_random_bytes(p, bytes);
      // The dtype a constant in each loop.
      const auto fix = [&](auto dtype) {
        each_element(p, bytes, d, [](std::uint32_t r) { return finite_code(r, decltype(dtype)::value); });
      };
      switch (d) {
        case KvDtype::kE4M3FN: return fix(std::integral_constant<KvDtype, KvDtype::kE4M3FN>{});
        case KvDtype::kE5M2: return fix(std::integral_constant<KvDtype, KvDtype::kE5M2>{});
        case KvDtype::kF16: return fix(std::integral_constant<KvDtype, KvDtype::kF16>{});
        case KvDtype::kBF16: return fix(std::integral_constant<KvDtype, KvDtype::kBF16>{});
        case KvDtype::kF32: return fix(std::integral_constant<KvDtype, KvDtype::kF32>{});
      }
      return;
    }
  }
}

CacheInitial draw_cache_initial() { return static_cast<CacheInitial>(draw_below(kCacheInitialKinds)); }

}  // namespace ropecheck
