// SPDX-License-Identifier: MIT
// Multi-axis calls (ABI 1.3) as a kernel sees them: each pair's axis and
// frequency, and the position of each pair of a token. 1D calls go through
// the same code with every pair on axis 0, so a kernel has one body for
// every form (sections, interleaved, table; shared or per-axis
// frequencies). The assignments are ropecheck/axes.h's; the frequencies are
// the engine formulas of engine_freqs.h, per axis over its own rotary dim
// for per-axis frequencies (as Qwen2-VL's vision encoder and FLUX build them).
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_PAIR_AXES_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_PAIR_AXES_H_

#include <cstdint>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "ropecheck/axes.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

// Every pair's axis (all 0 for a 1D call) and the call's axis count (0: 1D).
struct PairAxisMap {
  int axes = 0;
  std::vector<int> axis;
};

inline PairAxisMap pair_axis_map(const ropecheck_apply_params_t& p) {
  PairAxisMap m;
  const int pairs = p.rotary_dim / 2;
  m.axes = axes_of(&p);
  m.axis.assign(static_cast<std::size_t>(pairs), 0);
  for (int i = 0; m.axes > 0 && i < pairs; ++i)
    m.axis[static_cast<std::size_t>(i)] = pair_axis_of(p.axis_assignment, p.num_axes, p.axis_sections, p.pair_axis, i);
  return m;
}

// Each pair's frequency: the scheme's w_i over rotary_dim, or with per-axis
// frequencies w_j over twice its axis's pair count (j: its index in the axis).
template <class T>
EngineFreqs<T> pair_frequencies(const ropecheck_apply_params_t& p, const PairAxisMap& m) {
  EngineFreqs<T> f = engine_frequencies<T>(*p.freq, p.rotary_dim);
  if (m.axes == 0 || p.axis_frequencies != ROPECHECK_AXIS_FREQ_PER_AXIS) return f;
  const int pairs = p.rotary_dim / 2;
  std::vector<int> count(static_cast<std::size_t>(m.axes), 0);
  for (int ax : m.axis) ++count[static_cast<std::size_t>(ax)];
  std::vector<std::vector<T>> per_axis(static_cast<std::size_t>(m.axes));
  for (int ax = 0; ax < m.axes; ++ax)
    if (count[static_cast<std::size_t>(ax)] > 0)
      per_axis[static_cast<std::size_t>(ax)] = engine_frequencies<T>(*p.freq, 2 * count[static_cast<std::size_t>(ax)]).inv_freq;
  std::vector<int> next(static_cast<std::size_t>(m.axes), 0);
  for (int i = 0; i < pairs; ++i) {
    const auto ax = static_cast<std::size_t>(m.axis[static_cast<std::size_t>(i)]);
    f.inv_freq[static_cast<std::size_t>(i)] = per_axis[ax][static_cast<std::size_t>(next[ax]++)];
  }
  return f;
}

// Calls new_row(pos) with the position of every pair of a token (pairs
// entries) before its first head, skipped when the token's positions equal
// the previous token's, then fn(head) for each head of q and k
// (for_each_head's order).
template <class NewRow, class Fn>
void for_each_head_by_pair_positions(const ropecheck_apply_params_t& p, const PairAxisMap& m, NewRow new_row,
                                     Fn&& fn) {
  const int axes = m.axes > 0 ? m.axes : 1;
  std::vector<std::int64_t> have(static_cast<std::size_t>(axes)), now(static_cast<std::size_t>(axes));
  std::vector<std::int64_t> pos(m.axis.size());
  bool valid = false;
  std::int64_t have_token = -1;
  for_each_head(p, [](std::int64_t t) { return t; }, [&](const HeadRef& h) {
    if (h.token != have_token) {
      have_token = h.token;
      for (int a = 0; a < axes; ++a) now[static_cast<std::size_t>(a)] = position_at(&p, h.token, a);
      if (!valid || now != have) {
        for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = now[static_cast<std::size_t>(m.axis[i])];
        new_row(static_cast<const std::int64_t*>(pos.data()));
        have = now;
        valid = true;
      }
    }
    HeadRef with_position = h;
    with_position.position = now[0];
    fn(with_position);
  });
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_PAIR_AXES_H_
