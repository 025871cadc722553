// SPDX-License-Identifier: MIT
// The call judged for conformance: the kernel called twice on the same
// case, and the two results compared bit for bit.
#ifndef ROPECHECK_CORE_KERNEL_CALL_TWICE_H_
#define ROPECHECK_CORE_KERNEL_CALL_TWICE_H_

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/qk_norm_case.h"
#include "core/kernel/kernel_call.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// call_kernel made twice, with poisons of two different kinds and different
// buffers; any bitwise difference between the two results (q and k, and the
// entries a KV-cache write made) is a misbehaviour (it reads its output
// before writing it, or is not deterministic). Returns the first run.
KernelRun call_kernel_twice(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in,
                            const QkNormCase* norm = nullptr, const KvRun* kv_given = nullptr);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_CALL_TWICE_H_
