// SPDX-License-Identifier: MIT
// The quantized-output rows of the bug catalogue (mutant_list.h, quant_*):
// the control kernel's rotation, in fp32, with its q and k written as fp8
// codes (ABI 1.8) declared as FlashInfer's rope_quantize (x * scale,
// saturated, q and k both quantized), with the row's bug switched on; and
// the same kernel with no bug, the correct one the property passes.
#ifndef ROPECHECK_MUTANTS_QUANT_OUT_MUTANTS_H_
#define ROPECHECK_MUTANTS_QUANT_OUT_MUTANTS_H_

#include "mutants/mutant_list.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

bool is_quant_out_bug(Bug bug);
// The row's table around `rotation` (the control kernel's table).
ropecheck_impl_t quant_out_mutant_table(const BugInfo& info, const ropecheck_impl_t* rotation);
// The correct kernel: quant_out_control, the control's rotation quantized
// as declared (no row of the catalogue: it must pass).
const ropecheck_impl_t* quant_out_control();

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_QUANT_OUT_MUTANTS_H_
