// SPDX-License-Identifier: MIT
// Fuzzes `check --config PATH` with paths of every kind: the first byte
// picks what the path is (a regular file, a directory, a symlink to the file,
// to /dev/zero, dangling or in a loop, a FIFO a thread writes the bytes into,
// an empty file, a sparse file past the size limit), the rest is the content.
// read_rope_config_file must give a validated config, a ConfigError naming
// a field, or a FileReadError naming the path; never a crash, a hang, an
// unbounded read or another exception.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "core/config/config.h"
#include "core/io/file_read.h"
#include "reference/frequencies.h"

namespace {

namespace fs = std::filesystem;

const fs::path& scratch() {
  static const fs::path d = [] {
    ::signal(SIGPIPE, SIG_IGN);  // a FIFO's reader may stop at the size limit
    const fs::path p = fs::temp_directory_path() / ("ropecheck_config_file_fuzzer_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}

void write_file(const fs::path& p, const std::string& s) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) std::abort();
  if (!s.empty() && ::write(fd, s.data(), s.size()) != static_cast<ssize_t>(s.size())) std::abort();
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int kind = data[0] % 9;
  const std::string content(reinterpret_cast<const char*>(data + 1), size - 1);
  const fs::path dir = scratch(), path = dir / "config.json", file = dir / "content.json";
  std::error_code ec;
  fs::remove_all(path, ec);
  fs::remove(file, ec);
  write_file(file, content);
  std::thread writer;
  switch (kind) {
    case 0: write_file(path, content); break;
    case 1: fs::create_directory(path); break;
    case 2: fs::create_symlink(file, path); break;
    case 3: fs::create_symlink("/dev/zero", path); break;
    case 4: fs::create_symlink(dir / "nowhere", path); break;
    case 5: fs::create_symlink(path, path); break;  // a loop
    case 6:
      ::mkfifo(path.c_str(), 0600);
      writer = std::thread([path, content] {
        const int fd = ::open(path.c_str(), O_WRONLY);
        for (std::size_t done = 0; fd >= 0 && done < content.size();) {
          const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
          if (n <= 0) break;
          done += static_cast<std::size_t>(n);
        }
        if (fd >= 0) ::close(fd);
      });
      break;
    case 7: write_file(path, ""); break;
    default:  // a sparse file past the limit, the content at its start
      write_file(path, content);
      if (::truncate(path.c_str(), static_cast<off_t>(ropecheck::kMaxConfigBytes) + 1) != 0) std::abort();
      break;
  }
  try {
    const ropecheck::RopeConfig c = ropecheck::read_rope_config_file(path.string());
    ropecheck::ref::validate(c.freq, c.shape);  // what was accepted is valid
    const auto f = ropecheck::ref::compute_frequencies<ropecheck::ref::Real>(c.freq, c.shape.rotary_dim);
    if (f.inv_freq.size() != static_cast<std::size_t>(c.shape.rotary_dim / 2)) std::abort();
  } catch (const ropecheck::ref::ConfigError& e) {
    if (e.field().empty()) std::abort();
  } catch (const ropecheck::FileReadError& e) {
    if (std::string(e.what()).rfind(path.string() + ": ", 0) != 0) {
      std::fprintf(stderr, "FileReadError not naming the path: %s\n", e.what());
      std::abort();
    }
  }
  if (writer.joinable()) {
    // A reader that stopped early leaves the writer waiting for a reader:
    // open the FIFO once more so it can finish.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
    writer.join();
    if (fd >= 0) ::close(fd);
  }
  return 0;
}
