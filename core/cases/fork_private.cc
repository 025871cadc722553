#include "core/cases/fork_private.h"

#include <sys/mman.h>

#include <new>

namespace ropecheck {

void* fork_private_allocate(std::size_t bytes) {
  if (bytes < kForkPrivateBytes) return ::operator new(bytes);
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  ::madvise(m, bytes, MADV_DONTFORK);  // where it fails, the buffer is inherited as before
  return m;
}

void fork_private_free(void* p, std::size_t bytes) {
  if (!p) return;
  if (bytes < kForkPrivateBytes) {
    ::operator delete(p);
    return;
  }
  ::munmap(p, bytes);
}

}  // namespace ropecheck
