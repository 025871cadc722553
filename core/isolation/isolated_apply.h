// SPDX-License-Identifier: MIT
// The two entry points of an isolated kernel's table (isolate(),
// core/isolation/isolation.h): apply and build_cache, each on guarded copies
// of what it is handed, in the mode the wrapper was made with. Their
// signatures are the ABI's (ropecheck_impl_t, include/ropecheck/kernel_abi.h).
#ifndef ROPECHECK_CORE_ISOLATION_ISOLATED_APPLY_H_
#define ROPECHECK_CORE_ISOLATION_ISOLATED_APPLY_H_

#include <cstddef>
#include <cstdint>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// ctx: the wrapper (Isolated, core/isolation/isolated_call.h).
ropecheck_status_t isolated_apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n);
ropecheck_status_t isolated_build_cache(void* ctx, const ropecheck_freq_spec_t* f, std::int32_t rotary_dim,
                                        std::int64_t rows, std::uint32_t dtype, void* out, char* err, std::size_t n);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_ISOLATED_APPLY_H_
