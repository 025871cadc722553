// Differential fuzzing: bytes -> a valid rope case (shape, layout, dtype,
// direction, scheme and parameters, positions including the extremes, GQA,
// strides) and input bits (normal values, subnormals, huge values, NaN, Inf)
// -> every implementation under test judged against the reference with the
// same judge as the gate (per-element budgets, non-finite propagation,
// pass-through and padding canaries). A violation aborts with the case and
// the judge's message. ROPECHECK_FUZZ_IMPL=<name> restricts it to one
// implementation (what `ropecheck fuzz --impl` will set).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ropecheck/cases.h"
#include "ropecheck/conformance.h"
#include "ropecheck/dtype.h"
#include "ropecheck/error_model.h"
#include "ropecheck/harness.h"
#include "ropecheck/registry.h"
#include "ropecheck/rng.h"
#include "planted_mutants.h"
#include "ropecheck/plugin.h"

namespace {

using namespace ropecheck;


// ROPECHECK_FUZZ_PLUGIN=<path.so> fuzzes a plugin's kernels (in process: a
// crash is a libFuzzer finding) instead of the built-in ones.
std::vector<const ropecheck_impl_t*> impls_under_test() {
  std::vector<const ropecheck_impl_t*> v;
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
  for (const ropecheck_impl_t* impl : candidates)
    if (!only || std::string(only) == impl->name) v.push_back(impl);
  // The planted mutants run only when named.
  for (const ropecheck_impl_t* impl : {fuzz::layout_swap_above_4096(), fuzz::layout_swap_head_dim_192()})
    if (only && std::string(only) == impl->name) v.push_back(impl);
  if (v.empty()) {
    std::fprintf(stderr, "ROPECHECK_FUZZ_IMPL=%s: no such implementation\n", only);
    std::abort();
  }
  return v;
}

// One stored element: mostly moderate values, else raw bit patterns (every
// class: NaN, Inf, subnormals, huge), stored exactly in the dtype.
void store_fuzzed(FuzzedDataProvider& fdp, unsigned char* base, std::int64_t i, ropecheck_dtype_t dt,
                  Rng& fill) {
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
  Case c;
  // Small shapes keep the high-precision reference fast enough to fuzz.
  c.shape.head_dim = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<int>(2, 72)
                                        : fdp.ConsumeIntegralInRange<int>(73, 256);
  const int max_even = c.shape.head_dim - c.shape.head_dim % 2;
  c.shape.rotary_dim = fdp.ConsumeBool() ? max_even : 2 * fdp.ConsumeIntegralInRange<int>(1, max_even / 2);
  const auto scheme = static_cast<ropecheck_scheme_t>(fdp.ConsumeIntegralInRange<int>(0, ROPECHECK_SCHEME_COUNT - 1));
  Rng params(fdp.ConsumeIntegral<std::uint32_t>());
  c.freq = draw_scheme(params, c.shape.rotary_dim, scheme);
  c.layout = fdp.ConsumeBool() ? ROPECHECK_LAYOUT_INTERLEAVED : ROPECHECK_LAYOUT_HALF_SPLIT;
  c.dtype = static_cast<ropecheck_dtype_t>(fdp.ConsumeIntegralInRange<int>(0, 2));
  c.direction = fdp.ConsumeBool() ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
  c.tokens = fdp.ConsumeIntegralInRange<int>(1, 3);
  c.kv_heads = fdp.ConsumeIntegralInRange<int>(1, 2);
  c.q_heads = c.kv_heads * fdp.ConsumeIntegralInRange<int>(1, 2);
  c.in_place = fdp.ConsumeBool();
  c.head_pad = fdp.ConsumeIntegralInRange<int>(0, 3);
  c.token_pad = fdp.ConsumeIntegralInRange<int>(0, 5);
  for (std::int64_t t = 0; t < c.tokens; ++t) {
    const int how = fdp.ConsumeIntegralInRange<int>(0, 3);
    std::int64_t p;
    if (how == 0) {
      const auto edges = edge_positions();  // the grid's edges, and their negatives
      p = edges[fdp.ConsumeIntegralInRange<std::size_t>(0, edges.size() - 1)] * (fdp.ConsumeBool() ? 1 : -1);
    }
    else if (how == 1) p = fdp.ConsumeIntegralInRange<std::int64_t>(0, 1 << 20);
    else if (how == 2) p = fdp.ConsumeIntegral<std::int32_t>();
    else p = fdp.ConsumeIntegralInRange<std::int64_t>(0, 4096);
    c.positions.push_back(p);
  }
  c.position_type = c.max_abs_position() <= 2147483647 && fdp.ConsumeBool() ? ROPECHECK_INDEX_INT32
                                                                            : ROPECHECK_INDEX_INT64;
  // Inputs: the layout make_inputs uses (canaries in padding), fuzzed bits.
  c.data_seed = fdp.ConsumeIntegral<std::uint32_t>();
  Tensors in = make_inputs(c);
  Rng fill(c.data_seed ^ 0x5eed);
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j) store_fuzzed(fdp, in.t[w].data(), g.offset(w, t, h, j), c.dtype, fill);
  const ReferenceResult ref = compute_reference(c, in);
  for (const ropecheck_impl_t* impl : impls) {
    if (!out_of_scope(*impl, c).empty()) continue;
    const CaseOutcome out = judge(*impl, c, in, ref, execute(*impl, c, in));
    if (out.outcome == Outcome::kFail) {
      std::fprintf(stderr, "\nropecheck differential: %s FAILS\n  case: %s data_seed=%llu\n  %s\n", impl->name,
                   c.describe().c_str(), static_cast<unsigned long long>(c.data_seed), out.message.c_str());
      std::abort();
    }
  }
  return 0;
}
