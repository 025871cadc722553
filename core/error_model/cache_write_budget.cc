// SPDX-License-Identifier: MIT
// E9: the codes of the cache dtype a correct KV-cache write may hold for one element.
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
Grid grid(KvDtype d) {
  switch (d) {
    case KvDtype::kF16: return {11, -14, 65504.0};
    case KvDtype::kBF16: return {8, -126, max_finite(ROPECHECK_DTYPE_BF16)};
    case KvDtype::kE4M3FN: return {4, -6, 448.0};
    case KvDtype::kE5M2: return {3, -14, 57344.0};
    case KvDtype::kF32:
    default: return {24, -126, max_finite(ROPECHECK_DTYPE_F32)};
  }
}

// |x| rounded to nearest even on the grid with an unbounded exponent above
// (overflow is decided after, as IEEE 754 does: a value rounding to just past
// the largest finite overflows). Exact in double: every grid here has at
// most 24 significand bits. The grid's quantum at a is 2^q; a < 2^(q + p)
// <= 2^(q + 24), so a + 2^(q + 52) lies in [2^(q + 52), 2^(q + 53)), whose
// doubles are the multiples of 2^q: the addition is the rounding (to
// nearest, ties to the even multiple, 2^52 being even) and the subtraction
// is exact. The binade is read from a's bits (reference/rounding.h, ulp_of):
// frexp and two ldexp calls were a tenth of a KV-cache write's judging.
// Beyond 2^900 (past every grid's largest finite, where 2^(q + 52) would
// overflow) the same rounding with ldexp.
double round_magnitude(double a, const Grid& g) {
  if (!(a > 0)) return 0;
  const double quantum = ref::ulp_of(a, DtypeFormat{g.precision, g.emin, 0});
  if (a < 0x1p900) {
    const double c = quantum * 0x1p52;
    return (a + c) - c;
  }
  const double scaled = a / quantum;  // exact: a power of two
  double n = std::floor(scaled);
  const double frac = scaled - n;
  if (frac > 0.5 || (exactly_equal(frac, 0.5) && std::fmod(n, 2.0) > 0)) n += 1;
  return n * quantum;
}

// x rounded to nearest even on g, overflow to infinity, the sign kept
// (NaN stays NaN).
double round_on(double x, const Grid& g) {
  if (std::isnan(x)) return x;
  double r = std::isinf(x) ? HUGE_VAL : round_magnitude(std::fabs(x), g);
  if (r > g.max_finite) r = HUGE_VAL;
  return std::copysign(r, x);
}

// The grid of an activation (storage) dtype: fp32, fp16 or bf16.
Grid grid_of(ropecheck_dtype_t t) {
  return grid(t == ROPECHECK_DTYPE_F16 ? KvDtype::kF16 : t == ROPECHECK_DTYPE_BF16 ? KvDtype::kBF16 : KvDtype::kF32);
}

Fp8Format fp8_of(KvDtype d) { return d == KvDtype::kE4M3FN ? Fp8Format::kE4M3FN : Fp8Format::kE5M2; }

// Half an ulp of fp32 (or of a storage dtype) at |x|, at least the smallest
// double: the one-rounding bound of docs/ERROR_MODEL.md.
double half_ulp(double x, ropecheck_dtype_t t) {
  return std::max(0.5 * ref::ulp_of(x, t), std::numeric_limits<double>::denorm_min());
}

}  // namespace

const char* kv_dtype_name(KvDtype d) {
  switch (d) {
    case KvDtype::kF32: return "f32";
    case KvDtype::kF16: return "f16";
    case KvDtype::kBF16: return "bf16";
    case KvDtype::kE4M3FN: return "fp8_e4m3fn";
    case KvDtype::kE5M2: return "fp8_e5m2";
  }
  return "?";
}


std::int64_t code_ordinal(std::uint32_t code, KvDtype d) {
  // Every format here is sign-magnitude with magnitudes ordered as their
  // bits, infinity (or e4m3fn's NaN) right after the largest finite.
  std::uint32_t sign_bit = 0x80000000u;
  switch (d) {
    case KvDtype::kF16:
    case KvDtype::kBF16: sign_bit = 0x8000u; break;
    case KvDtype::kE4M3FN:
    case KvDtype::kE5M2: sign_bit = 0x80u; break;
    default: break;
  }
  const std::int64_t mag = code & (sign_bit - 1);
  return (code & sign_bit) ? -mag : mag;
}

std::uint32_t round_to_cache_code(double x, KvDtype d, bool saturate) {
  const Grid g = grid(d);
  const bool nan = std::isnan(x);
  const double a = nan ? 0.0 : std::fabs(x);
  double r = std::isinf(a) ? HUGE_VAL : round_magnitude(a, g);
  if (r > g.max_finite) r = saturate ? g.max_finite : HUGE_VAL;
  // r is a value of the cache dtype (or infinity): the fp32 conversions
  // below are exact and only encode it.
  const float f = nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(std::signbit(x) ? -r : r);
  switch (d) {
    case KvDtype::kF16: return f32_to_f16(f);
    case KvDtype::kBF16: return f32_to_bf16(f);
    case KvDtype::kE4M3FN:
    case KvDtype::kE5M2: return f32_to_fp8(f, fp8_of(d), /*saturate=*/false);
    case KvDtype::kF32:
    default: return f32_bits(f);
  }
}

