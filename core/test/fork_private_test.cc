// SPDX-License-Identifier: MIT
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

// A smaller buffer takes the smallest freed mapping that holds it: its
// first pages (already faulted in) are reused, the rest is unmapped, and
// freeing it returns a mapping of its own size.
TEST(ForkPrivate, AFreedLargerBufferServesASmallerOneAndGivesUpItsTail) {
  const auto ps = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  // Larger than any buffer another test left in this thread's pool.
  const std::size_t big = 40 * kForkPrivateBytes, small = 20 * kForkPrivateBytes + 3;
  const unsigned char* first = nullptr;
  {
    ByteBuffer a(big, 1);
    first = a.data();
  }
  {
    ByteBuffer b(small, 2);
    ASSERT_EQ(b.data(), first);
    EXPECT_EQ(b.back(), 2);
    const std::size_t kept = (small + ps - 1) / ps * ps;
    EXPECT_TRUE(mapped(first + kept - 1));
    EXPECT_FALSE(mapped(first + kept));  // the tail went back to the system
    EXPECT_FALSE(mapped(first + big - 1));
    EXPECT_EQ(mapped_in_child(b.data()), 0);
  }
  ByteBuffer c(small, 3);  // the trimmed mapping serves its own size again
  EXPECT_EQ(c.data(), first);
  EXPECT_EQ(c.front(), 3);
}

}  // namespace
}  // namespace ropecheck
