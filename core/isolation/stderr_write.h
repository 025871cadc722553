// SPDX-License-Identifier: MIT
// Writing a message to standard error with write(2) alone: what runs inside
// a signal handler or exit() may not take a lock (stdio, iostreams).
#ifndef ROPECHECK_CORE_ISOLATION_STDERR_WRITE_H_
#define ROPECHECK_CORE_ISOLATION_STDERR_WRITE_H_

#include <unistd.h>

#include <cstring>

namespace ropecheck {

// The whole of s, short writes continued; gives up on an error.
inline void say_to_stderr(const char* s) {
  for (std::size_t n = std::strlen(s); n > 0;) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_STDERR_WRITE_H_
