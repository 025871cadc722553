// Fuzzes the validation of implementation tables (what a plugin hands the
// host): bytes -> an ropecheck_impl_t whose numbers are fuzzed and whose
// strings point into fuzzed, bounded buffers. The validator must answer with
// a message naming a field or accept; an accepted table must be coherent
// with what the harness relies on.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/impl_validation.h"

namespace {

ropecheck_status_t stub_apply(void*, const ropecheck_apply_params_t*, char*, std::size_t) {
  return ROPECHECK_UNSUPPORTED;
}
ropecheck_status_t stub_cache(void*, const ropecheck_freq_spec_t*, std::int32_t, std::int64_t, std::uint32_t, void*,
                              char*, std::size_t) {
  return ROPECHECK_UNSUPPORTED;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  ropecheck_impl_t t{};
  // Sizes and version: mostly right, sometimes anything.
  t.struct_size = fdp.ConsumeBool() ? sizeof(ropecheck_impl_t) : fdp.ConsumeIntegral<std::uint32_t>();
  t.abi_version = fdp.ConsumeBool() ? ROPECHECK_ABI_VERSION : fdp.ConsumeIntegral<std::uint32_t>();
  std::string name = fdp.ConsumeRandomLengthString(100);
  std::string description = fdp.ConsumeRandomLengthString(200);
  t.name = fdp.ConsumeIntegralInRange<int>(0, 9) ? name.c_str() : nullptr;
  t.description = fdp.ConsumeIntegralInRange<int>(0, 9) ? description.c_str() : nullptr;
  t.caps.struct_size = fdp.ConsumeBool() ? sizeof(ropecheck_caps_t) : fdp.ConsumeIntegral<std::uint32_t>();
  t.caps.layouts = fdp.ConsumeIntegral<std::uint32_t>() & (fdp.ConsumeBool() ? 0x3u : ~0u);
  t.caps.dtypes = fdp.ConsumeIntegral<std::uint32_t>() & (fdp.ConsumeBool() ? 0x7u : ~0u);
  t.caps.schemes = fdp.ConsumeIntegral<std::uint32_t>() & (fdp.ConsumeBool() ? 0xffu : ~0u);
  t.caps.max_head_dim = fdp.ConsumeIntegral<std::uint32_t>() % (fdp.ConsumeBool() ? 5000u : ~0u);
  t.caps.flags = fdp.ConsumeIntegral<std::uint32_t>() & (fdp.ConsumeBool() ? 0xffu : ~0u);
  t.policy.struct_size = fdp.ConsumeBool() ? sizeof(ropecheck_policy_t) : fdp.ConsumeIntegral<std::uint32_t>();
  t.policy.freq_dtype = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 5);
  t.policy.angle_mode = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 3);
  t.policy.sincos = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 3);
  t.policy.sincos_max_abs_error = fdp.ConsumeFloatingPoint<double>();
  t.policy.math_dtype = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 5);
  t.policy.cache_dtype = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 5);
  t.apply = fdp.ConsumeIntegralInRange<int>(0, 9) ? stub_apply : nullptr;
  t.build_cache = fdp.ConsumeBool() ? stub_cache : nullptr;
  const std::string why = ropecheck::validate_impl_table(&t);
  if (!why.empty()) {
    if (why.find(':') == std::string::npos) {
      std::fprintf(stderr, "validation message names no field: %s\n", why.c_str());
      std::abort();
    }
    return 0;
  }
  // Accepted: what the harness relies on must hold.
  const bool ok = t.apply != nullptr && t.name != nullptr && t.caps.max_head_dim >= 2 &&
                  t.caps.max_head_dim <= 4096 && t.caps.layouts != 0 && t.caps.dtypes != 0 &&
                  (!(t.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) || t.build_cache != nullptr);
  if (!ok) {
    std::fprintf(stderr, "validator accepted an incoherent table\n");
    std::abort();
  }
  return 0;
}
