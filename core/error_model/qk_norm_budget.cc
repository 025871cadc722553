// SPDX-License-Identifier: MIT
// E10: the bound on a fused qk-norm's error per normalised element.
#include "core/error_model/qk_norm_budget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reference/rounding.h"

namespace ropecheck {
namespace {

constexpr double kU32 = 0x1p-24;  // fp32 unit roundoff
// Below fp32's smallest normal a rounding errs by at most 2^-150 absolute:
// every fp32 rounding is charged u |z| + this (docs/ERROR_MODEL.md, "One rounding").
constexpr double kFloor32 = 0x1p-150;

double gamma32(int k) { return k * kU32 / (1 - k * kU32); }

// One rounding to dtype t of a value of magnitude <= z.
double h(double z, ropecheck_dtype_t t) {
  return std::max(0.5 * ref::ulp_of(z, t), std::numeric_limits<double>::denorm_min());
}

// An fp32 operation rounded to a narrow t: fp32 first, then t.
double round_via_f32(double z, ropecheck_dtype_t t) {
  const double h32 = h(z, ROPECHECK_DTYPE_F32);
  if (t == ROPECHECK_DTYPE_F32 || t == ROPECHECK_DTYPE_F64) return h32;
  return h(z + h32, t) + h32;
}

}  // namespace

std::vector<double> norm_error_bounds(std::span<const double> x, std::span<const double> w, double eps,
                                      const NormPolicy& policy, ropecheck_dtype_t storage) {
  if (w.size() < x.size())
    throw std::invalid_argument("norm_error_bounds: w must hold a weight per channel of x (" +
                                std::to_string(x.size()) + "), got " + std::to_string(w.size()));
  const int n = static_cast<int>(x.size());
  // A = mean(x^2) + eps, in double (relative error below 2^-50, the slack
  // factors below cover it).
  double sum = 0;
  for (const double xj : x) sum += xj * xj;
  const double a = sum / n + eps;
  // The kernel's A: the squares and their sum (gamma_n), the division by n,
  // eps converted to fp32 and the addition: gamma_{n+3} relative, plus the
  // underflow floors of the n squares and sums (each 2^-150, divided by n).
  const double eps_a = gamma32(n + 3) + 4 * kFloor32 / a;
  // rsqrt of a value off by eps_a relative is off by at most
  // eps_a / (1 - eps_a) relative (|(1+e)^-1/2 - 1| <= |e| / (1 - |e|)),
  // then its own k ulps, each at most 2u relative.
  const double eps_r = (1 + eps_a / (1 - eps_a)) * (1 + 2 * policy.rsqrt_max_ulp * kU32) * (1 + 0x1p-48) - 1;
  const double r = 1 / std::sqrt(a);
  const bool one_plus = policy.form == ref::NormWeightForm::kOnePlusW;
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::size_t j = 0; j < x.size(); ++j) {
    const double wj = std::fabs(one_plus ? 1.0 + w[j] : w[j]) * (1 + 0x1p-52);
    const double xr = std::fabs(x[j]) * r * (1 + 0x1p-50);  // |x r|
    const double nj = xr * wj;                               // |exact n_j|
    double e = 0;
    switch (policy.intermediate) {
      case NormIntermediate::kKeepF32:
      case NormIntermediate::kRoundAfterWeight: {
        // x * r * w' in fp32 in either association: two roundings relative
        // to the result (each product's magnitude is a factor of it), a
        // third for 1 + w in fp32; floors for the two products.
        const int roundings = one_plus ? 3 : 2;
        e = nj * ((1 + eps_r) * std::pow(1 + kU32, roundings) - 1) + kFloor32 * (2 + wj + std::fabs(x[j]));
        if (policy.intermediate == NormIntermediate::kRoundAfterWeight) e += h(nj + e, storage);
        break;
      }
      case NormIntermediate::kRoundBeforeWeight: {
        // t = fl_S(fl32(x r~)), then fl_S(t w') (an S-by-S product is exact
        // in fp32 for bf16 and fp16; for fp32 storage it is the rounding).
        double te = xr * eps_r;
        te += round_via_f32(xr + te, storage);
        double we = 0;  // 1 + w rounded to fp32 then S, when that form is asked for here
        if (one_plus) we = round_via_f32(wj, storage);
        e = wj * te + (xr + te) * we;
        e += round_via_f32(nj + e, storage);
        break;
      }
    }
    out[j] = e;
  }
  return out;
}

}  // namespace ropecheck
