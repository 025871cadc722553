// SPDX-License-Identifier: MIT
// A case of the suite redrawn within what a kernel declares (#34): a kernel
// that takes only bf16, one layout or a few schemes would otherwise skip
// most of the suite (a bf16-only kernel judged on 1 case of the quick
// suite's 120) and fail the verdict floor with nothing wrong found. Where the
// drawn case lies outside the declared dtypes, layouts, schemes, direction,
// in-place/out-of-place or position dtype, that choice alone is redrawn
// (and an id past int32 in a case fitted to int32 positions, among int32's
// edge positions: never narrowed; an id past max_position or past what a
// caller's cos/sin cache reaches, below it; a negative id where the kernel
// takes none, by its magnitude)
// among the declared ones, from a stream of its own: a pure function of
// (suite, seed, index, declaration), so a reproduce line naming the kernel
// rebuilds the very case. Everything else (shapes, positions, the data
// seed) stays as drawn; what no redraw can give (a head_dim past the
// kernel's bound, multi-axis positions, strides) is still skipped, and the
// skip table counts it.
#ifndef ROPECHECK_CORE_CASES_CASE_FIT_H_
#define ROPECHECK_CORE_CASES_CASE_FIT_H_

#include <cstdint>

#include "core/cases/cases.h"

namespace ropecheck {

// What a kernel declares, as far as a redraw can follow it: ABI masks
// (bit 1 << enum) and the ROPECHECK_CAP_* flags of direction, placement and
// position dtype.
struct DeclaredChoices {
  std::uint32_t dtypes = 0, layouts = 0, schemes = 0, flags = 0;
  // The declared max_position (ABI 1.5; 0: none): an id at or past it is
  // redrawn below it, as is one past what a caller's cos/sin cache can be
  // indexed by (flags' CALLER_COS_SIN_CACHE: caller_cache_position_limit).
  std::int64_t max_position = 0;
  // False keeps the case's layout or scheme (a --config fixes them: a
  // kernel without the model's scheme is skipped, not judged on another).
  bool redraw_layout = true, redraw_scheme = true;
};

// Everything `impl` declares, each choice redrawn (the gate's default; a
// --config keeps the scheme and layout, --no-redraw every choice).
DeclaredChoices declared_choices(const ropecheck_impl_t& impl);

// `c` itself when it lies inside `d` on every choice above (or nothing
// declared could replace it); otherwise `c` with the choices outside `d`
// redrawn. *redrawn (optional) tells which.
Case fit_case(const Case& c, const DeclaredChoices& d, bool* redrawn = nullptr);

// A case fixed in advance (a golden vector's) keeps every id: its position
// buffer takes the dtype `flags` declare (ROPECHECK_CAP_POS_INT32/INT64)
// where the case's is not declared and every id fits the other losslessly;
// otherwise it is `c` (and outside_capabilities skips it).
Case in_declared_position_dtype(const Case& c, std::uint32_t flags);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_CASE_FIT_H_
