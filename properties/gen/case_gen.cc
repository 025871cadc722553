#include "case_gen.h"

#include <algorithm>

#include "ropecheck/rng.h"

namespace ropecheck {

rc::Gen<Case> gen_case(CaseGenOptions o) {
  return rc::gen::exec([o] {
    Case c;
    c.suite = Suite::kQuick;
    // Even head_dim up to the maximum; shrinks toward 2.
    c.shape.head_dim = 2 * *rc::gen::inRange(1, o.max_head_dim / 2 + 1);
    const bool partial = *rc::gen::arbitrary<bool>();
    c.shape.rotary_dim = partial ? 2 * *rc::gen::inRange(1, c.shape.head_dim / 2 + 1) : c.shape.head_dim;
    const auto scheme = static_cast<ropecheck_scheme_t>(*rc::gen::inRange(0, int{ROPECHECK_SCHEME_COUNT}));
    Rng rng(*rc::gen::inRange<std::uint64_t>(0, 1u << 20));
    c.freq = draw_scheme(rng, c.shape.rotary_dim, scheme);
    c.layout = *rc::gen::element(ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED);
    c.dtype = *rc::gen::element(ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16);
    c.direction = *rc::gen::element(ROPECHECK_DIRECTION_FORWARD, ROPECHECK_DIRECTION_INVERSE);
    c.tokens = *rc::gen::inRange(1, 7);
    c.kv_heads = *rc::gen::inRange(1, 4);
    c.q_heads = c.kv_heads * *rc::gen::inRange(1, 5);  // GQA groups
    c.in_place = *rc::gen::arbitrary<bool>();
    c.head_pad = *rc::gen::inRange(0, 9);
    c.token_pad = *rc::gen::inRange(0, 17);
    const std::int64_t max_pos = std::int64_t{1} << o.max_log2_position;
    // Positions: edges, or uniform below 2^max_log2 (duplicates and unsorted
    // come naturally); shrinks toward 0.
    const auto position = rc::gen::oneOf(
        rc::gen::element<std::int64_t>(0, 1, 4095, 4096, 65536, max_pos),
        rc::gen::inRange<std::int64_t>(0, max_pos + 1));
    c.positions = *rc::gen::container<std::vector<std::int64_t>>(static_cast<std::size_t>(c.tokens), position);
    c.position_type = *rc::gen::element(ROPECHECK_INDEX_INT32, ROPECHECK_INDEX_INT64);
    c.data_seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 30);
    return c;
  });
}

void showValue(const Case& c, std::ostream& os) {
  os << c.describe() << " data_seed=" << c.data_seed;
}

}  // namespace ropecheck
