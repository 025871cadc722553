#include "core/error_model/cache_write_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "reference/rounding.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/kv_write.h"

namespace ropecheck {
namespace {

// The grid of each cache dtype: significand bits with the hidden one, the
// exponent of the smallest normal, and the largest finite magnitude (e4m3fn
// spends its top code on NaN: 448, not the 480 its exponent range allows).
struct Grid {
  int precision;
  int emin;
  double max_finite;
};
Grid grid(CacheDtype d) {
  switch (d) {
    case CacheDtype::kF16: return {11, -14, 65504.0};
    case CacheDtype::kBF16: return {8, -126, max_finite(ROPECHECK_DTYPE_BF16)};
    case CacheDtype::kE4M3FN: return {4, -6, 448.0};
    case CacheDtype::kE5M2: return {3, -14, 57344.0};
    case CacheDtype::kF32:
    default: return {24, -126, max_finite(ROPECHECK_DTYPE_F32)};
  }
}

// |x| rounded to nearest even on the grid with an unbounded exponent above
// (overflow is decided after, as IEEE 754 does: a value rounding to just past
// the largest finite overflows). Exact in double: every grid here has at
// most 24 significand bits.
double round_magnitude(double a, const Grid& g) {
  if (!(a > 0)) return 0;
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  const int q = std::max(e - 1, g.emin) - (g.precision - 1);
  const double scaled = std::ldexp(a, -q);
  double n = std::floor(scaled);
  const double frac = scaled - n;
  if (frac > 0.5 || (exactly_equal(frac, 0.5) && std::fmod(n, 2.0) > 0)) n += 1;
  return std::ldexp(n, q);
}

Fp8Format fp8_of(CacheDtype d) { return d == CacheDtype::kE4M3FN ? Fp8Format::kE4M3FN : Fp8Format::kE5M2; }

// Half an ulp of fp32 (or of a storage dtype) at |x|, at least the smallest
// double: the one-rounding bound of docs/ERROR_MODEL.md.
double half_ulp(double x, ropecheck_dtype_t t) {
  return std::max(0.5 * ref::ulp_of(x, t), std::numeric_limits<double>::denorm_min());
}

}  // namespace

const char* cache_dtype_name(CacheDtype d) {
  switch (d) {
    case CacheDtype::kF32: return "f32";
    case CacheDtype::kF16: return "f16";
    case CacheDtype::kBF16: return "bf16";
    case CacheDtype::kE4M3FN: return "fp8_e4m3fn";
    case CacheDtype::kE5M2: return "fp8_e5m2";
  }
  return "?";
}

std::size_t cache_dtype_size(CacheDtype d) { return kv_dtype_size(static_cast<std::uint32_t>(d)); }

std::int64_t code_ordinal(std::uint32_t code, CacheDtype d) {
  // Every format here is sign-magnitude with magnitudes ordered as their
  // bits, infinity (or e4m3fn's NaN) right after the largest finite.
  std::uint32_t sign_bit = 0x80000000u;
  switch (d) {
    case CacheDtype::kF16:
    case CacheDtype::kBF16: sign_bit = 0x8000u; break;
    case CacheDtype::kE4M3FN:
    case CacheDtype::kE5M2: sign_bit = 0x80u; break;
    default: break;
  }
  const std::int64_t mag = code & (sign_bit - 1);
  return (code & sign_bit) ? -mag : mag;
}

std::uint32_t round_to_cache_code(double x, CacheDtype d, bool saturate) {
  const Grid g = grid(d);
  const bool nan = std::isnan(x);
  const double a = nan ? 0.0 : std::fabs(x);
  double r = std::isinf(a) ? HUGE_VAL : round_magnitude(a, g);
  if (r > g.max_finite) r = saturate ? g.max_finite : HUGE_VAL;
  // r is a value of the cache dtype (or infinity): the fp32 conversions
  // below are exact and only encode it.
  const float f = nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(std::signbit(x) ? -r : r);
  switch (d) {
    case CacheDtype::kF16: return f32_to_f16(f);
    case CacheDtype::kBF16: return f32_to_bf16(f);
    case CacheDtype::kE4M3FN:
    case CacheDtype::kE5M2: return f32_to_fp8(f, fp8_of(d), /*saturate=*/false);
    case CacheDtype::kF32:
    default: return f32_bits(f);
  }
}

double cache_code_value(std::uint32_t code, CacheDtype d) {
  switch (d) {
    case CacheDtype::kF16: return f16_to_f32(static_cast<std::uint16_t>(code));
    case CacheDtype::kBF16: return bf16_to_f32(static_cast<std::uint16_t>(code));
    case CacheDtype::kE4M3FN:
    case CacheDtype::kE5M2: return fp8_to_f32(static_cast<std::uint8_t>(code), fp8_of(d));
    case CacheDtype::kF32:
    default: return f32_from_bits(code);
  }
}

std::int64_t CacheElementBudget::steps_outside(std::uint32_t code, CacheDtype d) const {
  const std::int64_t o = code_ordinal(code, d);
  return o < lo ? lo - o : (o > hi ? o - hi : 0);
}

CacheElementBudget cache_element_budget(double exact, double pre_error, ropecheck_dtype_t storage, float scale,
                                        const CacheWritePolicy& policy) {
  CacheElementBudget b;
  const double s = scale;
  const double factor = policy.direction == ScaleDirection::kDivide ? 1.0 / s : s;
  // Before the scale: the kernel's value v' with |v' - v| <= pre_error, and,
  // when it is first stored in the activation dtype, one rounding more.
  double before = pre_error;
  if (policy.via_storage) before += half_ulp(std::fabs(exact) + pre_error, storage);
  // The scale operation, one fp32 rounding of v' / s or v' * qs, both exact
  // operands: |fl32(v' o s) - v o s| <= before * factor + h32(|v o s| + before * factor).
  const double exact_scaled = policy.direction == ScaleDirection::kDivide ? exact / s : exact * s;
  const double spread = before * factor;
  b.center = exact_scaled;
  // The exact value reaches here rounded to a double (E8), and the center
  // is one more double rounding: h64(|v|) * factor + h64(|center|); the
  // spread's own double roundings are covered by one relative 2^-51.
  b.radius = spread * (1 + 0x1p-51) + half_ulp(std::fabs(exact_scaled) + spread, ROPECHECK_DTYPE_F32) +
             half_ulp(exact, ROPECHECK_DTYPE_F64) * factor + half_ulp(exact_scaled, ROPECHECK_DTYPE_F64);
  // An fp32 cache is the scaled fp32 value itself: the scale's rounding is
  // its rounding. Any other dtype rounds once more, to nearest even: the
  // codes of every real in [center - radius, center + radius] (rounding is
  // monotone, so the ends' codes bound them).
  b.lo = code_ordinal(round_to_cache_code(b.center - b.radius, policy.cache, policy.saturate), policy.cache);
  b.hi = code_ordinal(round_to_cache_code(b.center + b.radius, policy.cache, policy.saturate), policy.cache);
  return b;
}

std::string explain_cache_element(std::uint32_t code, const CacheElementBudget& b, CacheDtype d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s code 0x%0*x (%.9g) at ordinal %lld, admissible [%lld, %lld] around %.9g +- %.3g",
                cache_dtype_name(d), static_cast<int>(2 * cache_dtype_size(d)), code, cache_code_value(code, d),
                static_cast<long long>(code_ordinal(code, d)), static_cast<long long>(b.lo),
                static_cast<long long>(b.hi), b.center, b.radius);
  return buf;
}

}  // namespace ropecheck
