// SPDX-License-Identifier: MIT
// scalar_complex: Meta's reference form, q viewed as complex pairs
// (x[2i] + j x[2i+1]) times freqs_cis = m e^{j p w_i}. Interleaved only, as
// the original. Frequencies and angles in double, cis rounded to
// std::complex<float>, the product in fp32.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/scalar/scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps =
    standard_caps(1u << ROPECHECK_LAYOUT_INTERLEAVED, ROPECHECK_CAP_NEGATIVE_POSITIONS);

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const EngineFreqs<double> f = engine_frequencies<double>(*p->freq, p->rotary_dim);
  const int pairs = p->rotary_dim / 2;
  const double sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0 : 1.0;
  std::vector<std::complex<float>> cis(pairs);
  for_each_head_by_position(
      *p, [&](std::int64_t t) { return position_at(p, t); },
      [&](std::int64_t pos) {
        for (int i = 0; i < pairs; ++i) {
          const double a = sign * static_cast<double>(pos) * f.inv_freq[i];
          cis[i] = std::complex<float>(std::polar(f.attention_factor, a));
        }
      },
      [&](const HeadRef& h) {
        for (int i = 0; i < pairs; ++i) {
          const std::complex<float> z(load_f32(h.in, h.offset + 2 * i, p->dtype),
                                      load_f32(h.in, h.offset + 2 * i + 1, p->dtype));
          // The textbook product, as torch's complex multiply computes it.
          // std::complex's operator* applies C99 Annex G infinity recovery
          // (__mulsc3), which turns a NaN product of an infinite input into an
          // infinity and so propagates non-finite inputs unlike the rotation
          // (found by the differential fuzzer; core/test/judge_regression_test.cc).
          const std::complex<float> r(z.real() * cis[i].real() - z.imag() * cis[i].imag(),
                                      z.real() * cis[i].imag() + z.imag() * cis[i].real());
          store_f32(h.out, h.offset + 2 * i, p->dtype, r.real());
          store_f32(h.out, h.offset + 2 * i + 1, p->dtype, r.imag());
        }
      });
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* scalar_complex_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "scalar_complex", "std::complex multiply (interleaved); fp64 frequencies and angles, fp32 cis", kCaps,
      libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), apply);
  return &impl;
}

}  // namespace ropecheck::impl
