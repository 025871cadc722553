// SPDX-License-Identifier: MIT
// The one case generator: a suite's case as a pure function of (suite, seed, index).
#include "core/cases/cases.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>

#include "core/cases/axis_cases.h"
#include "core/error_model/error_model.h"
#include "core/cases/size_classes.h"
#include "ropecheck/dtype.h"
#include "ropecheck/numbers.h"

namespace ropecheck {
namespace {

// Position edges every generator aims at, capped per case.
constexpr std::int64_t kEdgePositions[] = {0, 1, 2, 4095, 4096, 65536, 1 << 20,
                                           1 << 24, 2147483647};

// YaRN's factor, betas, truncation and attention scaling, redrawn off the
// cliffs where one ulp of the ramp's bounds moves a pair (yarn_near_cliff).
void draw_yarn(Choices& rng, int rotary_dim, ref::FreqSpec& f) {
  for (int tries = 0;; ++tries) {
    f.factor = rng.chance(0.5) ? rng.pick({4.0, 8.0, 10.0, 16.0, 32.0, 40.0}) : rng.uniform(1.2, 40);
    f.beta_fast = rng.chance(0.7) ? 32.0 : rng.uniform(4, 64);
    f.beta_slow = rng.chance(0.7) ? 1.0 : rng.uniform(0.25, std::min(4.0, f.beta_fast / 2));
    f.truncate = rng.chance(0.6);
    f.mscale = f.mscale_all_dim = 0;
    f.attention_factor.reset();
    const auto a = rng.below(4);
    if (a == 0) f.attention_factor = rng.uniform(0.5, 2.0);
    if (a == 1) {
      f.mscale = rng.uniform(0.5, 1.5);
      f.mscale_all_dim = rng.uniform(0.5, 1.5);
    }
    if (!yarn_near_cliff(f, rotary_dim)) break;
    // A source that repeats itself (a fuzzer out of bytes, RapidCheck
    // shrinking) may redraw the same cliff forever: untruncated YaRN has
    // none.
    if (tries == 63) {
      f.truncate = false;
      break;
    }
  }
}

// Llama 3.1's factors, aimed at the blend band's edges.
void draw_llama3(Choices& rng, int rotary_dim, ref::FreqSpec& f) {
  const int pairs = rotary_dim / 2;
  f.factor = rng.chance(0.5) ? 8.0 : rng.uniform(2, 32);
  f.low_freq_factor = rng.chance(0.5) ? 1.0 : rng.uniform(0.5, 2.0);
  f.high_freq_factor = rng.chance(0.5) && f.low_freq_factor < 4 ? 4.0
                                                                 : f.low_freq_factor * rng.uniform(1.5, 8);
  // Aim at the band edges (the bug class of transformers PR #32330: a
  // pair near an edge put in the wrong band): move each factor so that a
  // drawn pair's wavelength lies a fraction delta inside the blend band,
  // pair j at the high-frequency edge L / hf, pair k at L / lf.
  if (rng.chance(0.8)) {
    const double L = static_cast<double>(f.original_max_position);
    for (const bool high_edge : {true, false}) {
      const int j = static_cast<int>(rng.range(0, pairs - 1));
      const double wavelen = kTwoPi * std::pow(f.base, 2.0 * j / rotary_dim);
      const double delta = rng.uniform(1e-4, 0.03);
      const double moved = high_edge ? L / (wavelen * (1 - delta)) : L / (wavelen * (1 + delta));
      if (moved >= 1e-2 && moved <= 1e4 &&
          (high_edge ? moved >= f.low_freq_factor : moved <= f.high_freq_factor))
        (high_edge ? f.high_freq_factor : f.low_freq_factor) = moved;
    }
  }
  // Llama 4 Scout: low_freq_factor == high_freq_factor, no blend band.
  if (rng.chance(0.15)) f.high_freq_factor = f.low_freq_factor;
}

// LongRoPE's per-pair factors and the sequence length that picks them.
void draw_longrope(Choices& rng, int pairs, ref::FreqSpec& f) {
  f.factor = rng.uniform(1.5, 32);
  f.seq_len = rng.range(1, 2 * f.original_max_position);
  if (rng.chance(0.25)) f.seq_len = f.original_max_position + rng.range(0, 1);  // the switch
  f.short_factor.resize(pairs);
  f.long_factor.resize(pairs);
  for (int i = 0; i < pairs; ++i) {
    f.short_factor[i] = rng.uniform(0.8, 1.6);
    f.long_factor[i] = rng.log_uniform(1.0, 64.0);
  }
  if (rng.chance(0.3)) f.attention_factor = rng.uniform(0.5, 2.0);
}

}  // namespace

ref::FreqSpec draw_scheme(Choices& rng, int rotary_dim, ropecheck_scheme_t scheme) {
  ref::FreqSpec f;
  const int pairs = rotary_dim / 2;
  constexpr double kBases[] = {10000.0, 500000.0, 1000000.0, 150000.0, 100.0};
  f.base = rng.chance(0.7) ? rng.pick(kBases) : rng.log_uniform(2.0, 1e7);
  constexpr std::int64_t kLs[] = {2048, 4096, 8192, 32768};
  f.original_max_position = rng.pick(kLs);
  f.scheme = scheme;
  if (rotary_dim < 4 && (f.scheme == ROPECHECK_SCHEME_NTK_AWARE ||
                         f.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK))
    f.scheme = ROPECHECK_SCHEME_DEFAULT;
  switch (f.scheme) {
    case ROPECHECK_SCHEME_LINEAR:
    case ROPECHECK_SCHEME_NTK_AWARE:
      f.factor = rng.chance(0.5) ? static_cast<double>(1 << rng.range(1, 4)) : rng.uniform(1.1, 16);
      break;
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      f.factor = rng.uniform(1.0, 8.0);
      f.seq_len = rng.range(f.original_max_position / 4, 8 * f.original_max_position);
      break;
    case ROPECHECK_SCHEME_YARN:
      draw_yarn(rng, rotary_dim, f);
      break;
    case ROPECHECK_SCHEME_LLAMA3:
      draw_llama3(rng, rotary_dim, f);
      break;
    case ROPECHECK_SCHEME_LONGROPE:
      draw_longrope(rng, pairs, f);
      break;
    case ROPECHECK_SCHEME_EXPLICIT:
      f.inv_freq.resize(pairs);
      for (int i = 0; i < pairs; ++i) f.inv_freq[i] = rng.log_uniform(1e-7, 2.0);
      if (rng.chance(0.1)) f.inv_freq[rng.below(pairs)] = 0.0;
      break;
    default:
      break;
  }
  return f;
}

namespace {

ref::HeadShape draw_shape(Choices& rng, bool wide) {
  constexpr int kHeadDims[] = {64, 80, 96, 128, 128, 256};
  ref::HeadShape s;
  const double r = rng.uniform();
  if (r < 0.7) {
    s.head_dim = rng.pick(kHeadDims);
  } else if (r < 0.85 || !wide) {
    s.head_dim = static_cast<int>(rng.range(2, 256));  // odd head_dim included
  } else {
    s.head_dim = static_cast<int>(rng.range(257, 512));
  }
  const int max_even = s.head_dim - s.head_dim % 2;
  const double p = rng.uniform();
  if (p < 0.6 || max_even < 4) {
    s.rotary_dim = max_even;
  } else if (p < 0.8) {
    s.rotary_dim = std::max(2, (s.head_dim / 4) & ~1);  // GPT-NeoX rotary_pct 0.25
  } else {
    s.rotary_dim = 2 * static_cast<int>(rng.range(1, max_even / 2));
  }
  return s;
}

// Memory layout, batched sequences and thread count of a drawn case.
void draw_memory(Choices& rng, Case* c) {
  const double m = rng.uniform();
  c->memory = m < 0.5    ? MemoryLayout::kTokenMajor
              : m < 0.7  ? MemoryLayout::kHeadMajor
              : m < 0.85 ? MemoryLayout::kFusedQkv
                         : MemoryLayout::kSplitStrides;
  if (c->memory == MemoryLayout::kFusedQkv) c->head_pad = 0;  // a projection's heads lie back to back
  c->seq_len = 0;
  c->seq_pad = 0;
  if (c->tokens > 1 && rng.chance(0.4)) {  // a batch: tokens split into equal sequences
    std::vector<std::int64_t> divisors;
    for (std::int64_t d = 1; d < c->tokens; ++d)
      if (c->tokens % d == 0) divisors.push_back(d);
    c->seq_len = divisors[rng.below(divisors.size())];
    if (rng.chance(0.5)) c->seq_pad = static_cast<int>(rng.range(1, 8));
  }
  c->num_threads = rng.chance(0.5) ? 0 : static_cast<int>(rng.range(1, 4));
}

}  // namespace

const char* memory_layout_name(MemoryLayout m) {
  switch (m) {
    case MemoryLayout::kTokenMajor: return "token_major";
    case MemoryLayout::kHeadMajor: return "head_major";
    case MemoryLayout::kFusedQkv: return "fused_qkv";
    case MemoryLayout::kSplitStrides: return "split_strides";
  }
  return "?";
}

const char* suite_name(Suite s) {
  switch (s) {
    case Suite::kQuick: return "quick";
    case Suite::kStandard: return "standard";
    case Suite::kExhaustive: return "exhaustive";
  }
  return "?";
}

bool parse_suite(const std::string& s, Suite* out) {
  for (Suite v : {Suite::kQuick, Suite::kStandard, Suite::kExhaustive})
    if (s == suite_name(v)) {
      *out = v;
      return true;
    }
  return false;
}

int suite_size(Suite s) {
  switch (s) {
    case Suite::kQuick: return 120;
    case Suite::kStandard: return 600;
    case Suite::kExhaustive: return 4000;
  }
  return 0;
}

CaseLimits suite_limits(Suite s) {
  CaseLimits l;
  // Quick and standard reach 2^20, exhaustive int32 max and below zero.
  l.wide_head_dims = s != Suite::kQuick;
  l.max_log2_position = s == Suite::kExhaustive ? 31 : 20;
  l.negative_chance = s == Suite::kExhaustive ? 0.05 : 0.0;
  return l;
}

Case draw_case(Choices& rng, const CaseLimits& lim) {
  Case c;
  c.shape = draw_shape(rng, lim.wide_head_dims);
  c.freq = draw_scheme(rng, c.shape.rotary_dim,
                       static_cast<ropecheck_scheme_t>(rng.below(ROPECHECK_SCHEME_COUNT)));
  c.layout = rng.chance(0.5) ? ROPECHECK_LAYOUT_INTERLEAVED : ROPECHECK_LAYOUT_HALF_SPLIT;
  const double dt = rng.uniform();
  c.dtype = dt < 0.5 ? ROPECHECK_DTYPE_F32 : dt < 0.75 ? ROPECHECK_DTYPE_F16 : ROPECHECK_DTYPE_BF16;
  c.direction = rng.chance(0.2) ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
  c.tokens = rng.range(1, lim.max_tokens);
  c.kv_heads = static_cast<int>(rng.range(1, lim.max_kv_heads));
  c.q_heads = c.kv_heads * static_cast<int>(rng.range(1, lim.max_group));  // GQA groups
  c.in_place = rng.chance(0.5);
  if (rng.chance(0.5)) {
    c.head_pad = static_cast<int>(rng.range(1, 8));
    c.token_pad = static_cast<int>(rng.range(0, 16));
  }
  // Context scale of this case, capped by the limits.
  constexpr int kScales[] = {4, 10, 12, 16, 20, 24, 31};
  int scale = kScales[rng.below(7)];
  if (scale > lim.max_log2_position) scale = lim.max_log2_position;
  const std::int64_t limit =
      scale >= 31 ? std::int64_t{2147483647} : (std::int64_t{1} << scale);
  for (std::int64_t t = 0; t < c.tokens; ++t) {
    std::int64_t p;
    if (rng.chance(0.3)) {
      p = kEdgePositions[rng.below(std::size(kEdgePositions))];
      if (p > limit) p = limit;
    } else if (t > 0 && rng.chance(0.15)) {
      p = c.positions[rng.below(c.positions.size())];  // duplicate
    } else {
      p = rng.range(0, limit);
    }
    if (lim.negative_chance > 0 && rng.chance(lim.negative_chance)) p = -p;
    c.positions.push_back(p);
  }
  c.position_type = rng.chance(0.5) ? ROPECHECK_INDEX_INT32 : ROPECHECK_INDEX_INT64;
  c.data_seed = rng.bits();
  // Drawn last, so that every earlier decision of a case keeps the value it
  // had before memory layouts existed.
  if (lim.memory_layouts) draw_memory(rng, &c);
  return c;
}

Case make_case(Suite suite, std::uint64_t seed, int index) {
  Rng rng(seed, static_cast<std::uint64_t>(index));
  Case c = draw_case(rng, suite_limits(suite));
  c.index = index;  // the size classes read it (the quick suite's one long prefill past 4096 tokens)
  reshape_to_class(rng, suite, size_class_of(suite, seed, index), &c);
  // Every eighth case past the size-class cycle is multi-axis, drawn last so
  // the 1D cases keep the values they had before multi-axis cases existed.
  // The first kSizeClassCount * 4 cases (every class four times) stay 1D, so
  // runs of a few cases judge every 1D property as before.
  if (is_multi_axis_index(index)) make_multi_axis(rng, multi_axis_family_of(index), &c);
  c.suite = suite;
  c.seed = seed;
  c.index = index;
  return c;
}

std::span<const std::int64_t> edge_positions() { return kEdgePositions; }

std::string Case::family() const {
  return axes.multi() ? axis_family_name(*this) : std::string(scheme_name(freq.scheme));
}

std::vector<std::int64_t> Case::positions_of(const std::vector<std::int64_t>& picked) const {
  std::vector<std::int64_t> ids;
  ids.reserve(picked.size() * static_cast<std::size_t>(axis_count()));
  for (const std::int64_t t : picked)
    for (int a = 0; a < axis_count(); ++a) ids.push_back(position(t, a));
  return ids;
}

std::string Case::token_positions(std::int64_t token) const {
  if (!axes.multi()) return std::to_string(position(token));
  std::string s = "(";
  for (int a = 0; a < axis_count(); ++a) s += (a ? "," : "") + std::to_string(position(token, a));
  return s + ")";
}

std::int64_t Case::max_abs_position() const {
  std::int64_t m = 0;
  for (auto p : positions) m = std::max(m, abs_position(p));
  return m;
}

std::string Case::describe() const {
  std::ostringstream os;
  os << "head_dim=" << shape.head_dim << " rotary_dim=" << shape.rotary_dim << " "
     << layout_name(layout) << " " << dtype_name(dtype)
     << (direction == ROPECHECK_DIRECTION_INVERSE ? " inverse" : "") << " tokens=" << tokens
     << " q_heads=" << q_heads << " kv_heads=" << kv_heads << " "
     << (in_place ? "in-place" : "out-of-place") << " pad=" << head_pad << "/" << token_pad << " "
     << memory_layout_name(memory);
  if (batch_seq_len() > 0) os << " seq_len=" << batch_seq_len() << " seq_pad=" << seq_pad;
  if (num_threads > 0) os << " threads=" << num_threads;
  if (axes.multi()) os << " axes=" << axes.describe() << " axis_pad=" << axis_pad;
  os << " " << size_class_name(size_class) << " positions(" << (position_type == ROPECHECK_INDEX_INT32 ? "i32" : "i64") << ")=[";
  // A long case names its first and last positions (the case index rebuilds them all).
  const auto n = static_cast<std::size_t>(tokens);
  for (std::size_t i = 0; i < n; ++i) {
    if (n > 24 && i == 8) {
      os << ",...(" << n << " tokens)...";
      i = n - 4;
    }
    os << (i ? "," : "") << token_positions(static_cast<std::int64_t>(i));
  }
  os << "] " << freq.describe();
  return os.str();
}

namespace {

// One body for both draw_input overloads: Ch is Choices (any source) or the
// final Rng, whose draws then inline.
template <class Ch>
double draw_input_from(Ch& rng, ropecheck_dtype_t dtype) {
  const DtypeFormat f = dtype_format(dtype);
  const double sign = rng.chance(0.5) ? -1.0 : 1.0;
  const double u = rng.uniform();
  if (u < 0.02) return sign * 0.0;
  if (u < 0.04) return sign * std::ldexp(1.0, f.emin - f.precision + 1);  // smallest subnormal
  if (u < 0.05) return sign * std::ldexp(1.0, f.emin);                    // smallest normal
  if (u < 0.06) return sign * std::ldexp(static_cast<double>(rng.range(1, (std::int64_t{1} << (f.precision - 1)) - 1)),
                                         f.emin - f.precision + 1);       // random subnormal
  // Normal value: random significand bits, exponent over [-6, 3]: the
  // double (1 + mant 2^(1-p)) 2^e written as its bits (two ldexp calls per
  // element were most of drawing a case's inputs).
  const int e = static_cast<int>(rng.range(-6, 3));
  const std::int64_t mant = rng.range(0, (std::int64_t{1} << (f.precision - 1)) - 1);
  const std::uint64_t bits = (static_cast<std::uint64_t>(e + 1023) << 52) |
                             (static_cast<std::uint64_t>(mant) << (53 - f.precision)) |
                             (sign < 0 ? std::uint64_t{1} << 63 : 0);
  return std::bit_cast<double>(bits);
}

}  // namespace

double draw_input(Choices& ch, ropecheck_dtype_t dtype) { return draw_input_from(ch, dtype); }
double draw_input(Rng& rng, ropecheck_dtype_t dtype) { return draw_input_from(rng, dtype); }

}  // namespace ropecheck
