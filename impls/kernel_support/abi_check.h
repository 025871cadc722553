// SPDX-License-Identifier: MIT
// Validation of an apply call against the ABI contract and an
// implementation's declared capabilities. Every built-in kernel calls it
// first, so a bad call gets a status and a message naming the field, never UB.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_ABI_CHECK_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_ABI_CHECK_H_

#include <cstddef>
#include <cstdint>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

// printf-style message into a caller buffer (truncated, NUL-terminated).
void set_error(char* err, std::size_t err_size, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Checks dims, pointers, strides, enums, capabilities and the frequency spec
// fields the scheme needs. Positions are checked too: negative ids need
// ROPECHECK_CAP_NEGATIVE_POSITIONS, and with a cache every id must lie in
// [0, cache_max_position) (ROPECHECK_POSITION_OUT_OF_RANGE otherwise).
ropecheck_status_t check_apply(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p,
                               char* err, std::size_t err_size);

// Checks the scheme parameters a kernel's frequency code relies on.
ropecheck_status_t check_freq_spec(const ropecheck_freq_spec_t* f, int rotary_dim, char* err,
                                   std::size_t err_size);

// Position axes of a call: 0 (one position per token) before ABI 1.3.
inline int axes_of(const ropecheck_apply_params_t* p) {
  return p->struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_3 ? p->num_axes : 0;
}

// The position id of token t on `axis` (axis 0 of a 1D call: its one row).
inline std::int64_t position_at(const ropecheck_apply_params_t* p, std::int64_t t, int axis = 0) {
  const std::int64_t i = axis == 0 ? t : axis * p->position_axis_stride + t;
  return p->position_type == ROPECHECK_INDEX_INT32
             ? static_cast<const std::int32_t*>(p->positions)[i]
             : static_cast<const std::int64_t*>(p->positions)[i];
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_ABI_CHECK_H_
