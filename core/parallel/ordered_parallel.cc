// SPDX-License-Identifier: MIT
#include "core/parallel/ordered_parallel.h"

#include <mpfr.h>

namespace ropecheck {

void release_thread_caches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

}  // namespace ropecheck
