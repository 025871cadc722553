#include "properties/property_helpers.h"

#include <algorithm>
#include <cstring>

#include "core/rng.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::prop {

ElementBudgets element_budgets(const ropecheck_impl_t& impl, const Case& c, const ReferenceResult& ref) {
  const Geometry g = geometry(c);
  const ErrorModel model(policy_of(impl), c.freq, c.shape, c.dtype, ref.attention_factor);
  ElementBudgets j;
  j.attention_factor = ref.attention_factor;
  for (int w = 0; w < 2; ++w) {
    const auto n = static_cast<std::size_t>(g.elements[w]);
    j.value[w].assign(n, 0.0);
    j.budget[w].assign(n, 0.0);
    j.pair_budget[w].assign(n, 0.0);
    j.pair_budget_no_angle[w].assign(n, 0.0);
    for (const ReferenceElement& e : ref.elements[w]) {
      const auto off = static_cast<std::size_t>(e.offset);
      j.value[w][off] = e.terms.value;
      j.budget[w][off] = model.budget(e.terms);
      j.pair_budget[w][off] = model.pair_budget(e.terms);
      j.pair_budget_no_angle[w][off] = model.pair_budget_excluding_angle(e.terms);
    }
  }
  return j;
}

std::optional<PropertyResult> call_or_fail(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in,
                                           KernelRun* out) {
  *out = call_kernel(impl, c, in);
  if (out->ok()) return std::nullopt;
  return PropertyResult::fail(out->failure());
}

std::optional<PropertyResult> skip_outside_capabilities(const ropecheck_impl_t& impl,
                                                        std::initializer_list<const Case*> cs) {
  for (const Case* c : cs)
    if (std::string why = outside_capabilities(impl, *c); !why.empty())
      return PropertyResult::decline("outside capabilities: " + why);
  return std::nullopt;
}

std::int64_t draw_shift(const Case& c, std::uint64_t salt, std::int64_t max_shift) {
  Rng rng(c.data_seed, salt);
  const std::int64_t room = std::int64_t{2147483647} - c.max_abs_position();
  const std::int64_t hi = std::max<std::int64_t>(0, std::min(max_shift, room));
  return rng.range(0, hi);
}

std::string element_name(const Case& c, int w, std::int64_t token, int head, int channel) {
  return std::string(w == 0 ? "q" : "k") + "[token " + std::to_string(token) + ", head " + std::to_string(head) +
         ", channel " + std::to_string(channel) + "] position " +
         std::to_string(c.positions[static_cast<std::size_t>(token)]);
}

bool same_value(const QkBuffers& a, const QkBuffers& b, int w, std::int64_t off, ropecheck_dtype_t dt) {
  const double x = stored_value(a, w, off, dt), y = stored_value(b, w, off, dt);
  if (std::isnan(x) || std::isnan(y)) {
    const std::size_t es = dtype_size(dt);
    return std::memcmp(a.bytes[w].data() + off * es, b.bytes[w].data() + off * es, es) == 0;
  }
  return exactly_equal(x, y);
}

}  // namespace ropecheck::prop
