// SPDX-License-Identifier: MIT
// Which elements of a case's buffers lie in its q and k views, and the first write outside them.
#include "core/cases/views.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ropecheck {

std::vector<std::int64_t> view_starts(const Geometry& g, int w) {
  std::vector<std::int64_t> s;
  s.reserve(static_cast<std::size_t>(g.tokens * g.heads[w]));
  // In the order of the layout, so that the starts come sorted: heads
  // inside tokens, or (head-major) tokens inside heads, sequence by sequence.
  const std::int64_t seqs = g.tokens == 0 ? 0 : (g.tokens + g.seq_len - 1) / g.seq_len;
  const bool head_major = g.head_stride[w] > g.token_stride[w];
  for (std::int64_t q = 0; q < seqs; ++q) {
    const std::int64_t t0 = q * g.seq_len, t1 = std::min(g.tokens, t0 + g.seq_len);
    if (head_major) {
      for (int h = 0; h < g.heads[w]; ++h)
        for (std::int64_t t = t0; t < t1; ++t) s.push_back(g.offset(w, t, h, 0));
    } else {
      for (std::int64_t t = t0; t < t1; ++t)
        for (int h = 0; h < g.heads[w]; ++h) s.push_back(g.offset(w, t, h, 0));
    }
  }
  if (!std::is_sorted(s.begin(), s.end())) std::sort(s.begin(), s.end());
  return s;
}

std::int64_t first_write_outside_view(const Geometry& g, int w, const unsigned char* got,
                                      const unsigned char* before) {
  const std::size_t es = g.esize;
  // The first element of [a, b) whose bytes differ, or -1.
  const auto first_difference = [&](std::int64_t a, std::int64_t b) -> std::int64_t {
    if (b <= a || std::memcmp(got + a * es, before + a * es, static_cast<std::size_t>(b - a) * es) == 0) return -1;
    for (std::int64_t i = a;; ++i)
      if (std::memcmp(got + i * es, before + i * es, es) != 0) return i;
  };
  std::int64_t at = 0;  // the first element not yet compared nor inside a view
  for (const std::int64_t start : view_starts(g, w)) {
    if (const std::int64_t off = first_difference(at, start); off >= 0) return off;
    at = std::max(at, start + g.head_dim);
  }
  return first_difference(at, g.elements[w]);
}

std::string outside_view_message(int w, std::int64_t off) {
  const char* name = w == 0 ? "q" : "k";
  return std::string("wrote into padding outside the tensor (element ") + std::to_string(off) + " of " + name +
         "'s buffer, outside every " + name + " view: padding or another part of a fused qkv row)";
}

std::string write_outside_views(const Case& c, const QkBuffers& got, const QkBuffers& before) {
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w) {
    const std::int64_t off = first_write_outside_view(g, w, got.bytes[w].data(), before.bytes[w].data());
    if (off >= 0) return outside_view_message(w, off) + " (" + memory_layout_name(c.memory) + ")";
  }
  return {};
}

}  // namespace ropecheck
