// One call of an implementation through the C ABI on a case's buffers, and
// whether a case lies inside what the implementation declares it supports.
#ifndef ROPECHECK_CORE_KERNEL_CALL_H_
#define ROPECHECK_CORE_KERNEL_CALL_H_

#include <cstdint>
#include <string>

#include "core/buffers.h"
#include "core/cases.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The outcome of one call. The output buffers are the input copy (in place)
// or canary-filled buffers (out of place).
struct KernelRun {
  ropecheck_status_t status = ROPECHECK_OK;
  std::string message;
  QkBuffers out;
};

// cache_rows_short > 0 hands a cache kernel a cos/sin cache that many rows
// shorter than the largest position needs (the bounds-check property).
KernelRun call_kernel(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, int cache_rows_short = 0);

// Largest cos/sin cache (elements) built for a cache kernel; cases that need
// more are outside its capabilities here. Default 2^24 (64 MiB of fp32); the
// differential fuzzer lowers it to keep executions fast.
void set_max_cache_elements(std::int64_t n);
std::int64_t max_cache_elements();

// Why the case lies outside the implementation's declared capabilities (or
// the cache limit above); empty when the implementation must run it.
std::string outside_capabilities(const ropecheck_impl_t& impl, const Case& c);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_CALL_H_
