// SPDX-License-Identifier: MIT
// Reading a file a user names within bounds, whatever it turns out to be.
#include "core/io/file_read.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>

namespace ropecheck {
namespace {

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

const char* non_file_kind(unsigned mode) {
  const auto m = static_cast<mode_t>(mode);
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return nullptr;
}

std::string read_file_bounded(const std::string& path, const ReadLimits& lim) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // forever; O_NOCTTY: a terminal never becomes our controlling one.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == EISDIR) throw FileReadError(path, "is a directory, not a file");
    throw FileReadError(path, std::string("cannot be opened: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw FileReadError(path, std::string("cannot be examined: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw FileReadError(path, "is a directory, not a file");
  if (lim.regular_only && !S_ISREG(st.st_mode))
    throw FileReadError(path, std::string("is ") + (non_file_kind(st.st_mode) ? non_file_kind(st.st_mode) : "not a regular file") +
                                  ", not a regular file");
  const std::string too_big = "holds more than the limit of " + std::to_string(lim.max_bytes) + " bytes";
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > lim.max_bytes)
    throw FileReadError(path, "is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                                  std::to_string(lim.max_bytes));
  std::string out;
  char buf[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(lim.wait_seconds);
  const auto wait_for_data = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{f.fd, POLLIN, 0};
    int r;
    do r = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
    while (r < 0 && errno == EINTR);
    if (r == 0)
      throw FileReadError(path, "gave no data for " + std::to_string(static_cast<int>(lim.wait_seconds)) +
                                    " s (a FIFO or terminal nobody writes to?)");
  };
  // A FIFO reads as empty until a writer opens it; poll() waits for one (it
  // reports a hang-up only after a writer came and went).
  const bool pipe_like = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
  for (;;) {
    if (pipe_like) wait_for_data();
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n > 0) {
      if (out.size() + static_cast<std::size_t>(n) > lim.max_bytes) throw FileReadError(path, too_big);
      out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return out;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw FileReadError(path, std::string("read failed: ") + std::strerror(errno));
    wait_for_data();  // a terminal or device with nothing to read yet
  }
}

}  // namespace ropecheck
