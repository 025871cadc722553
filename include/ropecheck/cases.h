// The randomized conformance grid: a case is a pure function of
// (suite, seed, index), so the one-line reproduce command of any failure
// rebuilds exactly its config, positions and input bits.
#ifndef ROPECHECK_CASES_H_
#define ROPECHECK_CASES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"
#include "ropecheck/reference/freq_spec.h"

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

Case make_case(Suite suite, std::uint64_t seed, int index);

// Positions every generator aims at (conventions.md): 0, 1, 2, both sides of
// 4096, 2^16, 2^20, 2^24 and int32 max.
std::span<const std::int64_t> edge_positions();

// Valid random parameters for a scheme (YaRN configs on a truncation cliff
// are redrawn, see ErrorModel::yarn_near_cliff). NTK schemes need
// rotary_dim >= 4 and fall back to the default scheme below that.
ref::FreqSpec draw_scheme(class Rng& rng, int rotary_dim, ropecheck_scheme_t scheme);

// Input values for a case, built from bit patterns: normal values of both
// signs over several binades, plus signed zeros, subnormals and the smallest
// normal of the storage dtype. Returns the stored value (exact as double).
double draw_input(class Rng& rng, ropecheck_dtype_t dtype);

}  // namespace ropecheck

#endif  // ROPECHECK_CASES_H_
