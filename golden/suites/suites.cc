// SPDX-License-Identifier: MIT
// The golden suites: smoke's rows, standard's grid and long context's cases.
#include "golden/suites/suites.h"

#include <stdexcept>

#include "ropecheck/dtype.h"
#include "core/cases/axis_cases.h"
#include "core/cases/rng.h"
#include "golden/suites/axis_suites.h"
#include "golden/suites/fused_suites.h"
#include "golden/suites/named_specs.h"
#include "golden/suites/suite_builder.h"

namespace ropecheck::golden {
namespace {

constexpr std::int64_t k2(int e) { return std::int64_t{1} << e; }

std::string slug(ropecheck_scheme_t s, ropecheck_layout_t l, ropecheck_dtype_t t) {
  return std::string(scheme_name(s)) + "/" + std::string(layout_name(l)) + "/" + std::string(dtype_name(t));
}

constexpr ropecheck_layout_t kLayouts[] = {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED};
constexpr ropecheck_dtype_t kDtypes[] = {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16,
                                         ROPECHECK_DTYPE_F64};

// A scheme's parameters drawn as the conformance grid draws them, with the
// two regimes a golden case must pin down made explicit: dynamic NTK past
// its original length (below it, it is the default scheme).
ref::FreqSpec scheme_spec(Rng& rng, int rotary_dim, ropecheck_scheme_t scheme) {
  ref::FreqSpec f = draw_scheme(rng, rotary_dim, scheme);
  if (f.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK && f.seq_len <= f.original_max_position)
    f.seq_len = 4 * f.original_max_position;
  return f;
}

// smoke's LongRoPE one past the original length (its long factors).
ref::FreqSpec longrope_long(Rng& rng) {
  ref::FreqSpec f = draw_scheme(rng, 16, ROPECHECK_SCHEME_LONGROPE);
  f.seq_len = f.original_max_position + 1;
  f.attention_factor.reset();
  return f;
}

// The smoke suite, one row per case in id order (a new row goes before the
// multi-axis cases, which are added last so the 1D cases keep their ids and
// data seeds). The drawn specs come from one stream in the order the rows
// use them.
std::vector<GoldenCase> smoke() {
  SuiteBuilder b(1);
  constexpr ref::HeadShape h16{16, 16};
  constexpr auto HS = ROPECHECK_LAYOUT_HALF_SPLIT;
  constexpr auto IL = ROPECHECK_LAYOUT_INTERLEAVED;
  constexpr auto F32 = ROPECHECK_DTYPE_F32;
  Rng rng(0x5eed);
  const ref::FreqSpec lr = longrope_long(rng), ntk = scheme_spec(rng, 16, ROPECHECK_SCHEME_NTK_AWARE),
                      dyn = scheme_spec(rng, 16, ROPECHECK_SCHEME_DYNAMIC_NTK);
  const CaseRow rows[] = {
      {"default/half_split/f32", "HF default: base 1e4, pairs (x[i], x[i+d/2])", default_spec(), h16, HS, F32,
       {0, 1, 2, 7}},
      {"default/interleaved/f32", "Meta / GPT-J pairing of the same config: differs from half_split", default_spec(),
       h16, IL, F32, {0, 1, 2, 7}},
      {"default/half_split/bf16/gqa", "bf16 storage, 4 q heads sharing 2 k heads", default_spec(), h16, HS,
       ROPECHECK_DTYPE_BF16, {3, 4, 4095, 4096}, 4, 2},
      {"default/interleaved/f16", "fp16 storage", default_spec(500000.0), h16, IL, ROPECHECK_DTYPE_F16, {0, 9, 100}},
      {"default/half_split/f64", "fp64 storage: expected values are the exact results rounded to double",
       default_spec(), h16, HS, ROPECHECK_DTYPE_F64, {1, 65536}},
      {"partial/half_split/f32", "NeoX-style partial rotary: 8 of 32 channels rotate", default_spec(), {32, 8}, HS,
       F32, {0, 5, 31}},
      {"degenerate/rotary2/f32", "one pair per head: both layouts agree (control for the layout flags)",
       default_spec(), {6, 2}, IL, F32, {1, 2, 3}},
      {"zero-positions/half_split/f32", "every position 0: the identity (control for the layout flags)",
       default_spec(), h16, HS, F32, {0, 0}},
      {"yarn-truncate-off/half_split/f32", "gpt-oss style YaRN: fractional correction bounds", gpt_oss_yarn(), h16,
       HS, F32, {0, 4095, 4096, 65535}},
      {"yarn-mscale/interleaved/bf16", "YaRN attention factor from mscale / mscale_all_dim", mscale_yarn(), h16, IL,
       ROPECHECK_DTYPE_BF16, {1, 1000, 20000}},
      {"llama31-band-edge/half_split/f32", "Llama 3.1 bands with a pair on the L/hf edge", llama31_band_edge(), h16,
       HS, F32, {1, 12345, 91642}},
      {"longrope-long/half_split/f32", "LongRoPE one past the original length: long factors", lr, h16, HS, F32,
       {2, 3000}},
      {"ntk/interleaved/f32", "static NTK-aware scaling", ntk, h16, IL, F32, {1, 513}},
      {"dynamic-ntk/half_split/f16", "dynamic NTK past its original length", dyn, h16, HS, ROPECHECK_DTYPE_F16,
       {1, 700}},
      {"long-context/half_split/f32", "positions 2^20, 2^24 + 1 and int32 max", default_spec(), h16, HS, F32,
       {k2(20), k2(24) + 1, 2147483647}},
      {.name = "inverse/interleaved/f32", .comment = "inverse direction, and a negative position",
       .freq = default_spec(), .shape = h16, .layout = IL, .dtype = F32, .positions = {-3, 5, 100},
       .direction = ROPECHECK_DIRECTION_INVERSE},
  };
  for (const CaseRow& r : rows) b.add(r);
  add_multi_axis_cases(b, AxisCaseSize::kSmoke);
  return b.take();
}

std::vector<std::int64_t> mixed_positions(Rng& rng, int tokens, std::int64_t limit) {
  std::vector<std::int64_t> p;
  p.push_back(rng.range(0, 3));
  while (static_cast<int>(p.size()) < tokens) {
    const auto edges = edge_positions();
    std::int64_t v = rng.chance(0.3) ? edges[rng.below(edges.size())] : rng.range(0, limit);
    p.push_back(std::min(v, limit));
  }
  return p;
}

void add_models(SuiteBuilder& b, Rng& rng) {
  for (const ModelConfig& m : model_configs()) {
    const RopeConfig rc = parse_model(m);
    for (ropecheck_dtype_t t : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16}) {
      std::vector<ref::FreqSpec> specs{rc.freq};
      if (rc.freq.scheme == ROPECHECK_SCHEME_LONGROPE) {
        // Both regimes of the switch: within and past the original length.
        specs.assign(2, rc.freq);
        specs[0].seq_len = rc.freq.original_max_position;
        specs[1].seq_len = rc.freq.original_max_position * 32;
      }
      for (const auto& f : specs) {
        const std::int64_t ctx = std::max<std::int64_t>(f.original_max_position, 4096) * 4;
        GoldenCase& g = b.add({std::string(m.model) + "/" + std::string(dtype_name(t)),
                               std::string("published config: ") + m.source, f, rc.shape, m.layout, t,
                               mixed_positions(rng, 8, ctx), m.q_heads, m.kv_heads});
        g.model = m.model;
        g.extra_flags.push_back("RealModelConfig");
      }
    }
  }
}

std::vector<GoldenCase> standard() {
  SuiteBuilder b(2);
  Rng rng(0x57a4da4d);
  for (ropecheck_layout_t l : kLayouts)
    for (int s = 0; s < ROPECHECK_SCHEME_COUNT; ++s)
      for (ropecheck_dtype_t t : kDtypes) {
        const auto scheme = static_cast<ropecheck_scheme_t>(s);
        // Every fourth case rotates only half of the head.
        const ref::HeadShape shape{64, rng.chance(0.25) ? 32 : 64};
        // The positions drawn before the spec, as every export so far has them.
        std::vector<std::int64_t> positions = mixed_positions(rng, 6, k2(16));
        const ref::FreqSpec f = scheme_spec(rng, shape.rotary_dim, scheme);
        b.add({slug(scheme, l, t), "layout x scheme x dtype grid", f, shape, l, t, std::move(positions), 2, 1});
      }
  add_models(b, rng);
  for (ropecheck_layout_t l : kLayouts) {
    b.add({"degenerate/rotary2/" + std::string(layout_name(l)), "one pair: both layouts agree (control)",
           default_spec(), {8, 2}, l, ROPECHECK_DTYPE_F32, {1, 2, 1000}});
    // The positions drawn before the spec, as every export so far has them.
    std::vector<std::int64_t> positions = mixed_positions(rng, 5, k2(16));
    const ref::FreqSpec f = scheme_spec(rng, 64, ROPECHECK_SCHEME_YARN);
    b.add({.name = "inverse/" + std::string(layout_name(l)) + "/bf16", .comment = "inverse direction", .freq = f,
           .shape = {64, 64}, .layout = l, .dtype = ROPECHECK_DTYPE_BF16, .positions = std::move(positions),
           .direction = ROPECHECK_DIRECTION_INVERSE});
  }
  b.add({"negative-positions/half_split/f32", "negative position ids (left padding, relative offsets)",
         default_spec(), {64, 64}, ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_DTYPE_F32, {-1, -2, -4096, -65536, 3}});
  b.add({"zero-positions/interleaved/f32", "every position 0 (control)", default_spec(), {64, 64},
         ROPECHECK_LAYOUT_INTERLEAVED, ROPECHECK_DTYPE_F32, {0, 0, 0}});
  add_multi_axis_cases(b, AxisCaseSize::kStandard);
  return b.take();
}

std::vector<GoldenCase> long_context() {
  SuiteBuilder b(3);
  Rng rng(0x10c0);
  const std::vector<std::int64_t> far = {k2(20) - 1, k2(20), k2(20) + 1, k2(24) - 1,
                                         k2(24),     k2(24) + 1, 2147483647, k2(40) + 3};
  const ropecheck_scheme_t schemes[] = {ROPECHECK_SCHEME_DEFAULT, ROPECHECK_SCHEME_LINEAR, ROPECHECK_SCHEME_NTK_AWARE,
                                        ROPECHECK_SCHEME_YARN, ROPECHECK_SCHEME_LLAMA3, ROPECHECK_SCHEME_EXPLICIT};
  for (ropecheck_scheme_t s : schemes)
    for (ropecheck_layout_t l : kLayouts)
      for (ropecheck_dtype_t t : kDtypes)
        b.add({slug(s, l, t), "positions from 2^20 to 2^40 + 3", scheme_spec(rng, 64, s), {64, 64}, l, t, far});
  // The published long-context configs at their own lengths.
  for (const ModelConfig& m : model_configs()) {
    const RopeConfig rc = parse_model(m);
    if (rc.freq.scheme != ROPECHECK_SCHEME_LLAMA3 && rc.freq.scheme != ROPECHECK_SCHEME_YARN) continue;
    GoldenCase& g = b.add({std::string(m.model) + "/long/f32", std::string("published config: ") + m.source, rc.freq,
                           rc.shape, m.layout, ROPECHECK_DTYPE_F32, {k2(17) - 1, k2(17), 131071, 163839}, 2, 1});
    g.model = m.model;
    g.extra_flags.push_back("RealModelConfig");
  }
  return b.take();
}

}  // namespace

