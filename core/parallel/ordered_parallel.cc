// SPDX-License-Identifier: MIT
// Work on worker threads, results consumed in index order on the calling thread.
#include "core/parallel/ordered_parallel.h"

#include <mpfr.h>

namespace ropecheck {

void release_thread_caches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

}  // namespace ropecheck
