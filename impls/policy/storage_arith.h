// SPDX-License-Identifier: MIT
// Arithmetic rounded to a storage dtype, as bf16/fp16 tensor code computes
// it: an operation is evaluated in fp32 and rounded to the narrow type
// (PyTorch's CPU and CUDA elementwise kernels), and a fused multiply-add
// (HFMA) rounds the exact x y + z once.
#ifndef ROPECHECK_IMPLS_POLICY_STORAGE_ARITH_H_
#define ROPECHECK_IMPLS_POLICY_STORAGE_ARITH_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::impl {

// An fp32 value rounded (to nearest even) to the storage dtype, as fp32.
inline float round_to_storage(float v, std::uint32_t dtype) {
  switch (dtype) {
    case ROPECHECK_DTYPE_BF16: return bf16_to_f32(f32_to_bf16(v));
    case ROPECHECK_DTYPE_F16: return f16_to_f32(f32_to_f16(v));
    default: return v;
  }
}

// hi + lo (a two-sum: |lo| at most half an ulp of hi) rounded once, to
// nearest even, to a storage dtype (overflow to infinity). hi fixes the ulp; lo only breaks exact ties
// (hi's fraction in ulps of the format is a multiple of hi's own ulp, so it
// is 1/2 or at least one such ulp away from it, more than |lo|).
inline double round_exact_sum(double hi, double lo, ropecheck_dtype_t dtype) {
  if (exactly_equal(hi, 0.0)) return hi + lo;  // a two-sum of 0 has lo = 0
  const DtypeFormat f = dtype_format(dtype);
  int e = 0;
  std::frexp(std::fabs(hi), &e);
  const int q = std::max(e - 1, f.emin) - (f.precision - 1);  // exponent of the format's ulp at hi
  const double s = std::ldexp(hi, -q);
  const double whole = std::floor(s), frac = s - whole;
  double n = whole;
  if (frac > 0.5 || (exactly_equal(frac, 0.5) && (lo > 0 || (exactly_equal(lo, 0.0) && !exactly_equal(std::fmod(whole, 2.0), 0.0)))))
    n = whole + 1;
  const double r = std::ldexp(n, q);
  return std::fabs(r) > max_finite(dtype) ? std::copysign(HUGE_VAL, r) : r;
}

// x y + z rounded once to the storage dtype (fmaf for fp32). x, y, z are
// storage values: their product is exact in a double (at most 22 bits), and
// a two-sum keeps the exact sum.
inline float fma_in_storage(float x, float y, float z, std::uint32_t dtype) {
  if (dtype == ROPECHECK_DTYPE_F32) return std::fma(x, y, z);
  const double p = static_cast<double>(x) * y, c = z;
  const double s = p + c, v = s - p;
  const double lo = (p - (s - v)) + (c - v);
  return static_cast<float>(round_exact_sum(s, lo, static_cast<ropecheck_dtype_t>(dtype)));
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_POLICY_STORAGE_ARITH_H_