std::vector<GoldenCase> build_config_suite(const ModelRope& m, const std::string& model, ConfigSuiteSize size) {
  const bool committed = size == ConfigSuiteSize::kCommitted;
  SuiteBuilder b(4);
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the name: the same cases on every platform
  for (unsigned char ch : model) h = (h ^ ch) * 0x100000001b3ull;
  Rng rng(h);
  // Heads scaled down, the model's grouping kept (up to 4 q heads per kv head).
  const int kv = 1, group = committed ? 1
                            : m.kv_heads > 0 && m.q_heads >= m.kv_heads ? std::min(4, m.q_heads / m.kv_heads)
                                                                          : 2;
  const int tokens = committed ? 2 : 8;
  for (const LayerTypeRope& lt : m.layer_types) {
    ModelRope one = m;
    one.layer_types = {lt};
    const RopeConfig& rc = lt.config;
    // Positions up to the model's context (or four times the scheme's
    // original length when the config states none), edges included.
    const std::int64_t ctx = m.max_position > 0 ? m.max_position
                                                : std::max<std::int64_t>(rc.freq.original_max_position, 4096) * 4;
    for (const RopeConfig& v : config_variants(one)) {
      std::string name = model + "/" + lt.name;
      if (v.freq.seq_len != rc.freq.seq_len) name += "/seq_len=" + std::to_string(v.freq.seq_len);
      for (ropecheck_dtype_t t : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16}) {
        if (committed && t != ROPECHECK_DTYPE_F32) continue;
        GoldenCase& g = b.add({name + "/" + std::string(dtype_name(t)),
                               "model config " + model + ", layer type " + lt.name, v.freq, v.shape,
                               v.layout.value_or(ROPECHECK_LAYOUT_HALF_SPLIT), t, mixed_positions(rng, tokens, ctx),
                               kv * group, kv});
        use_axes(v.axes, &g.c);  // the model's M-RoPE sections, or 1D
        g.model = model;
        g.extra_flags.push_back("RealModelConfig");
      }
    }
  }
  return b.take();
}

std::vector<std::string> golden_suite_names() { return {"smoke", "standard", "long-context", "fused"}; }

std::vector<GoldenCase> build_golden_suite(const std::string& name) {
  if (name == "smoke") return smoke();
  if (name == "standard") return standard();
  if (name == "long-context") return long_context();
  if (name == "fused") return fused_suite();
  throw std::invalid_argument("--suite: no golden suite named '" + name +
                              "' (known: smoke, standard, long-context, fused)");
}

}  // namespace ropecheck::golden
