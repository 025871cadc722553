// SPDX-License-Identifier: MIT
// The baselines `ropecheck bench` times beside a kernel, as kernels: tables
// of the C ABI whose apply moves the bytes of the call without computing
// anything, so they are called exactly as the kernel is (the same case
// code, the same isolated worker path, the same timing and cache
// preparation, core/isolation/call_timing.h), and a ratio compares the
// work alone:
//   baseline_copy  memcpy of q_in into q_out and k_in into k_out (an
//                  out-of-place call): the bytes a kernel reads and writes,
//                  once each;
//   baseline_rmw   one streaming read-modify-write pass over q and k in
//                  place (speed/rmw_pass.h): the in-place roofline.
// Both split their bytes over the call's num_threads as bench/rope_bench.cc
// does (speed/byte_split.h). They declare every storage dtype, layout and
// scheme; they are never judged.
#ifndef ROPECHECK_SPEED_BASELINE_KERNELS_H_
#define ROPECHECK_SPEED_BASELINE_KERNELS_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck::speed {

const ropecheck_impl_t* copy_baseline();
const ropecheck_impl_t* rmw_baseline();

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BASELINE_KERNELS_H_
