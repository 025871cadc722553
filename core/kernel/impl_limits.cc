#include "core/kernel/impl_limits.h"

#include <map>
#include <mutex>

namespace ropecheck {
namespace {

std::mutex& limits_mutex() {
  static std::mutex m;
  return m;
}

std::map<const ropecheck_impl_t*, ImplLimits>& limits_table() {
  static std::map<const ropecheck_impl_t*, ImplLimits> t;
  return t;
}

}  // namespace

void declare_limits(const ropecheck_impl_t* impl, const ImplLimits& limits) {
  const std::lock_guard<std::mutex> lock(limits_mutex());
  limits_table()[impl] = limits;
}

void forget_limits(const ropecheck_impl_t* impl) {
  const std::lock_guard<std::mutex> lock(limits_mutex());
  limits_table().erase(impl);
}

ImplLimits limits_of(const ropecheck_impl_t& impl) {
  const std::lock_guard<std::mutex> lock(limits_mutex());
  const auto it = limits_table().find(&impl);
  return it == limits_table().end() ? ImplLimits{} : it->second;
}

std::string check_limits(const ImplLimits& limits) {
  if (limits.max_position < 0)
    return "max_position: must be >= 1, or 0 for no limit (got " + std::to_string(limits.max_position) + ")";
  return {};
}

}  // namespace ropecheck
