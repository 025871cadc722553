// SPDX-License-Identifier: MIT
// Writing a file whole or not at all: a temporary in the same directory, flushed, renamed over the target.
#include "core/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "core/io/file_read.h"

namespace ropecheck {
namespace {

// The file a write lands in: a symlink is written through to its target
// (renaming over the link itself would replace the link with a file).
std::string resolve_target(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec))) return path;
  const std::filesystem::path t = std::filesystem::weakly_canonical(path, ec);
  if (ec) throw std::runtime_error(path + ": cannot resolve the symlink: " + ec.message());
  return t.string();
}

}  // namespace

void write_file_atomically(const std::string& requested, const std::string& content) {
  const std::string path = resolve_target(requested);
  // Renaming over a device node, a FIFO or a directory would replace it
  // (as root, ropecheck replaced /dev/full): refuse, naming it.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    if (const char* kind = non_file_kind(st.st_mode))
      throw std::runtime_error(requested + ": is " + kind + ", not a regular file; refusing to replace it");
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw std::runtime_error(requested + ": cannot create " + tmp + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(requested + ": write failed: " + std::strerror(e));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(requested + ": flush failed: " + std::strerror(e));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(requested + ": rename failed: " + std::strerror(e));
  }
}

}  // namespace ropecheck
