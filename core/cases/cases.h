// SPDX-License-Identifier: MIT
// The one case generator. A suite's case is a pure function of (suite,
// seed, index), so the one-line reproduce command of any failure rebuilds
// exactly its config, positions and input bits. RapidCheck and the fuzzer
// drive the same generator through their own Choices (core/cases/rng.h), with the
// limits they need, so every generator aims at the same edges.
#ifndef ROPECHECK_CORE_CASES_CASES_H_
#define ROPECHECK_CORE_CASES_CASES_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/rng.h"
#include "reference/axis_spec.h"
#include "reference/freq_spec.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

enum class Suite { kQuick, kStandard, kExhaustive };

// How q and k lie in memory (core/cases/buffers.h, geometry). Each is a layout
// production engines hand to a RoPE kernel:
//   kTokenMajor   [tokens, heads, head_dim] (vLLM, FlashInfer, TensorRT-LLM)
//   kHeadMajor    [batch, heads, seq, head_dim] (Hugging Face, PyTorch SDPA)
//   kFusedQkv     q and k as views of one [tokens, q_heads + 2 kv_heads,
//                 head_dim] qkv projection (vLLM, SGLang): the k view starts
//                 q_heads heads into the row and the v part is never to be
//                 written (vLLM #16658)
//   kSplitStrides q and k token-major with different head and token strides
//                 (k's stride taken from q's: SGLang #20559)
enum class MemoryLayout { kTokenMajor, kHeadMajor, kFusedQkv, kSplitStrides };
inline constexpr int kMemoryLayoutCount = 4;
const char* memory_layout_name(MemoryLayout m);

// Size classes of the suites: production kernels take different code paths
// by size (vector tails, thread and block partitions, a decode path).
//   kTiny          1-6 tokens, 1-3 kv heads (every property's home ground)
//   kDecode        one token per sequence, many sequences at unrelated positions
//   kShortPrefill  16-256 tokens in 1-4 sequences of consecutive positions
//   kLongPrefill   >= 4096 tokens in standard, >= 32768 in exhaustive
//   kManyHeads     64-128 q heads (DeepSeek-V3 has 128)
//   kEdges         the edges of declared capabilities: positions past 2^24,
//                  at 2^31-1 and past 2^31, negative ids, head_dim 256 / 512
enum class SizeClass { kTiny, kDecode, kShortPrefill, kLongPrefill, kManyHeads, kEdges };
inline constexpr int kSizeClassCount = 6;
const char* size_class_name(SizeClass s);

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
  // Position ids, token-major: axis_count() per token (one for 1D RoPE;
  // num_axes for multi-axis, position(t, a) = positions[t * axis_count() + a]).
  std::vector<std::int64_t> positions;
  ref::AxisSpec axes;  // num_axes 0: 1D RoPE
  // ids between the axis rows of the call's positions buffer
  // (position_axis_stride = tokens + axis_pad; the gap holds ids no kernel may read)
  int axis_pad = 0;
  ropecheck_index_type_t position_type = ROPECHECK_INDEX_INT64;
  bool in_place = true;
  int head_pad = 0;   // extra elements after each head (padded strides)
  int token_pad = 0;  // extra elements after each token
  std::uint64_t data_seed = 0;
  // Tokens per sequence: 0 is one sequence of all tokens; else tokens is a
  // multiple of it (seq_len 1: decode).
  std::int64_t seq_len = 0;
  int seq_pad = 0;  // extra elements between sequences (a batch stride)
  MemoryLayout memory = MemoryLayout::kTokenMajor;
  SizeClass size_class = SizeClass::kTiny;
  int num_threads = 0;  // apply_params.num_threads (0: the kernel's choice)
  // The dtype of the cos/sin cache the caller passes in to a kernel granting
  // CALLER_COS_SIN_CACHE (ABI 1.6) when the case fixes it (a golden case's,
  // whose files hold that cache); unset, it is drawn among the dtypes the
  // kernel declares (core/cases/cos_sin_cache_case.h).
  std::optional<ropecheck_dtype_t> caller_cache_dtype;
  // Rows of the cos/sin cache a cache kernel is handed, at least the
  // positions' own (cos_sin_cache_rows(); within the cache limit, else the
  // positions' own: core/kernel/declared_capabilities.h). A case's context
  // sets it to the case's own (properties/property.h), and the cases a
  // property derives by picking, reordering or zeroing tokens carry it: they
  // are handed the same table as the case, which an isolated kernel's worker
  // then keeps instead of receiving a copy of other rows per call
  // (core/isolation/isolated_call.cc).
  std::int64_t cache_rows = 0;

  // seq_len when it splits the tokens into sequences, else 0 (one run): a
  // case derived by changing its token count falls back to one run.
  std::int64_t batch_seq_len() const { return seq_len > 0 && tokens % seq_len == 0 ? seq_len : 0; }
  std::int64_t sequences() const { return batch_seq_len() > 0 ? tokens / batch_seq_len() : 1; }
  // Rotated elements of q and k together: what the cost of a case scales with.
  std::int64_t rotated_elements() const {
    return tokens * static_cast<std::int64_t>(q_heads + kv_heads) * shape.rotary_dim;
  }

  int axis_count() const { return axes.axis_count(); }
  std::int64_t position(std::int64_t token, int axis = 0) const {
    return positions[static_cast<std::size_t>(token * axis_count() + axis)];
  }
  // The ids of `tokens` in that order (axis_count() each): the positions of a
  // case derived by picking, repeating or reordering tokens.
  std::vector<std::int64_t> positions_of(const std::vector<std::int64_t>& tokens) const;
  // The position ids of one token (axis_count() of them), as text: "7" or "(7,3,5)".
  std::string token_positions(std::int64_t token) const;

  std::string family() const;    // the case family shown in the summary table
  std::string describe() const;  // one line with every parameter
  std::int64_t max_abs_position() const;
  std::int64_t cos_sin_cache_rows() const { return std::max(cache_rows, max_abs_position() + 1); }
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
  bool memory_layouts = true;  // draw every MemoryLayout and batched sequences
};
CaseLimits suite_limits(Suite s);

// The generator: every structural decision of a case drawn from `ch`.
Case draw_case(Choices& ch, const CaseLimits& limits);
// Case `index` of a suite: draw_case over Rng(seed, index), then the size
// class of the index (size_class_of) reshapes tokens, heads and positions.
Case make_case(Suite suite, std::uint64_t seed, int index);
// The size class of case `index`: the first kSizeClassCount * 4 indices of
// every suite cycle through the classes (so the quick suite has four cases
// of each), the rest are drawn with a suite's weights.
SizeClass size_class_of(Suite suite, std::uint64_t seed, int index);

// Positions every generator aims at: 0, 1, 2, both sides of 4096, 2^16,
// 2^20, 2^24 (where fp32 stops holding every integer) and int32 max.
std::span<const std::int64_t> edge_positions();

// Whether a position id is one an int32 call carries unchanged (INT32_MIN
// aside: no kernel may negate it, and ropecheck fills the gaps between a
// multi-axis call's rows with the id after it).
constexpr bool fits_int32_position(std::int64_t p) { return p >= -2147483647LL && p <= 2147483647LL; }

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
// The same draws from an Rng, called directly (rng.h): the same values.
double draw_input(Rng& rng, ropecheck_dtype_t dtype);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_CASES_H_
