// SPDX-License-Identifier: MIT
// Every kind of path a user may name reads whole or is refused naming the
// path and the cause: never a hang, never an unbounded read.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/config/config.h"
#include "core/io/file_read.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ropecheck_file_read_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::string cause_of(const std::string& path, const ReadLimits& lim) {
  try {
    read_file_bounded(path, lim);
  } catch (const FileReadError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
    return e.cause();
  }
  return "accepted";
}

TEST(FileRead, RefusesWhatIsNoFileOrTooLarge) {
  TempDir t;
  ReadLimits lim;
  lim.max_bytes = 1000;
  EXPECT_EQ(cause_of(t.path.string(), lim), "is a directory, not a file");
  EXPECT_EQ(cause_of("/dev/zero", lim), "holds more than the limit of 1000 bytes");  // the limit holds for devices
  const fs::path big = t.path / "big";
  std::ofstream(big) << std::string(1001, 'x');
  EXPECT_EQ(cause_of(big.string(), lim), "is 1001 bytes, more than the limit of 1000");
  EXPECT_NE(cause_of((t.path / "missing").string(), lim).find("cannot be opened"), std::string::npos);
  const fs::path link = t.path / "zero_link";
  fs::create_symlink("/dev/zero", link);
  lim.regular_only = true;
  EXPECT_EQ(cause_of(link.string(), lim), "is a character device, not a regular file");
}

TEST(FileRead, ReadsAFifoItsWriterFillsAndGivesUpOnASilentOne) {
  TempDir t;
  const fs::path fifo = t.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text(200000, 'a');  // more than a pipe's buffer
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    for (std::size_t done = 0; done < text.size();) done += static_cast<std::size_t>(::write(fd, text.data() + done, text.size() - done));
    ::close(fd);
  });
  ReadLimits lim;
  lim.max_bytes = 1 << 20;
  EXPECT_TRUE(read_file_bounded(fifo.string(), lim) == text);
  writer.join();
  lim.wait_seconds = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(cause_of(fifo.string(), lim).find("gave no data"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(FileRead, ConfigFilesOfEveryKindAreReadOrRefused) {
  TempDir t;
  EXPECT_THROW(read_rope_config_file(t.path.string()), FileReadError);
  EXPECT_THROW(read_rope_config_file("/dev/zero"), FileReadError);
  const fs::path empty = t.path / "empty.json";
  std::ofstream(empty).flush();
  EXPECT_THROW(read_rope_config_file(empty.string()), ref::ConfigError);
  const fs::path ok = t.path / "ok.json";
  std::ofstream(ok) << R"({"head_dim": 64, "rope_theta": 10000})";
  const fs::path link = t.path / "link.json";
  fs::create_symlink(ok, link);
  EXPECT_EQ(read_rope_config_file(link.string()).shape.head_dim, 64);
}

}  // namespace
}  // namespace ropecheck
