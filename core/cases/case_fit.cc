// SPDX-License-Identifier: MIT
// A suite's case redrawn within what a kernel declares (dtype, layout, scheme, direction, placement, position dtype).
#include "core/cases/case_fit.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/cases/cos_sin_cache_case.h"
#include "core/cases/rng.h"
#include "core/cases/size_classes.h"
#include "ropecheck/abi_caps.h"

namespace ropecheck {
namespace {

// The redraws' own stream: the suite's draw of (seed, index) is untouched,
// and the same declaration redraws the same way on every run.
constexpr std::uint64_t kFitStream = 0x6669745f63617365ull;  // "fit_case"

bool has(std::uint32_t mask, int bit) { return (mask >> bit) & 1u; }

// One of the declared values among `options`, by the options' weights (the
// suite's own proportions); -1 when none is declared.
template <std::size_t N>
int pick_declared(Rng& rng, std::uint32_t mask, const int (&options)[N], const double (&weights)[N]) {
  double total = 0;
  for (std::size_t i = 0; i < N; ++i)
    if (has(mask, options[i])) total += weights[i];
  if (!(total > 0)) return -1;
  double u = rng.uniform() * total;
  int last = -1;
  for (std::size_t i = 0; i < N; ++i) {
    if (!has(mask, options[i])) continue;
    last = options[i];
    if (u < weights[i]) return options[i];
    u -= weights[i];
  }
  return last;
}

// The ids a kernel can take: none negative unless it declares them (and
// never with a cos/sin cache, which has no negative row), every one below
// its max_position and what its caller's cache reaches. An id outside is
// redrawn inside: by its magnitude for a negative one; past the limit L,
// among L - 1 (the cache's last row), L / 2 and a uniform draw below L.
// Returns whether an id changed.
bool fit_position_range(Rng& rng, const DeclaredChoices& d, Case* f) {
  const std::uint32_t any_cache = ROPECHECK_CAP_COS_SIN_CACHE | ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
  const bool negatives = (d.flags & ROPECHECK_CAP_NEGATIVE_POSITIONS) && !(d.flags & any_cache);
  std::int64_t limit = d.max_position > 0 ? d.max_position : INT64_MAX;
  if (d.flags != ~0u && (d.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE))
    limit = std::min(limit, caller_cache_position_limit(f->shape.rotary_dim));
  bool changed = false;
  for (std::int64_t& p : f->positions) {
    if (p < 0 && !negatives && d.flags != ~0u) {
      p = abs_position(p);
      changed = true;
    }
    if (abs_position(p) < limit) continue;
    const std::int64_t options[] = {limit - 1, limit / 2, static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(limit)))};
    const std::int64_t q = options[rng.below(3)];
    p = p < 0 ? -q : q;
    changed = true;
  }
  return changed;
}

}  // namespace

DeclaredChoices declared_choices(const ropecheck_impl_t& impl) {
  DeclaredChoices d;
  d.dtypes = impl.caps.dtypes;
  d.layouts = impl.caps.layouts;
  d.schemes = impl.caps.schemes;
  d.flags = impl.caps.flags;
  d.max_position = impl.max_position;
  return d;
}

