// SPDX-License-Identifier: MIT
// The definitions of fuzz/differential/fuzz_case.h.
#include "fuzz/differential/fuzz_case.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstring>

#include "core/cases/axis_cases.h"
#include "core/cases/case_fit.h"
#include "core/kernel/declared_capabilities.h"
#include "fuzz/differential/fuzzed_choices.h"
#include "ropecheck/abi_caps.h"

namespace ropecheck::fuzz {

CaseLimits fuzz_limits() {
  CaseLimits limits;
  limits.max_log2_position = 31;
  limits.negative_chance = 0.1;
  limits.max_tokens = 3;
  limits.max_kv_heads = 2;
  limits.max_group = 2;
  return limits;
}

FuzzInput decode_input(const std::uint8_t* data, std::size_t size, bool multi_axis) {
  FuzzedDataProvider fdp(data, size);
  FuzzedChoices ch(fdp);
  FuzzInput in;
  // The form first: its choices take the input's first bytes, so that
  // libFuzzer's short early inputs (a few dozen bytes, fewer than a case's
  // choices read) reach every form, not only the rotation alone.
  // A kernel fused with a qk-norm gets it on half the inputs.
  in.with_norm = ch.below(2) == 1;
  // A quarter of the inputs are multi-axis (ABI 1.3): every family of
  // core/cases/axis_cases.h. Asked as "not 1D" so that an input whose
  // bytes ran out (every choice 0) stays 1D, the simplest case: chance(0.25)
  // is true on a 0.
  const bool multi = multi_axis && !ch.chance(0.75);
  const int family = multi ? static_cast<int>(ch.below(kAxisFamilyCount)) : 0;
  // The streams of the fused parts and of the fit derive from (seed,
  // index), as a suite's case does: drawn here, every write, norm and
  // cache dtype a suite could give is reachable (the index also cycles
  // the KV cache's dtype among the declared ones). The index early too
  // (two bytes): a short input still varies the fused part.
  const int index = static_cast<int>(ch.below(1u << 16));
  in.drawn = draw_case(ch, fuzz_limits());
  if (multi) make_multi_axis(ch, family, &in.drawn);
  in.drawn.index = index;
  in.drawn.seed = ch.bits();
  in.poison = static_cast<PoisonKind>(ch.below(kPoisonKinds));
  in.raw = fdp.ConsumeRemainingBytes<std::uint8_t>();
  return in;
}

Case case_for(const ropecheck_impl_t& impl, const Case& drawn) {
  DeclaredChoices d = declared_choices(impl);
  // A kernel building its own cos/sin cache gets ids within the cache the
  // fuzzer builds (set_max_cache_elements), redrawn there by the fit as ids
  // past a declared max_position are: skipped instead, a quarter of its
  // inputs went to waste.
  if (impl.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) {
    const std::int64_t rows = max_cache_elements() / std::max(drawn.shape.rotary_dim, 1);
    d.max_position = d.max_position > 0 ? std::min(d.max_position, rows) : rows;
  }
  Case c = fit_case(drawn, d);
  if (c.axes.multi() && !outside_capabilities(impl, c).empty()) {
    Case one = drawn;
    keep_first_axis(&one);
    Case f = fit_case(one, d);
    if (outside_capabilities(impl, f).empty()) return f;
  }
  return c;
}

QkBuffers fuzz_inputs(const Case& c, const std::vector<std::uint8_t>& raw, bool raw_bits, bool* wrote) {
  QkBuffers in = make_inputs(c);
  if (wrote) *wrote = false;
  if (!raw_bits || raw.empty()) return in;
  const Geometry g = geometry(c);
  std::size_t at = 0;
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[static_cast<std::size_t>(w)]; ++h)
        for (int j = 0; j < g.head_dim; ++j) {
          if (at >= raw.size()) return in;
          if ((raw[at++] & 7) < 5) continue;
          const std::size_t n = std::min(g.esize, raw.size() - at);
          if (wrote) *wrote = true;
          std::memcpy(in.bytes[static_cast<std::size_t>(w)].data() + g.offset(w, t, h, j) * g.esize, raw.data() + at, n);
          at += n;
        }
  return in;
}

}  // namespace ropecheck::fuzz
