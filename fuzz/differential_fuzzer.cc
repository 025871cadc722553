// SPDX-License-Identifier: MIT
// Differential fuzzing: bytes -> a case of the one case generator
// (core/cases/cases.h, its choices read from the input:
// fuzz/differential/fuzz_case.h), redrawn within each kernel's declaration
// as the gate redraws it (core/cases/case_fit.h), in every form the gate
// judges (the rotation alone, multi-axis positions, the KV-cache write and
// MLA's caches, the qk-norm, the caller's cos/sin cache), with raw input
// bits (NaN, Inf, subnormals, huge values) -> every kernel under test
// judged by the gate's own judges (fuzz/differential/judge_call.h). A
// violation aborts naming the kernel, the case, the fused part and the
// element. Which kernels: fuzz/differential/kernels_under_test.h
// (ROPECHECK_FUZZ_IMPL, ROPECHECK_FUZZ_PLUGIN, ROPECHECK_FUZZ_ISOLATION);
// what was judged is tallied for `ropecheck fuzz` (fuzz/differential/tally.h,
// ROPECHECK_FUZZ_TALLY).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/kernel/declared_capabilities.h"
#include "core/kernel/own_cos_sin_cache.h"
#include "fuzz/differential/fuzz_case.h"
#include "fuzz/differential/judge_call.h"
#include "fuzz/differential/kernels_under_test.h"
#include "fuzz/differential/tally.h"

namespace {

using namespace ropecheck;
using namespace ropecheck::fuzz;

struct Harness {
  KernelsUnderTest kernels = kernels_under_test();
  Tally tally{kernels.impls};
  Harness() {
    // Cache kernels get positions up to ~2^12 here (a 2^18-element cache);
    // the other kernels see every position, extremes included.
    set_max_cache_elements(std::int64_t{1} << 18);
    // Every input is a new spec: a cache kernel's table is built per
    // execution, and rows beyond the call's would never be read.
    set_own_cache_spare_rows(false);
  }
};

Harness& harness() {
  static Harness* h = [] {
    auto* made = new Harness();  // never destroyed: atexit writes its tally last
    std::atexit([] { harness().tally.write(); });
    return made;
  }();
  return *h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Harness& h = harness();
  const FuzzInput input = decode_input(data, size, h.kernels.multi_axis);
  PreparedCases cases(input, h.kernels.impls.size() > 1);
  for (std::size_t k = 0; k < h.kernels.impls.size(); ++k) {
    const ropecheck_impl_t& impl = *h.kernels.impls[k];
    const Case c = case_for(impl, input.drawn);
    if (const std::string why = outside_capabilities(impl, c); !why.empty()) {
      h.tally.skipped(static_cast<int>(k), why);
      continue;
    }
    const CallVerdict v = judge_call(impl, c, input, cases);
    if (!v.declined.empty()) {
      h.tally.skipped(static_cast<int>(k), v.declined);
      continue;
    }
    h.tally.judged(static_cast<int>(k), c, v.form);
    if (!v.failure.empty()) {
      h.tally.write();
      std::fprintf(stderr, "\nropecheck differential: %s FAILS\n  case: %s data_seed=%llu\n%s%s%s  %s\n", impl.name,
                   c.describe().c_str(), static_cast<unsigned long long>(c.data_seed),
                   v.detail.empty() ? "" : "  fused: ", v.detail.c_str(), v.detail.empty() ? "" : "\n",
                   v.failure.c_str());
      std::abort();
    }
  }
  h.tally.executed();
  return 0;
}
