// Differential fuzzing: bytes -> a case of the one case generator
// (core/cases/cases.h, driven through FuzzedDataProvider) and input bits (the
// generator's values, or raw bit patterns: NaN, Inf, subnormals, huge) ->
// every implementation under test judged against the reference with the
// same judge as the gate (per-element budgets, non-finite propagation,
// pass-through and padding canaries). A violation aborts with the case and
// the judge's message.
//   ROPECHECK_FUZZ_IMPL=<name>    one built-in kernel, or a mutant of the
//                                 bug catalogue (mutants/mutant_list.h)
//   ROPECHECK_FUZZ_PLUGIN=<path>  the kernels of a plugin, in process (a
//                                 crash is a libFuzzer finding)
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/cases/axis_cases.h"
#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/judge.h"
#include "core/kernel/kernel_call.h"
#include "core/kernel/plugin.h"
#include "core/judge/reference_result.h"
#include "core/cases/rng.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"

namespace {

using namespace ropecheck;

// The fuzzer's bytes as the generator's choices; once the bytes run out
// every choice is 0, the simplest option.
class FuzzedChoices : public Choices {
 public:
  explicit FuzzedChoices(FuzzedDataProvider& fdp) : fdp_(fdp) {}
  std::uint64_t below(std::uint64_t n) override { return fdp_.ConsumeIntegralInRange<std::uint64_t>(0, n - 1); }
  double uniform() override {
    return static_cast<double>(fdp_.ConsumeIntegral<std::uint64_t>() >> 11) * 0x1p-53;
  }
  std::uint64_t bits() override { return fdp_.ConsumeIntegral<std::uint64_t>(); }

 private:
  FuzzedDataProvider& fdp_;
};

std::vector<const ropecheck_impl_t*> impls_under_test() {
  const char* only = std::getenv("ROPECHECK_FUZZ_IMPL");
  const char* plugin = std::getenv("ROPECHECK_FUZZ_PLUGIN");
  std::vector<const ropecheck_impl_t*> candidates(builtin_impls().begin(), builtin_impls().end());
  if (plugin && *plugin) {
    try {
      candidates = load_plugin(plugin).impls;
    } catch (const PluginError& e) {
      std::fprintf(stderr, "ROPECHECK_FUZZ_PLUGIN: %s\n", e.what());
      std::abort();
    }
  }
  std::vector<const ropecheck_impl_t*> v;
  for (const ropecheck_impl_t* impl : candidates)
    if (!only || std::string(only) == impl->name) v.push_back(impl);
  // A mutant of the catalogue runs only when named.
  if (only && v.empty())
    if (const ropecheck_impl_t* m = mutant::find_mutant(only)) v.push_back(m);
  if (v.empty()) {
    std::fprintf(stderr, "ROPECHECK_FUZZ_IMPL=%s: no such implementation\n", only);
    std::abort();
  }
  return v;
}

// One stored element: mostly the generator's values, else raw bit patterns
// (every class: NaN, Inf, subnormals, huge), stored exactly in the dtype.
void store_fuzzed(FuzzedDataProvider& fdp, unsigned char* base, std::int64_t i, ropecheck_dtype_t dt, Rng& fill) {
  const int kind = fdp.remaining_bytes() ? fdp.ConsumeIntegralInRange<int>(0, 7) : 0;
  if (kind < 5) {
    store_value(base, i, dt, draw_input(fill, dt));
  } else if (dt == ROPECHECK_DTYPE_F32) {
    const std::uint32_t bits = fdp.ConsumeIntegral<std::uint32_t>();
    std::memcpy(base + 4 * i, &bits, 4);
  } else {
    const std::uint16_t bits = fdp.ConsumeIntegral<std::uint16_t>();
    std::memcpy(base + 2 * i, &bits, 2);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<const ropecheck_impl_t*> impls = impls_under_test();
  // Cache kernels get positions up to ~2^12 here (a 2^18-element cache);
  // the other kernels see every position, extremes included.
  set_max_cache_elements(std::int64_t{1} << 18);
  FuzzedDataProvider fdp(data, size);
  FuzzedChoices choices(fdp);
  // Small shapes keep the high-precision reference fast enough to fuzz;
  // positions reach int32 max and below zero.
  CaseLimits limits;
  limits.max_log2_position = 31;
  limits.negative_chance = 0.1;
  limits.max_tokens = 3;
  limits.max_kv_heads = 2;
  limits.max_group = 2;
  Case c = draw_case(choices, limits);
  // A quarter of the inputs are multi-axis (ABI 1.3): every family of
  // core/cases/axis_cases.h, for the kernels that grant it.
  if (choices.chance(0.25)) make_multi_axis(choices, static_cast<int>(choices.below(kAxisFamilyCount)), &c);
  QkBuffers in = make_inputs(c);
  Rng fill(c.data_seed ^ 0x5eed);
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j)
          store_fuzzed(fdp, in.bytes[w].data(), g.offset(w, t, h, j), c.dtype, fill);
  const ReferenceResult ref = compute_reference(c, in);
  for (const ropecheck_impl_t* impl : impls) {
    if (!outside_capabilities(*impl, c).empty()) continue;
    const CaseOutcome out = judge(*impl, c, in, ref, call_kernel(*impl, c, in));
    if (out.outcome == Outcome::kFail) {
      std::fprintf(stderr, "\nropecheck differential: %s FAILS\n  case: %s data_seed=%llu\n  %s\n", impl->name,
                   c.describe().c_str(), static_cast<unsigned long long>(c.data_seed), out.message.c_str());
      std::abort();
    }
  }
  return 0;
}
