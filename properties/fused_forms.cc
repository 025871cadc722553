// SPDX-License-Identifier: MIT
// The fused forms of fused_forms.h, each from the case's own draw of its part.
#include "properties/fused_forms.h"

#include <optional>

#include "core/cases/cos_sin_cache_case.h"
#include "core/cases/kv_write_case.h"
#include "core/cases/qk_norm_case.h"
#include "ropecheck/names.h"

namespace ropecheck::prop {

std::string kv_write_form(const ropecheck_impl_t& impl, const Case& c) {
  const std::optional<KvWriteCase> w = kv_write_case(c, impl.kv_policy, impl.kv_cache_kinds);
  return w ? w->form() : std::string();
}

std::string caller_cache_form(const ropecheck_impl_t& impl, const Case& c) {
  if (!(impl.caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)) return {};
  return "caller's cos/sin cache " + std::string(dtype_name(caller_cache_dtype(c, impl.cos_sin_cache_dtypes))) +
         " (ABI 1.6)";
}

std::string qk_norm_form(const ropecheck_impl_t& impl, const Case& c) {
  return std::string("qk-norm, weight ") +
         (qk_norm_case(c, impl.norm_policy).form == ROPECHECK_NORM_WEIGHT_W ? "w" : "1 + w");
}

}  // namespace ropecheck::prop
