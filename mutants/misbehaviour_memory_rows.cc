// SPDX-License-Identifier: MIT
// The misbehaviours aimed at the buffers of the call: writing outside the
// output (overrun, underrun), leaving some of it unwritten, reading it
// (reads_output, poison_sniffer), and writing into the inputs it was given
// (positions, q_in, the frequency spec, a cos/sin cache).
#include <cmath>
#include <cstring>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "mutants/kept_results.h"
#include "mutants/misbehaviour_rows.h"
#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"

namespace ropecheck::mutant {
namespace {

using Status = std::optional<ropecheck_status_t>;

std::size_t storage_size(const ropecheck_apply_params_t* p) {
  return dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
}

Status overrun(MisbehavingCall& c) {
  if (c.big) static_cast<volatile unsigned char*>(c.p->q_out)[q_bytes(c.p)] = 1;
  return std::nullopt;
}

Status underrun(MisbehavingCall& c) {
  if (c.big) {
    const std::size_t es = storage_size(c.p);
    volatile unsigned char* before = static_cast<unsigned char*>(c.p->q_out) - es;
    for (std::size_t i = 0; i < es; ++i) before[i] = 0;
  }
  return std::nullopt;
}

// unwritten: the output of the last rotated channel of every q head, as it was.
Status keep_q_out(MisbehavingCall& c) {
  if (c.out_of_place)
    c.before.assign(static_cast<const unsigned char*>(c.p->q_out),
                    static_cast<const unsigned char*>(c.p->q_out) + q_bytes(c.p));
  return std::nullopt;
}

void restore_last_channel(MisbehavingCall& c) {
  if (!c.out_of_place) return;
  const ropecheck_apply_params_t* p = c.p;
  const std::size_t es = storage_size(p);
  for (std::int64_t t = 0; t < p->num_tokens; ++t)
    for (int h = 0; h < p->num_q_heads; ++h) {
      int a, b;
      pair_channels(p->layout, p->rotary_dim, p->rotary_dim / 2 - 1, &a, &b);
      const auto at = static_cast<std::size_t>(t * p->q_token_stride + h * p->q_head_stride + b) * es;
      std::memcpy(static_cast<unsigned char*>(p->q_out) + at, c.before.data() + at, es);
    }
}

// The control's rotation, reading each output element before writing it:
// where the byte it finds there is odd it evaluates the rotation in double
// (rounded once), else in fp32. Both are within the declared fp32 policy,
// but the result now depends on what the output held.
Status reads_output(MisbehavingCall& call) {
  const ropecheck_apply_params_t* p = call.p;
  const int d = p->rotary_dim, pairs = d / 2;
  const auto f = impl::engine_frequencies<double>(*p->freq, d);
  const double sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1 : 1;
  std::vector<float> c(pairs), s(pairs);
  impl::for_each_head(*p, [&](std::int64_t t) { return impl::position_at(p, t); }, [&](const impl::HeadRef& h) {
    for (int i = 0; i < pairs; ++i) {
      const double a = static_cast<double>(h.position) * f.inv_freq[i];
      c[i] = static_cast<float>(f.attention_factor * std::cos(a));
      s[i] = static_cast<float>(sign * f.attention_factor * std::sin(a));
      int ia, ib;
      pair_channels(p->layout, d, i, &ia, &ib);
      const float x = impl::load_f32(h.in, h.offset + ia, p->dtype), y = impl::load_f32(h.in, h.offset + ib, p->dtype);
      const auto* old = static_cast<const unsigned char*>(h.out) + (h.offset + ia) * storage_size(p);
      const bool wide = h.in != h.out && (*old & 1);
      const float xa = wide ? static_cast<float>(static_cast<double>(x) * c[i] - static_cast<double>(y) * s[i]) : x * c[i] - y * s[i];
      const float yb = wide ? static_cast<float>(static_cast<double>(x) * s[i] + static_cast<double>(y) * c[i]) : x * s[i] + y * c[i];
      impl::store_f32(h.out, h.offset + ia, p->dtype, xa);
      impl::store_f32(h.out, h.offset + ib, p->dtype, yb);
    }
  });
  return ROPECHECK_OK;
}

// Tells the harness's poison from a production buffer: computes only when
// every output element it looks at is a NaN.
Status poison_sniffer(MisbehavingCall& c) {
  const ropecheck_apply_params_t* p = c.p;
  if (!c.out_of_place) return std::nullopt;
  const std::size_t es = storage_size(p);
  bool all_nan = true;
  for (std::size_t i = 0; i + es <= q_bytes(p) && all_nan; i += es * 7)
    all_nan = std::isnan(impl::load_f32(p->q_out, static_cast<std::int64_t>(i / es), p->dtype));
  if (all_nan) return std::nullopt;
  std::memcpy(p->q_out, p->q_in, q_bytes(p));
  if (k_bytes(p)) std::memcpy(p->k_out, p->k_in, k_bytes(p));
  return ROPECHECK_OK;
}

void writes_positions(MisbehavingCall& c) {
  static_cast<unsigned char*>(const_cast<void*>(c.p->positions))[0] ^= 1;
}

void writes_q_in(MisbehavingCall& c) {
  if (c.out_of_place) static_cast<unsigned char*>(const_cast<void*>(c.p->q_in))[0] ^= 1;
}

void writes_freq(MisbehavingCall& c) { const_cast<ropecheck_freq_spec_t*>(c.p->freq)->base *= 2; }

// The sign bit of row 0's first cos.
void writes_cache(MisbehavingCall& c) {
  if (c.p->cos_sin_cache) static_cast<unsigned char*>(const_cast<void*>(c.p->cos_sin_cache))[3] ^= 0x80;
}

// A byte of its first position's row of the cache it was handed (the
// caller's, or its own), flipped and put back.
void restores_cache(MisbehavingCall& c) {
  const ropecheck_apply_params_t* p = c.p;
  if (!p->cos_sin_cache || p->num_tokens <= 0) return;
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->cache_dtype));
  auto* at = static_cast<volatile unsigned char*>(const_cast<void*>(p->cos_sin_cache)) +
             static_cast<std::size_t>(impl::position_at(p, 0)) * static_cast<std::size_t>(p->rotary_dim) * es;
  *at = static_cast<unsigned char>(*at ^ 0x80);
  *at = static_cast<unsigned char>(*at ^ 0x80);
}

}  // namespace

void add_memory_rows(MisbehaviourRows& rows) {
  row_of(rows, Misbehaviour::overrun).before = overrun;
  row_of(rows, Misbehaviour::underrun).before = underrun;
  row_of(rows, Misbehaviour::unwritten) = {.before = keep_q_out, .after_any = nullptr, .after = restore_last_channel};
  row_of(rows, Misbehaviour::reads_output).before = reads_output;
  row_of(rows, Misbehaviour::poison_sniffer).before = poison_sniffer;
  row_of(rows, Misbehaviour::writes_positions).after = writes_positions;
  row_of(rows, Misbehaviour::writes_q_in).after = writes_q_in;
  row_of(rows, Misbehaviour::writes_freq).after = writes_freq;
  row_of(rows, Misbehaviour::writes_cache).after = writes_cache;
  row_of(rows, Misbehaviour::restores_caller_cache).after = restores_cache;
  row_of(rows, Misbehaviour::restores_own_cache).after = restores_cache;
}

}  // namespace ropecheck::mutant
