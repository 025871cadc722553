// SPDX-License-Identifier: MIT
// The shapes `ropecheck bench` times a kernel on: the definitions of speed/bench_shapes.h.
#include "speed/bench_shapes.h"

#include <algorithm>

#include "reference/freq_spec.h"

namespace ropecheck::speed {

BenchModel bench_model(const std::string& name, const ModelRope& m) {
  BenchModel b;
  b.name = name;
  const std::vector<RopeConfig> variants = config_variants(m);
  if (variants.empty()) throw ref::ConfigError("rope", "the config describes no layer with RoPE");
  b.rope = variants.front();
  if (!b.rope.shape_stated)
    throw ref::ConfigError("head_dim", "missing: a bench shape needs the head shape (head_dim, or hidden_size and "
                                       "num_attention_heads)");
  if (b.rope.axes.multi())
    throw ref::ConfigError("rope_scaling.mrope_section", "multi-axis RoPE is not timed by ropecheck bench yet");
  if (m.q_heads <= 0) throw ref::ConfigError("num_attention_heads", "missing: a bench shape needs the head counts");
  b.q_heads = m.q_heads;
  b.kv_heads = m.kv_heads > 0 ? m.kv_heads : m.q_heads;  // not stated: multi-head attention
  b.max_position = m.max_position;
  return b;
}

const char* step_name(Step s) { return s == Step::kDecode ? "decode" : "prefill"; }

std::vector<RowChoice> declared_rows(const ropecheck_impl_t& impl, const BenchModel& m, std::uint32_t dtypes,
                                     std::uint32_t layouts, const std::vector<int>& threads) {
  std::vector<RowChoice> rows;
  const std::uint32_t flags = impl.caps.flags;
  for (ropecheck_dtype_t dt : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16}) {
    if (!((impl.caps.dtypes & dtypes) >> dt & 1u)) continue;
    for (ropecheck_layout_t lay : {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED}) {
      if (!((impl.caps.layouts & layouts) >> lay & 1u) || (m.rope.layout && *m.rope.layout != lay)) continue;
      for (int t : threads) {
        RowChoice r;
        r.dtype = dt;
        r.layout = lay;
        r.in_place = (flags & ROPECHECK_CAP_IN_PLACE) != 0 || (flags & ROPECHECK_CAP_OUT_OF_PLACE) == 0;
        r.position_type = (flags & ROPECHECK_CAP_POS_INT32) != 0 && (flags & ROPECHECK_CAP_POS_INT64) == 0
                              ? ROPECHECK_INDEX_INT32
                              : ROPECHECK_INDEX_INT64;
        r.threads = t;
        rows.push_back(r);
      }
    }
  }
  return rows;
}

Case bench_case(const BenchModel& m, const BenchShape& s, const RowChoice& r) {
  Case c;
  c.freq = m.rope.freq;
  c.shape = m.rope.shape;
  c.layout = r.layout;
  c.dtype = r.dtype;
  c.tokens = s.tokens;
  c.q_heads = m.q_heads;
  c.kv_heads = m.kv_heads;
  c.position_type = r.position_type;
  c.in_place = r.in_place;
  c.memory = MemoryLayout::kTokenMajor;
  c.num_threads = r.threads;
  c.positions.resize(static_cast<std::size_t>(s.tokens));
  if (s.step == Step::kDecode) {
    const std::int64_t context = m.max_position > 0 ? std::min(kDecodeContext, m.max_position) : kDecodeContext;
    for (std::int64_t t = 0; t < s.tokens; ++t) c.positions[static_cast<std::size_t>(t)] = decode_position(t, context);
    c.seq_len = 1;
    c.size_class = SizeClass::kDecode;
  } else {
    for (std::int64_t t = 0; t < s.tokens; ++t) c.positions[static_cast<std::size_t>(t)] = t;
    c.size_class = SizeClass::kLongPrefill;
  }
  return c;
}

}  // namespace ropecheck::speed
