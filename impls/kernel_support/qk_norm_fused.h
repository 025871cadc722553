// SPDX-License-Identifier: MIT
// A rotation fused with the per-head qk-norm (ABI 1.5): every head of q and
// k normalised (impls/kernel_support/qk_norm_math.h) into dense buffers, in
// fp32 for a KEEP_F32 norm and in the storage dtype otherwise, rotated there
// by another kernel's rotation, and stored into the caller's layout. The
// built-in fused kernels (impls/scalar/fused_qk_norm.cc) and the qk-norm
// rows of the bug catalogue share it, so the fusion is written once.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_QK_NORM_FUSED_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_QK_NORM_FUSED_H_

#include <cstddef>

#include "impls/kernel_support/qk_norm_math.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

struct FusedNormOptions {
  NormArithmetic arithmetic;
  // The dtype the ROUND_* intermediates round to: the storage dtype (0xff)
  // for a correct kernel.
  std::uint32_t rounding_dtype = 0xff;
  // The order: a correct kernel normalises, then rotates. A catalogue row
  // rotates first (a fusion across the norm).
  bool rotate_first = false;
};

// p: the call (its qk_norm set); rotation: the kernel whose apply rotates
// the dense normalised heads (called with the caller's positions, frequency
// spec and layout, and no norm or cache write).
ropecheck_status_t norm_then_rotate(const ropecheck_impl_t& rotation, const ropecheck_apply_params_t& p,
                                    const ropecheck_qk_norm_t& qn, const FusedNormOptions& o, char* err,
                                    std::size_t n);

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_QK_NORM_FUSED_H_
