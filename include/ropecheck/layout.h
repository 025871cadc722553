// SPDX-License-Identifier: MIT
// Which two channels form pair i: the single definition of the pairing
// layouts, used by the reference, every kernel and the gate.
#ifndef ROPECHECK_LAYOUT_H_
#define ROPECHECK_LAYOUT_H_

#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Interleaved (GPT-J, Meta complex): (2i, 2i+1). Half split (NeoX,
// rotate_half): (i, i + rotary_dim/2) inside [0, rotary_dim), not head_dim/2.
ROPECHECK_HD inline void pair_channels(unsigned layout, int rotary_dim, int i, int* a, int* b) {
  if (layout == ROPECHECK_LAYOUT_INTERLEAVED) {
    *a = 2 * i;
    *b = 2 * i + 1;
  } else {
    *a = i;
    *b = i + rotary_dim / 2;
  }
}

}  // namespace ropecheck

#endif  // ROPECHECK_LAYOUT_H_
