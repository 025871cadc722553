// SPDX-License-Identifier: MIT
// The dtype of the cos/sin cache passed in to a kernel reading the caller's (ABI 1.6), among those it declares.
#include "core/cases/cos_sin_cache_case.h"

#include <sys/resource.h>

#include <algorithm>

#include "core/cases/rng.h"
#include "ropecheck/capabilities.h"

namespace ropecheck {
namespace {

// The stream of the cache dtype's draw: the plain case's draws are untouched.
constexpr std::uint64_t kCacheStream = 0x636f'7373'696e'3136ull;  // "cossin16"

}  // namespace

std::vector<ropecheck_dtype_t> declared_cache_dtypes(std::uint32_t declared, ropecheck_dtype_t storage) {
  std::vector<ropecheck_dtype_t> r;
  for (const ropecheck_dtype_t d : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16})
    if (cos_sin_cache_dtype_accepted(declared, d, storage)) r.push_back(d);
  return r;
}

ropecheck_dtype_t caller_cache_dtype(const Case& c, std::uint32_t declared) {
  if (c.caller_cache_dtype) return *c.caller_cache_dtype;  // the case's own (outside_capabilities checks it)
  const std::vector<ropecheck_dtype_t> options = declared_cache_dtypes(declared, c.dtype);
  if (options.empty()) return ROPECHECK_DTYPE_F32;  // a table validation refuses; never called with one
  Rng rng(c.seed ^ (static_cast<std::uint64_t>(c.suite) << 56), kCacheStream + static_cast<std::uint64_t>(c.index));
  return options[static_cast<std::size_t>(rng.below(options.size()))];
}

std::size_t caller_cache_byte_limit() {
  static const std::size_t limit = [] {
    rlimit r{};
    if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kMaxCallerCacheBytes;
    return std::min<std::size_t>(kMaxCallerCacheBytes, static_cast<std::size_t>(r.rlim_cur) / 16);
  }();
  return limit;
}

std::int64_t caller_cache_position_limit(int rotary_dim) {
  return static_cast<std::int64_t>(caller_cache_byte_limit() / (4 * static_cast<std::size_t>(rotary_dim)));
}

}  // namespace ropecheck
