// SPDX-License-Identifier: MIT
// The tensor dtype a case's storage dtype is written as in every golden file
// format: one mapping for the tensors of every room (inputs, expected values,
// the fused parts' v, weights and caller's cache).
#ifndef ROPECHECK_GOLDEN_FORMATS_STORAGE_DTYPE_H_
#define ROPECHECK_GOLDEN_FORMATS_STORAGE_DTYPE_H_

#include "golden/formats/tensor_file.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::golden {

TensorDtype storage_tensor_dtype(ropecheck_dtype_t t);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_FORMATS_STORAGE_DTYPE_H_
