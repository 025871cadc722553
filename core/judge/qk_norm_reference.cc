// SPDX-License-Identifier: MIT
// The exact normalised inputs of a fused qk-norm, their rotation, and E10 per element.
#include "core/judge/qk_norm_reference.h"

#include <cmath>
#include <limits>

#include "reference/real.h"
#include "reference/rms_norm.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

// Calls fn(w, token, head, x, offsets) for every head of q and k, with the
// head's stored values and their offsets.
template <class Fn>
void for_each_head(const Case& c, const QkBuffers& in, Fn&& fn) {
  const Geometry g = geometry(c);
  std::vector<double> x(static_cast<std::size_t>(g.head_dim));
  std::vector<std::int64_t> off(static_cast<std::size_t>(g.head_dim));
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[static_cast<std::size_t>(w)]; ++h) {
        for (int j = 0; j < g.head_dim; ++j) {
          off[static_cast<std::size_t>(j)] = g.offset(w, t, h, j);
          x[static_cast<std::size_t>(j)] = load_as_double(in.bytes[static_cast<std::size_t>(w)].data(),
                                                          static_cast<std::size_t>(off[static_cast<std::size_t>(j)]),
                                                          c.dtype);
        }
        fn(w, x, off);
      }
}

ref::NormWeightForm form_of(const QkNormCase& n) {
  return n.form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W ? ref::NormWeightForm::kOnePlusW : ref::NormWeightForm::kW;
}

}  // namespace

NormedReference normed_reference(const Case& c, const QkBuffers& in, const QkNormCase& n) {
  NormedReference r;
  r.c64 = c;
  r.c64.dtype = ROPECHECK_DTYPE_F64;
  for (int w = 0; w < 2; ++w)
    r.normed.bytes[static_cast<std::size_t>(w)].assign(in.bytes[static_cast<std::size_t>(w)].size() / dtype_size(c.dtype) * 8, 0);
  for_each_head(c, in, [&](int w, const std::vector<double>& x, const std::vector<std::int64_t>& off) {
    const std::vector<ref::Real> exact = ref::rms_norm_exact<ref::Real>(
        x.data(), static_cast<int>(x.size()), n.weight[static_cast<std::size_t>(w)].data(), form_of(n),
        static_cast<double>(n.eps));
    for (std::size_t j = 0; j < x.size(); ++j)
      store_value(r.normed.bytes[static_cast<std::size_t>(w)].data(), off[j], ROPECHECK_DTYPE_F64,
                  exact[j].convert_to<double>());
  });
  r.rotated = compute_reference(r.c64, r.normed);
  return r;
}

std::array<std::vector<double>, 2> norm_input_errors(const Case& c, const QkBuffers& in, const QkNormCase& n,
                                                     const NormedReference& ref, const NormPolicy& policy) {
  std::array<std::vector<double>, 2> e;
  for (int w = 0; w < 2; ++w) e[static_cast<std::size_t>(w)].assign(ref.normed.bytes[static_cast<std::size_t>(w)].size() / 8, 0.0);
  for_each_head(c, in, [&](int w, const std::vector<double>& x, const std::vector<std::int64_t>& off) {
    const std::vector<double> b =
        norm_error_bounds(x, n.weight[static_cast<std::size_t>(w)], static_cast<double>(n.eps), policy, c.dtype);
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double nd = load_as_double(ref.normed.bytes[static_cast<std::size_t>(w)].data(),
                                       static_cast<std::size_t>(off[j]), ROPECHECK_DTYPE_F64);
      // The reference's rounding of n to a double: half an ulp, 2^-53 |n|
      // relative, taken at the double's magnitude with a guard.
      e[static_cast<std::size_t>(w)][static_cast<std::size_t>(off[j])] =
          b[j] + std::fabs(nd) * 0x1p-52 + std::numeric_limits<double>::denorm_min();
    }
  });
  return e;
}

}  // namespace ropecheck
