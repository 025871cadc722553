// SPDX-License-Identifier: MIT
// Whether a case lies inside what an implementation declares, and the cos/sin cache limit.
#include "core/kernel/declared_capabilities.h"

#include <atomic>
#include <string>

#include "core/cases/buffers.h"
#include "core/cases/cos_sin_cache_case.h"
#include "core/kernel/caller_cos_sin_cache.h"
#include "ropecheck/axes.h"
#include "ropecheck/capabilities.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

// Elements a cache may hold before a case is declined for a cache kernel:
// 64 MiB of fp32 keeps a case under a second on CI machines. Atomic: gate
// threads (--jobs) read it while a harness may set it.
std::atomic<std::int64_t> g_max_cache_elements{std::int64_t{1} << 24};

// Whether a cache of `rows` rows fits what ropecheck hands impl: the
// kernel's own cache (built whole by its build_cache) up to the element
// limit; the caller's (1.6: only its named rows written, the rest reserved
// address space, core/kernel/caller_cos_sin_cache.h) up to its byte limit,
// counted in fp32 whatever dtype the case draws.
bool cache_fits(const ropecheck_impl_t& impl, const Case& c, std::int64_t rows) {
  if (impl.caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)
    return rows <= caller_cache_position_limit(c.shape.rotary_dim);
  return rows * c.shape.rotary_dim <= g_max_cache_elements;
}

}  // namespace

void set_max_cache_elements(std::int64_t n) { g_max_cache_elements = n; }
std::int64_t max_cache_elements() { return g_max_cache_elements; }

std::int64_t cos_sin_cache_rows(const ropecheck_impl_t& impl, const Case& c) {
  const std::int64_t rows = c.cos_sin_cache_rows();
  const bool fits = cache_fits(impl, c, rows) && (impl.max_position <= 0 || rows <= impl.max_position);
  return fits ? rows : c.max_abs_position() + 1;
}

std::string outside_capabilities(const ropecheck_impl_t& impl, const Case& c) {
  const ropecheck_caps_t& k = impl.caps;
  if (!(k.layouts & (1u << c.layout))) return "layout " + std::string(layout_name(c.layout));
  if (!(k.dtypes & (1u << c.dtype))) return "dtype " + std::string(dtype_name(c.dtype));
  if (!(k.schemes & (1u << c.freq.scheme))) return "scheme " + std::string(scheme_name(c.freq.scheme));
  if (const char* why = outside_spec_flags(k.flags, c.freq.scheme, c.freq.truncate, c.freq.attention_factor ? 1 : 0,
                                           c.freq.seq_len, c.freq.original_max_position, c.freq.mscale,
                                           c.freq.mscale_all_dim))
    return why;
  if (static_cast<std::uint32_t>(c.shape.head_dim) > k.max_head_dim) return "head_dim";
  if (c.shape.rotary_dim < c.shape.head_dim && !(k.flags & ROPECHECK_CAP_PARTIAL_ROTARY))
    return "partial rotary";
  if (c.direction == ROPECHECK_DIRECTION_INVERSE && !(k.flags & ROPECHECK_CAP_INVERSE))
    return "inverse direction";
  if (!(k.flags & (c.in_place ? ROPECHECK_CAP_IN_PLACE : ROPECHECK_CAP_OUT_OF_PLACE)))
    return c.in_place ? "in-place" : "out-of-place";
  if (!(k.flags & (c.position_type == ROPECHECK_INDEX_INT32 ? ROPECHECK_CAP_POS_INT32
                                                            : ROPECHECK_CAP_POS_INT64)))
    return "position dtype";
  bool negative = false, past_int32 = false;
  for (auto p : c.positions) negative |= p < 0, past_int32 |= !fits_int32_position(p);
  // An int32 call cannot carry the id (core/cases/case_fit.h redraws such
  // ids; a case fixed in advance, a golden one, is skipped): narrowing it
  // would judge the kernel on a position it was never given.
  if (past_int32 && c.position_type == ROPECHECK_INDEX_INT32)
    return "positions past int32 in an int32 position buffer";
  // A cache, the kernel's own or the caller's (1.6), has no negative row.
  const std::uint32_t any_cache = ROPECHECK_CAP_COS_SIN_CACHE | ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
  if (negative && (!(k.flags & ROPECHECK_CAP_NEGATIVE_POSITIONS) || (k.flags & any_cache)))
    return "negative positions";
  if (c.axes.multi()) {
    if (!(k.flags & axis_assignment_cap(c.axes.assignment)) || impl.abi_minor < 3)
      return "multi-axis positions, " + std::string(axis_assignment_name(c.axes.assignment)) +
             " assignment (needs AXES_" + std::string(axis_assignment_name(c.axes.assignment)) + ", ABI 1.3)";
    if (c.axes.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS && !(k.flags & ROPECHECK_CAP_AXIS_FREQUENCIES))
      return "per-axis frequencies (needs AXIS_FREQUENCIES, ABI 1.3)";
  }
  if (!call_strides(c, geometry(c), (k.flags & ROPECHECK_CAP_SEQ_STRIDES) != 0))
    return "batched sequences with a stride between them (" + std::string(memory_layout_name(c.memory)) +
           ", seq_len " + std::to_string(c.batch_seq_len()) + "; needs SEQ_STRIDES, ABI 1.2)";
  if (impl.max_position > 0 && c.max_abs_position() >= impl.max_position)
    return "positions at or beyond max_position " + std::to_string(impl.max_position);
  if ((k.flags & any_cache) && !cache_fits(impl, c, c.max_abs_position() + 1)) {
    if (k.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)
      return "a cos/sin cache indexed by position past " + std::to_string(caller_cache_byte_limit() >> 20) +
             " MiB of address space (the caller's, ABI 1.6; its rows are indexed by position id)";
    return "cos/sin cache over the limit of " + std::to_string(g_max_cache_elements) + " elements";
  }
  if ((k.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE) && c.caller_cache_dtype &&
      !cos_sin_cache_dtype_accepted(impl.cos_sin_cache_dtypes, *c.caller_cache_dtype, c.dtype))
    return "the case's cos/sin cache in " + std::string(dtype_name(*c.caller_cache_dtype)) +
           " (it declares other cos_sin_cache_dtypes)";
  return {};
}

}  // namespace ropecheck
