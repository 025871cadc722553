// SPDX-License-Identifier: MIT
// Which elements of a case's buffers belong to its q and k views, and the
// first write outside them: the judge and WritesOnlyItsViews share it.
// Outside the views lie padding (between heads, tokens and sequences) and,
// in a fused qkv layout, the other parts of each row (core/cases/cases.h).
#ifndef ROPECHECK_CORE_CASES_VIEWS_H_
#define ROPECHECK_CORE_CASES_VIEWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"

namespace ropecheck {

// Where each view of tensor w starts (head_dim elements each, one per token
// and head), ascending. Everything between them is outside the views.
std::vector<std::int64_t> view_starts(const Geometry& g, int w);

// True when tensor w's views are its whole buffer: nothing lies outside them
// (the views never overlap, so as many elements as the views hold, from 0).
inline bool views_cover_buffer(const Geometry& g, int w) {
  return g.base[w] == 0 && g.elements[w] == g.tokens * g.heads[w] * g.head_dim;
}

// Offset of the first element of tensor w outside its view that differs
// between `got` and `before` (bitwise), or -1. The gaps between the views
// are compared a run at a time (a byte mask over the whole buffer and a
// compare per element were a judge's cost on the large cases). `before` is
// not read when views_cover_buffer(g, w).
std::int64_t first_write_outside_view(const Geometry& g, int w, const unsigned char* got,
                                      const unsigned char* before);

// "wrote into padding outside the tensor (element N of q's buffer, ...)":
// how the judge and WritesOnlyItsViews name such a write.
std::string outside_view_message(int w, std::int64_t offset);

// The same for a whole run: "wrote into padding outside the tensor (...)"
// naming the tensor and element, or empty.
std::string write_outside_views(const Case& c, const QkBuffers& got, const QkBuffers& before);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_VIEWS_H_