Case fit_case(const Case& c, const DeclaredChoices& d, bool* redrawn) {
  Case f = c;
  bool changed = false;
  Rng rng(c.seed ^ kFitStream, static_cast<std::uint64_t>(c.index));
  // The suite draws f32 half the time, f16 and bf16 a quarter each.
  if (!has(d.dtypes, c.dtype)) {
    const int v = pick_declared(rng, d.dtypes, {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16},
                                {2.0, 1.0, 1.0});
    if (v >= 0) f.dtype = static_cast<ropecheck_dtype_t>(v), changed = true;
  }
  if (d.redraw_layout && !has(d.layouts, c.layout)) {
    const int v =
        pick_declared(rng, d.layouts, {ROPECHECK_LAYOUT_INTERLEAVED, ROPECHECK_LAYOUT_HALF_SPLIT}, {1.0, 1.0});
    if (v >= 0) f.layout = static_cast<ropecheck_layout_t>(v), changed = true;
  }
  if (d.redraw_scheme && !has(d.schemes, c.freq.scheme)) {
    int options[ROPECHECK_SCHEME_COUNT];
    double weights[ROPECHECK_SCHEME_COUNT];
    for (int s = 0; s < ROPECHECK_SCHEME_COUNT; ++s) options[s] = s, weights[s] = 1.0;
    // Per-axis frequencies restart the formula per axis: default or linear
    // only, as core/cases/axis_cases.cc draws them.
    const std::uint32_t per_axis_schemes = (1u << ROPECHECK_SCHEME_DEFAULT) | (1u << ROPECHECK_SCHEME_LINEAR);
    const bool per_axis = c.axes.multi() && c.axes.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS;
    const int v = pick_declared(rng, per_axis ? d.schemes & per_axis_schemes : d.schemes, options, weights);
    if (v >= 0) {
      f.freq = draw_scheme(rng, c.shape.rotary_dim, static_cast<ropecheck_scheme_t>(v));
      changed = true;
    }
  }
  if (c.direction == ROPECHECK_DIRECTION_INVERSE && !(d.flags & ROPECHECK_CAP_INVERSE))
    f.direction = ROPECHECK_DIRECTION_FORWARD, changed = true;
  const std::uint32_t place = c.in_place ? ROPECHECK_CAP_IN_PLACE : ROPECHECK_CAP_OUT_OF_PLACE;
  const std::uint32_t other = c.in_place ? ROPECHECK_CAP_OUT_OF_PLACE : ROPECHECK_CAP_IN_PLACE;
  if (!(d.flags & place) && (d.flags & other)) f.in_place = !c.in_place, changed = true;
  const std::uint32_t pos = c.position_type == ROPECHECK_INDEX_INT32 ? ROPECHECK_CAP_POS_INT32 : ROPECHECK_CAP_POS_INT64;
  const std::uint32_t pos_other =
      c.position_type == ROPECHECK_INDEX_INT32 ? ROPECHECK_CAP_POS_INT64 : ROPECHECK_CAP_POS_INT32;
  if (!(d.flags & pos) && (d.flags & pos_other)) {
    f.position_type = c.position_type == ROPECHECK_INDEX_INT32 ? ROPECHECK_INDEX_INT64 : ROPECHECK_INDEX_INT32;
    changed = true;
  }
  // An id an int32 call cannot carry is never narrowed (a kernel handed
  // 2^31 as -2^31 would be judged against the int64 id: issue #48's false
  // alarm on ggml): each is redrawn among int32's own edge positions, its
  // sign kept, so the case still probes the edge its kernel declares.
  if (f.position_type == ROPECHECK_INDEX_INT32)
    for (std::int64_t& p : f.positions)
      if (!fits_int32_position(p)) {
        const std::int64_t e = rng.pick(int32_edge_positions());
        p = p < 0 ? -e : e;
        changed = true;
      }
  changed |= fit_position_range(rng, d, &f);
  if (redrawn) *redrawn = changed;
  return f;
}

Case in_declared_position_dtype(const Case& c, std::uint32_t flags) {
  const bool i32 = c.position_type == ROPECHECK_INDEX_INT32;
  if (flags & (i32 ? ROPECHECK_CAP_POS_INT32 : ROPECHECK_CAP_POS_INT64)) return c;
  if (!(flags & (i32 ? ROPECHECK_CAP_POS_INT64 : ROPECHECK_CAP_POS_INT32))) return c;
  if (!i32 && !std::all_of(c.positions.begin(), c.positions.end(), fits_int32_position)) return c;
  Case f = c;
  f.position_type = i32 ? ROPECHECK_INDEX_INT64 : ROPECHECK_INDEX_INT32;
  return f;
}

}  // namespace ropecheck
