// SPDX-License-Identifier: MIT
// Where each token of q and k starts: the one place the kernels read the
// batched-sequence strides of ABI 1.2 (kernel_abi.h, seq_len). Host and
// device: the CUDA kernels and their host simulation use it too.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_TOKEN_OFFSETS_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_TOKEN_OFFSETS_H_

#include <cstdint>

#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

// seq_len of the call: 0 (one run of tokens) when the caller's params
// predate ABI 1.2.
ROPECHECK_HD inline std::int64_t seq_len_of(const ropecheck_apply_params_t& p) {
  return p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 ? p.seq_len : 0;
}

// num_threads of the call (0: the kernel's choice), 0 before ABI 1.2.
ROPECHECK_HD inline int threads_of(const ropecheck_apply_params_t& p) {
  return p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 && p.num_threads > 0 ? p.num_threads : 0;
}

// The strides of one tensor (elements).
struct TensorStrides {
  std::int64_t token = 0, head = 0, seq = 0;
  std::int64_t seq_len = 0;  // 0: one run of tokens
  // Element offset of head h of token t.
  ROPECHECK_HD std::int64_t offset(std::int64_t t, std::int64_t h) const {
    const std::int64_t base = seq_len > 0 ? (t / seq_len) * seq + (t % seq_len) * token : t * token;
    return base + h * head;
  }
};

ROPECHECK_HD inline TensorStrides q_strides(const ropecheck_apply_params_t& p) {
  const std::int64_t s = seq_len_of(p);
  return {p.q_token_stride, p.q_head_stride, s > 0 ? p.q_seq_stride : 0, s};
}
ROPECHECK_HD inline TensorStrides k_strides(const ropecheck_apply_params_t& p) {
  const std::int64_t s = seq_len_of(p);
  return {p.k_token_stride, p.k_head_stride, s > 0 ? p.k_seq_stride : 0, s};
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_TOKEN_OFFSETS_H_
