#include "core/cases/views.h"

#include <cstring>
#include <string>

namespace ropecheck {

std::vector<char> view_mask(const Geometry& g, int w) {
  std::vector<char> m(static_cast<std::size_t>(g.elements[w]), 0);
  for (std::int64_t t = 0; t < g.tokens; ++t)
    for (int h = 0; h < g.heads[w]; ++h)
      std::memset(m.data() + g.offset(w, t, h, 0), 1, static_cast<std::size_t>(g.head_dim));
  return m;
}

std::int64_t first_write_outside_view(const Geometry& g, int w, const std::vector<char>& mask,
                                      const unsigned char* got, const unsigned char* before) {
  for (std::int64_t off = 0; off < g.elements[w]; ++off)
    if (!mask[static_cast<std::size_t>(off)] && std::memcmp(got + off * g.esize, before + off * g.esize, g.esize) != 0)
      return off;
  return -1;
}

std::string outside_view_message(int w, std::int64_t off) {
  const char* name = w == 0 ? "q" : "k";
  return std::string("wrote into padding outside the tensor (element ") + std::to_string(off) + " of " + name +
         "'s buffer, outside every " + name + " view: padding or another part of a fused qkv row)";
}

std::string write_outside_views(const Case& c, const QkBuffers& got, const QkBuffers& before) {
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w) {
    const std::int64_t off =
        first_write_outside_view(g, w, view_mask(g, w), got.bytes[w].data(), before.bytes[w].data());
    if (off >= 0) return outside_view_message(w, off) + " (" + memory_layout_name(c.memory) + ")";
  }
  return {};
}

}  // namespace ropecheck
