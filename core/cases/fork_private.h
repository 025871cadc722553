// SPDX-License-Identifier: MIT
// Large buffers a forked process never inherits.
//
// Every isolated kernel call runs in a process forked from ropecheck (a
// persistent worker, or a child per call: core/isolation/isolation.h). A fork shares
// the parent's memory copy-on-write; once the parent frees a buffer, the
// child's copy is the child's alone. A worker forked while ropecheck held a
// 36864-token case kept that case's 1.8 GB for the rest of the run, and a
// dozen such workers exhausted the machine in the exhaustive suite. A child
// never needs ropecheck's case buffers (it works on copies in shared memory),
// so a large buffer is mapped on its own and marked MADV_DONTFORK
// (madvise(2)): not in the child at all, and the fork copies no page tables
// for it. A few freed mappings are kept per thread for the next buffer of
// the same size (fork_private.cc).
#ifndef ROPECHECK_CORE_CASES_FORK_PRIVATE_H_
#define ROPECHECK_CORE_CASES_FORK_PRIVATE_H_

#include <cstddef>
#include <vector>

namespace ropecheck {

// Below this a buffer comes from the heap as usual.
inline constexpr std::size_t kForkPrivateBytes = std::size_t{1} << 20;

void* fork_private_allocate(std::size_t bytes);  // throws std::bad_alloc
void fork_private_free(void* p, std::size_t bytes);

template <class T>
struct ForkPrivateAllocator {
  using value_type = T;
  ForkPrivateAllocator() = default;
  template <class U>
  ForkPrivateAllocator(const ForkPrivateAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(fork_private_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { fork_private_free(p, n * sizeof(T)); }
  friend bool operator==(const ForkPrivateAllocator&, const ForkPrivateAllocator&) { return true; }
};

using ByteBuffer = std::vector<unsigned char, ForkPrivateAllocator<unsigned char>>;

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_FORK_PRIVATE_H_
