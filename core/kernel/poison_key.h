// SPDX-License-Identifier: MIT
// The key a kernel call's poison stream restarts from: what its buffers
// arrive holding follows from the call, not from what ran before it.
#ifndef ROPECHECK_CORE_KERNEL_POISON_KEY_H_
#define ROPECHECK_CORE_KERNEL_POISON_KEY_H_

#include <cstdint>

#include "core/cases/cases.h"

namespace ropecheck {

// A 64-bit key from the case's identity (suite seed, index, data seed), its
// shape, layout, dtype, direction, placement and positions, the kernel's name
// and `salt` (which of a pair of calls, which poison it asked for). Two
// calls that differ in any of these get unrelated streams; the same call
// gets the same stream in any process, thread or order, which is what makes
// a failure reproducible from its line (a poison or a KV cache's initial
// state was drawn from the machine's entropy before, per thread).
std::uint64_t poison_key(const Case& c, const char* impl_name, std::uint64_t salt);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_POISON_KEY_H_