double cache_code_value(std::uint32_t code, KvDtype d) {
  switch (d) {
    case KvDtype::kF16: return f16_to_f32(static_cast<std::uint16_t>(code));
    case KvDtype::kBF16: return bf16_to_f32(static_cast<std::uint16_t>(code));
    case KvDtype::kE4M3FN:
    case KvDtype::kE5M2: return fp8_to_f32(static_cast<std::uint8_t>(code), fp8_of(d));
    case KvDtype::kF32:
    default: return f32_from_bits(code);
  }
}

std::int64_t CacheElementBudget::steps_outside(std::uint32_t code, KvDtype d) const {
  const std::int64_t o = code_ordinal(code, d);
  return o < lo ? lo - o : (o > hi ? o - hi : 0);
}

CacheElementBudget cache_element_budget(double exact, double pre_error, ropecheck_dtype_t storage, float scale,
                                        const CacheWritePolicy& policy) {
  CacheElementBudget b;
  const double s = scale;
  const bool divide = policy.direction == ScaleDirection::kDivide;
  // Every step is monotone (rounding to a grid, scaling by a positive s), so
  // the codes a correct kernel can write lie between the codes of the two
  // ends of the interval its value can take, each carried through the steps
  // the kernel makes. A step charges a rounding only where one can happen:
  // where the arithmetic is exact the verdict is bit-exact, an exact tie
  // decided by ties-to-even (issue #48: a scale of 1 or 2^k admitted both
  // neighbours of a tie, so a kernel rounding ties away from zero passed).
  const auto scaled = [&](double v, int outward) {
    if (std::isinf(v) || std::isnan(v)) return v;
    const double q = divide ? v / s : v * s;
    // The double's own rounding of v o s, where it has one (v / s or v * s
    // not exact): the end moves outward by it.
    const double residual = divide ? std::fma(q, s, -v) : std::fma(v, s, -q);
    return exactly_equal(residual, 0.0) ? q : q + outward * half_ulp(q, ROPECHECK_DTYPE_F64);
  };
  const auto end = [&](double v, int outward) {
    // The kernel's value, in its math dtype (or, declared via_storage, in the
    // activation dtype it stored first: round to nearest even, monotone).
    if (policy.via_storage) v = round_on(v, grid_of(storage));
    // The scale in fp32, one rounding to nearest even (exact where v o s is an
    // fp32 value: a power-of-two scale, within fp32's normal range).
    return round_on(scaled(v, outward), grid(KvDtype::kF32));
  };
  // The kernel's value lies within pre_error of the exact value; the judge
  // holds the exact value as a double (E8), one rounding off it, except where
  // pre_error is 0: a stored value (v, or k's pass-through channels), a
  // double exactly. Both ends move outward by one double ulp for the
  // rounding of exact -+ pre_error itself.
  const double slack = pre_error > 0 ? pre_error + half_ulp(exact, ROPECHECK_DTYPE_F64) : 0.0;
  const double lo_value = slack > 0 ? std::nextafter(exact - slack, -HUGE_VAL) : exact;
  const double hi_value = slack > 0 ? std::nextafter(exact + slack, HUGE_VAL) : exact;
  const double lo_end = end(lo_value, -1), hi_end = end(hi_value, 1);
  b.center = divide ? exact / s : exact * s;
  b.radius = std::max(std::fabs(b.center - lo_end), std::fabs(hi_end - b.center));
  if (std::isnan(b.radius)) b.radius = HUGE_VAL;
  // An fp32 cache is the scaled fp32 value itself; any other dtype rounds
  // once more, to nearest even, saturating or not as declared.
  b.lo = code_ordinal(round_to_cache_code(lo_end, policy.cache, policy.saturate), policy.cache);
  b.hi = code_ordinal(round_to_cache_code(hi_end, policy.cache, policy.saturate), policy.cache);
  // The exactly rounded code is always admissible: a kernel more exact than
  // it declares (no stop in the activation dtype, whose double rounding can
  // land one code off it) is not wrong, and a golden vector's expected cache
  // is that code (golden/fused/kv_golden.cc). At an exact tie it is the even one.
  const std::int64_t exact_code =
      code_ordinal(round_to_cache_code(b.center, policy.cache, policy.saturate), policy.cache);
  b.lo = std::min(b.lo, exact_code);
  b.hi = std::max(b.hi, exact_code);
  return b;
}

std::string explain_cache_element(std::uint32_t code, const CacheElementBudget& b, KvDtype d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s code 0x%0*x (%.9g) at ordinal %lld, admissible [%lld, %lld] around %.9g +- %.3g",
                kv_dtype_name(d), static_cast<int>(2 * kv_dtype_size(d)), code, cache_code_value(code, d),
                static_cast<long long>(code_ordinal(code, d)), static_cast<long long>(b.lo),
                static_cast<long long>(b.hi), b.center, b.radius);
  return buf;
}

}  // namespace ropecheck
