// core/cases/fork_private.h: a large case buffer is not in a forked process at all
// (a worker forked during a long case would otherwise keep it), a small one
// is, and the parent's buffer works as any vector.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>

#include "core/cases/fork_private.h"

namespace ropecheck {
namespace {

// mincore() fails with ENOMEM on an address no mapping covers.
bool mapped(const void* p) {
  const long ps = ::sysconf(_SC_PAGESIZE);
  auto* page = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(p) & ~static_cast<std::uintptr_t>(ps - 1));
  unsigned char v = 0;
  return !(::mincore(page, 1, &v) != 0 && errno == ENOMEM);
}

// What a forked child sees at p: 1 mapped, 0 not.
int mapped_in_child(const void* p) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(mapped(p) ? 1 : 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ForkPrivate, ALargeBufferIsNotInAForkedChild) {
  ByteBuffer large(kForkPrivateBytes, 7), small(kForkPrivateBytes - 1, 7);
  ASSERT_TRUE(mapped(large.data()));
  EXPECT_EQ(mapped_in_child(large.data()), 0);
  EXPECT_EQ(mapped_in_child(small.data()), 1);
  // Still an ordinary vector here: copies, growth, contents.
  ByteBuffer copy = large;
  copy.resize(3 * kForkPrivateBytes, 9);
  EXPECT_EQ(copy[kForkPrivateBytes - 1], 7);
  EXPECT_EQ(copy.back(), 9);
  EXPECT_EQ(large.size(), kForkPrivateBytes);
}

// A freed mapping serves the next buffer of its size (no fresh pages to
// fault in), and is still not in a forked child.
TEST(ForkPrivate, AFreedBufferServesTheNextOfItsSize) {
  const std::size_t n = 3 * kForkPrivateBytes + 5;
  const void* first = nullptr;
  {
    ByteBuffer a(n, 1);
    first = a.data();
  }
  ByteBuffer b(n, 2);
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(b.front(), 2);
  EXPECT_EQ(mapped_in_child(b.data()), 0);
  ByteBuffer other(n + 2 * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), 3);  // another size: a mapping of its own
  EXPECT_NE(other.data(), b.data());
}

}  // namespace
}  // namespace ropecheck
