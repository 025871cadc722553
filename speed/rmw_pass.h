// SPDX-License-Identifier: MIT
// The in-place baselines of the CPU benchmark, with the widest vectors of the
// best Highway target the CPU supports (dispatched at run time, as the
// kernels are), so a baseline is never slower than the kernels merely for
// narrower loads:
//   rmw_pass:     one streaming read-modify-write pass, the in-place
//                 roofline. The "modify" is an integer XOR with a zero the
//                 compiler cannot see: no floating-point assist on odd bit
//                 patterns (bf16 pairs read as fp32 may be subnormal).
//   convert_pass: the same pass, each element widened to fp32 and narrowed
//                 back with round to nearest even by the SIMD kernels' own
//                 conversions (impls/simd/simd_storage-inl.h), no rotation:
//                 the least work any kernel that computes in fp32 does per
//                 element. When the data sits in cache (the decode shape),
//                 this arithmetic, not memory, bounds a kernel.
#ifndef ROPECHECK_SPEED_RMW_PASS_H_
#define ROPECHECK_SPEED_RMW_PASS_H_

#include <cstddef>
#include <cstdint>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::speed {

// XORs every 32-bit word of [p, p + bytes) with `zero` (pass 0); bytes a
// multiple of 4.
void rmw_pass(unsigned char* p, std::size_t bytes, std::uint32_t zero);

// Widens and narrows every element of [p, p + bytes) of dtype `dt` in place
// (bits unchanged for every finite value); bytes a multiple of 4.
void convert_pass(ropecheck_dtype_t dt, unsigned char* p, std::size_t bytes);

// The Highway target rmw_pass and convert_pass run on.
const char* rmw_target();

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_RMW_PASS_H_
