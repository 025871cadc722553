// SPDX-License-Identifier: MIT
// The checkers check_apply runs on an ABI call (abi_check.cc's table), one
// concern each: the call's own fields (abi_call_checks.cc) and the optional
// parts a call may carry (abi_part_checks.cc: the next ABI part is one
// checker there and one row in the table).
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_ABI_CHECKERS_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_ABI_CHECKERS_H_

#include <cstddef>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl::checks {

// A checker returns ROPECHECK_OK, or a status with the message in err. The
// first that returns a status decides; each may rely on what the ones before
// it in the table checked.
using Checker = ropecheck_status_t (*)(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);

// The call's own fields (abi_call_checks.cc).
ropecheck_status_t check_shape(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_sequences(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_capabilities(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_tensors(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_frequencies(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_axes(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_positions(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);

// The optional parts a call may carry, each only for a kernel granting it
// (abi_part_checks.cc).
ropecheck_status_t check_kv_write(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_qk_norm(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);
ropecheck_status_t check_quant_out(const ropecheck_caps_t&, const ropecheck_apply_params_t*, char*, std::size_t);

}  // namespace ropecheck::impl::checks

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_ABI_CHECKERS_H_
