// The one case generator. A suite's case is a pure function of (suite,
// seed, index), so the one-line reproduce command of any failure rebuilds
// exactly its config, positions and input bits. RapidCheck and the fuzzer
// drive the same generator through their own Choices (core/rng.h), with the
// limits they need, so every generator aims at the same edges.
#ifndef ROPECHECK_CORE_CASES_H_
#define ROPECHECK_CORE_CASES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/rng.h"
#include "reference/freq_spec.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

enum class Suite { kQuick, kStandard, kExhaustive };

const char* suite_name(Suite s);
bool parse_suite(const std::string& s, Suite* out);
int suite_size(Suite s);

struct Case {
  Suite suite = Suite::kQuick;
  std::uint64_t seed = 0;
  int index = 0;
  ref::FreqSpec freq;
  ref::HeadShape shape;
  ropecheck_layout_t layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  ropecheck_dtype_t dtype = ROPECHECK_DTYPE_F32;
  ropecheck_direction_t direction = ROPECHECK_DIRECTION_FORWARD;
  std::int64_t tokens = 1;
  int q_heads = 1;
  int kv_heads = 1;
  std::vector<std::int64_t> positions;
  ropecheck_index_type_t position_type = ROPECHECK_INDEX_INT64;
  bool in_place = true;
  int head_pad = 0;   // extra elements after each head (padded strides)
  int token_pad = 0;  // extra elements after each token
  std::uint64_t data_seed = 0;

  std::string family() const;    // the case family shown in the summary table
  std::string describe() const;  // one line with every parameter
  std::int64_t max_abs_position() const;
};

// What a generator may draw. The suites' limits are fixed (suite_limits);
// the fuzzer and RapidCheck narrow them to keep the reference fast.
struct CaseLimits {
  bool wide_head_dims = false;  // head_dim 257..512 too
  int max_log2_position = 20;   // positions up to 2^this (31: int32 max)
  double negative_chance = 0;   // chance of negating a position
  int max_tokens = 6;
  int max_kv_heads = 3;
  int max_group = 4;  // q heads per kv head (GQA)
};
CaseLimits suite_limits(Suite s);

// The generator: every structural decision of a case drawn from `ch`.
Case draw_case(Choices& ch, const CaseLimits& limits);
// Case `index` of a suite: draw_case over Rng(seed, index).
Case make_case(Suite suite, std::uint64_t seed, int index);

// Positions every generator aims at: 0, 1, 2, both sides of 4096, 2^16,
// 2^20, 2^24 (where fp32 stops holding every integer) and int32 max.
std::span<const std::int64_t> edge_positions();

// |p| of a position id, saturating at INT64_MAX (|INT64_MIN| is no int64).
constexpr std::int64_t abs_position(std::int64_t p) {
  return p >= 0 ? p : (p == INT64_MIN ? INT64_MAX : -p);
}

// Valid random parameters for a scheme (YaRN configs on a truncation cliff
// are redrawn, see ErrorModel::yarn_near_cliff). NTK schemes need
// rotary_dim >= 4 and fall back to the default scheme below that.
ref::FreqSpec draw_scheme(Choices& ch, int rotary_dim, ropecheck_scheme_t scheme);

// Input values for a case, built from bit patterns: normal values of both
// signs over several binades, plus signed zeros, subnormals and the smallest
// normal of the storage dtype. Returns the stored value (exact as double).
double draw_input(Choices& ch, ropecheck_dtype_t dtype);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_H_
