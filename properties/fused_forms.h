// SPDX-License-Identifier: MIT
// The fused form a case gives a property's fused part of a kernel, the row
// of the gate's fused table it counts in (gate/summary_table.cc): each
// property that judges a fused part names its form through
// Property::fused_form (properties/property.h), so the gate groups its
// results by it without knowing any property by name.
#ifndef ROPECHECK_PROPERTIES_FUSED_FORMS_H_
#define ROPECHECK_PROPERTIES_FUSED_FORMS_H_

#include <string>

#include "core/cases/cases.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::prop {

// "K and V caches fp8_e4m3fn NHD, per-tensor scales" ("" without a write).
std::string kv_write_form(const ropecheck_impl_t& impl, const Case& c);
// "caller's cos/sin cache bf16 (ABI 1.6)" for a kernel reading one, else "".
std::string caller_cache_form(const ropecheck_impl_t& impl, const Case& c);
// "qk-norm, weight 1 + w".
std::string qk_norm_form(const ropecheck_impl_t& impl, const Case& c);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_FUSED_FORMS_H_
