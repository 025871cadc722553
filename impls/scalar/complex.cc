// scalar_complex: Meta's reference form, q viewed as complex pairs
// (x[2i] + j x[2i+1]) times freqs_cis = m e^{j p w_i}. Interleaved only, as
// the original. Frequencies and angles in double, cis rounded to
// std::complex<float>, the product in fp32.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "../common/abi_check.h"
#include "../common/engine_freqs.h"
#include "../common/head_io.h"
#include "../common/impl_table.h"
#include "scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps =
    scalar_caps(1u << ROPECHECK_LAYOUT_INTERLEAVED, ROPECHECK_CAP_NEGATIVE_POSITIONS);

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const EngineFreqs<double> f = engine_frequencies<double>(*p->freq, p->rotary_dim);
  const int pairs = p->rotary_dim / 2;
  const double sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0 : 1.0;
  std::vector<std::complex<float>> cis(pairs);
  bool have = false;
  std::int64_t have_pos = 0;
  for_each_head(*p, [&](std::int64_t t) { return position_at(p, t); }, [&](const HeadRef& h) {
    if (!have || h.position != have_pos) {
      for (int i = 0; i < pairs; ++i) {
        const double a = sign * static_cast<double>(h.position) * f.inv_freq[i];
        cis[i] = std::complex<float>(std::polar(f.attention_factor, a));
      }
      have = true;
      have_pos = h.position;
    }
    for (int i = 0; i < pairs; ++i) {
      const std::complex<float> z(load_f32(h.in, h.offset + 2 * i, p->dtype),
                                  load_f32(h.in, h.offset + 2 * i + 1, p->dtype));
      // The textbook product, as torch's complex multiply computes it.
      // std::complex's operator* applies C99 Annex G infinity recovery
      // (__mulsc3), which turns the NaN of inf - inf into an infinity and so
      // propagates non-finite inputs unlike the rotation (found by
      // differential_fuzzer).
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
  static const ropecheck_impl_t impl{
      sizeof(ropecheck_impl_t), ROPECHECK_ABI_VERSION, "scalar_complex",
      "std::complex multiply (interleaved); fp64 frequencies and angles, fp32 cis", kCaps,
      policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32), nullptr, apply,
      nullptr, nullptr};
  return &impl;
}

}  // namespace ropecheck::impl
