// SPDX-License-Identifier: MIT
// The shapes `ropecheck bench` times a kernel on: a model's prefill step
// (one sequence of consecutive positions from 0) and decode step (a batch of
// sequences of one token each, at unrelated positions), with the model's
// head counts, head shape and RoPE scheme (a zoo family or any config.json,
// core/config/model_rope.h); and each row a kernel declares: every storage
// dtype and layout in its capabilities, at each thread count asked. The
// defaults are bench/rope_bench.cc's shapes (Llama 3 8B: 4096 tokens of
// prefill, 64 sequences of decode below position 8192).
#ifndef ROPECHECK_SPEED_BENCH_SHAPES_H_
#define ROPECHECK_SPEED_BENCH_SHAPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/cases.h"
#include "core/config/config.h"
#include "core/config/model_rope.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::speed {

struct BenchModel {
  std::string name;  // the zoo family, or the config's path
  RopeConfig rope;   // the first layer type's (the gate's first config variant)
  int q_heads = 0, kv_heads = 0;
  std::int64_t max_position = 0;  // 0: not stated
};
// Throws ref::ConfigError naming what the config lacks for a shape (head
// counts, a head shape) or what is not timed (multi-axis RoPE).
BenchModel bench_model(const std::string& name, const ModelRope& m);

enum class Step { kPrefill, kDecode };
const char* step_name(Step s);

struct BenchShape {
  Step step = Step::kPrefill;
  std::int64_t tokens = 0;  // prefill: the sequence's length; decode: sequences of one token
};
inline constexpr std::int64_t kPrefillTokens = 4096;
inline constexpr std::int64_t kDecodeTokens = 64;
// Decode positions lie below this (or the model's max_position when lower).
inline constexpr std::int64_t kDecodeContext = 8192;
// Token t's position in a decode step over `context` positions: unrelated
// positions, as a serving engine's decode step sees them (a multiplicative
// hash; bench/rope_bench.cc uses it too).
constexpr std::int64_t decode_position(std::int64_t t, std::int64_t context) {
  return (t * 2654435761LL + 977) % context;
}

// One row of a kernel: its case's storage, placement, position ids and
// thread count.
struct RowChoice {
  ropecheck_dtype_t dtype = ROPECHECK_DTYPE_F32;
  ropecheck_layout_t layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  bool in_place = true;
  ropecheck_index_type_t position_type = ROPECHECK_INDEX_INT64;
  int threads = 1;
};

// The rows impl declares among `dtypes` and `layouts` (bit masks, 1 << enum;
// a config that names a layout keeps that one), at each of `threads`: in
// place where it declares it (as the in-place baseline runs), int64
// positions where it declares them.
std::vector<RowChoice> declared_rows(const ropecheck_impl_t& impl, const BenchModel& m, std::uint32_t dtypes,
                                     std::uint32_t layouts, const std::vector<int>& threads);

// The case of a row, as the gate's case code describes every call
// (core/cases/cases.h): token-major q and k without padding, the model's
// scheme and shape, num_threads the row's.
Case bench_case(const BenchModel& m, const BenchShape& s, const RowChoice& r);

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BENCH_SHAPES_H_
