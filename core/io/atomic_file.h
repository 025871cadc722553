// SPDX-License-Identifier: MIT
// Files ropecheck writes appear whole or not at all: written to a temporary
// in the same directory, flushed, then renamed over the target. A symlink
// is written through (its target is replaced, the link stays); a path that
// names a directory, a device or a FIFO is refused, never replaced.
#ifndef ROPECHECK_CORE_IO_ATOMIC_FILE_H_
#define ROPECHECK_CORE_IO_ATOMIC_FILE_H_

#include <string>

namespace ropecheck {

// Throws std::runtime_error naming the path on any failure.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_IO_ATOMIC_FILE_H_
