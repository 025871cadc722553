// Helpers shared by the property files: derived cases, budgets looked up by
// storage offset, pair norms, and the usual run-or-explain plumbing.
#ifndef ROPECHECK_PROPERTIES_SRC_SUPPORT_H_
#define ROPECHECK_PROPERTIES_SRC_SUPPORT_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ropecheck/dtype.h"
#include "ropecheck/error_model.h"
#include "ropecheck/harness.h"
#include "ropecheck/layout.h"
#include "ropecheck/properties/property.h"

namespace ropecheck::prop {

// Exact value and budget of every storage element of one run (0 budget for
// elements that are not rotated: they must match exactly).
struct Judged {
  std::array<std::vector<double>, 2> value, budget;
  // Rotation-invariant pair bounds (ErrorModel::pair_budget*), stored at
  // both elements' offsets of the pair.
  std::array<std::vector<double>, 2> pair_budget, pair_budget_no_angle;
  double attention_factor = 1;
};
Judged judged(const ropecheck_impl_t& impl, const Case& c, const ReferenceResult& ref);

inline double element(const Tensors& t, int w, std::int64_t off, ropecheck_dtype_t dt) {
  return load_as_double(t.t[w].data(), off, dt);
}

// Runs the implementation; on a non-OK status returns the failure to report.
std::optional<PropertyResult> run_or_fail(const ropecheck_impl_t& impl, const Case& c,
                                          const Tensors& in, RunResult* out);

// Skip reason if any derived case is outside the implementation's scope.
std::optional<PropertyResult> scope(const ropecheck_impl_t& impl, std::initializer_list<const Case*> cs);

// Position shift that keeps every position inside int32 and a cache's reach.
std::int64_t draw_shift(const Case& c, std::uint64_t salt, std::int64_t max_shift);

std::string where(const Case& c, int w, std::int64_t token, int head, int channel);

// Calls fn(w, token, head, pair, offset_a, offset_b) for every rotated pair
// of a case's q and k; fn returns a failure to stop, or nullopt to go on.
template <class Fn>
std::optional<PropertyResult> for_each_pair(const Case& c, Fn&& fn) {
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int i = 0; i < g.rotary_dim / 2; ++i) {
          int a, b;
          pair_channels(c.layout, g.rotary_dim, i, &a, &b);
          if (auto f = fn(w, t, h, i, g.offset(w, t, h, a), g.offset(w, t, h, b))) return f;
        }
  return std::nullopt;
}

// Bitwise equality of two stored elements, treating +0 and -0 as equal.
bool same_value(const Tensors& a, const Tensors& b, int w, std::int64_t off, ropecheck_dtype_t dt);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_SRC_SUPPORT_H_
