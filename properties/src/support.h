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

// Bitwise equality of two stored elements, treating +0 and -0 as equal.
bool same_value(const Tensors& a, const Tensors& b, int w, std::int64_t off, ropecheck_dtype_t dt);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_SRC_SUPPORT_H_
