// SPDX-License-Identifier: MIT
// The definitions of impls/kernel_support/abi_check.h: set_error, the frequency spec's check, and check_apply's table of checkers.
#include "impls/kernel_support/abi_check.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "impls/kernel_support/abi_checkers.h"

namespace ropecheck::impl {

void set_error(char* err, std::size_t err_size, const char* fmt, ...) {
  if (err == nullptr || err_size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
}

namespace {

bool positive_finite(double v) { return std::isfinite(v) && v > 0.0; }

}  // namespace

ropecheck_status_t check_freq_spec(const ropecheck_freq_spec_t* f, int d, char* err,
                                   std::size_t n) {
  if (f == nullptr) {
    set_error(err, n, "freq: must not be null");
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (f->scheme >= ROPECHECK_SCHEME_COUNT) {
    set_error(err, n, "freq.scheme: must be < %d (got %u)", ROPECHECK_SCHEME_COUNT, f->scheme);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (f->scheme != ROPECHECK_SCHEME_EXPLICIT && !(std::isfinite(f->base) && f->base > 1.0)) {
    set_error(err, n, "freq.base: must be finite and > 1 (got %g)", f->base);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (f->has_attention_factor && !positive_finite(f->attention_factor)) {
    set_error(err, n, "freq.attention_factor: must be finite and > 0 (got %g)",
              f->attention_factor);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  const bool scaled = f->scheme != ROPECHECK_SCHEME_DEFAULT && f->scheme != ROPECHECK_SCHEME_EXPLICIT;
  if (scaled && !positive_finite(f->factor)) {
    set_error(err, n, "freq.factor: must be finite and > 0 (got %g)", f->factor);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  const bool needs_L = f->scheme == ROPECHECK_SCHEME_DYNAMIC_NTK || f->scheme == ROPECHECK_SCHEME_YARN ||
                       f->scheme == ROPECHECK_SCHEME_LLAMA3 || f->scheme == ROPECHECK_SCHEME_LONGROPE;
  if (needs_L && f->original_max_position < 1) {
    set_error(err, n, "freq.original_max_position: must be >= 1 (got %lld)",
              static_cast<long long>(f->original_max_position));
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if ((f->scheme == ROPECHECK_SCHEME_NTK_AWARE || f->scheme == ROPECHECK_SCHEME_DYNAMIC_NTK) && d < 4) {
    set_error(err, n, "rotary_dim: must be >= 4 for NTK scaling (got %d)", d);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (f->scheme == ROPECHECK_SCHEME_YARN &&
      !(positive_finite(f->beta_slow) && std::isfinite(f->beta_fast) && f->beta_fast > f->beta_slow)) {
    set_error(err, n, "freq.beta_fast: must be finite and > beta_slow > 0 (got %g, %g)",
              f->beta_fast, f->beta_slow);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (f->scheme == ROPECHECK_SCHEME_LLAMA3 &&
      !(positive_finite(f->low_freq_factor) && std::isfinite(f->high_freq_factor) &&
        f->high_freq_factor >= f->low_freq_factor)) {
    set_error(err, n, "freq.high_freq_factor: must be finite and >= low_freq_factor > 0 (got %g, %g)",
              f->high_freq_factor, f->low_freq_factor);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (f->scheme == ROPECHECK_SCHEME_LONGROPE && (f->short_factor == nullptr || f->long_factor == nullptr)) {
    set_error(err, n, "freq.short_factor/long_factor: must not be null for longrope");
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (f->scheme == ROPECHECK_SCHEME_EXPLICIT && f->inv_freq == nullptr) {
    set_error(err, n, "freq.inv_freq: must not be null for explicit frequencies");
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

namespace {

using namespace checks;

// Run on every call, then (for a call with tokens) on its data.
constexpr Checker kCallCheckers[] = {check_shape, check_sequences, check_capabilities};
constexpr Checker kDataCheckers[] = {check_tensors, check_frequencies, check_axes,      check_kv_write,
                                     check_qk_norm, check_quant_out,   check_positions};

}  // namespace

ropecheck_status_t check_apply(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p,
                               char* err, std::size_t n) {
  if (p == nullptr) {
    set_error(err, n, "params: must not be null");
    return ROPECHECK_INVALID_ARGUMENT;
  }
  for (const Checker check : kCallCheckers)
    if (auto s = check(caps, p, err, n)) return s;
  if (p->num_tokens == 0) return ROPECHECK_OK;
  for (const Checker check : kDataCheckers)
    if (auto s = check(caps, p, err, n)) return s;
  return ROPECHECK_OK;
}

}  // namespace ropecheck::impl
