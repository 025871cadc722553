// SPDX-License-Identifier: MIT
// Reading a file a user names, whatever it turns out to be. A path may name
// a directory, a device that never ends (/dev/zero), a FIFO nobody writes
// to, or a symlink to any of these: every read is bounded in size and in
// waiting time, and every refusal names the path and the cause.
#ifndef ROPECHECK_CORE_IO_FILE_READ_H_
#define ROPECHECK_CORE_IO_FILE_READ_H_

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ropecheck {

// what() is "PATH: cause".
class FileReadError : public std::runtime_error {
 public:
  FileReadError(const std::string& path, const std::string& cause)
      : std::runtime_error(path + ": " + cause), cause_(cause) {}
  const std::string& cause() const { return cause_; }

 private:
  std::string cause_;
};

struct ReadLimits {
  std::size_t max_bytes = 1 << 20;
  // Refuse anything but a regular file (after following symlinks): what a
  // golden export's files must be.
  bool regular_only = false;
  // How long a pipe or FIFO may go without data before the read gives up.
  double wait_seconds = 10;
};

// "a directory", "a character device", "a block device", "a FIFO", "a
// socket" for what is not a regular file (or a symlink), else nullptr.
const char* non_file_kind(unsigned mode);

// The whole content of `path`. Throws FileReadError when it cannot be
// opened, is a directory, is not a regular file (regular_only), holds more
// than max_bytes (checked while reading, so it holds for devices and pipes
// too), or a pipe stays silent for wait_seconds.
std::string read_file_bounded(const std::string& path, const ReadLimits& limits);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_IO_FILE_READ_H_
