// SPDX-License-Identifier: MIT
// Fuzzes the validation of implementation tables (what a plugin hands the
// host): bytes -> an ropecheck_impl_t whose numbers are fuzzed and whose
// strings point into fuzzed, bounded buffers. The validator must answer with
// a message naming a field or accept; an accepted table must be coherent
// with what the harness relies on.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "core/kernel/impl_validation.h"

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
  // The table at the start of a buffer as large as any struct_size the
  // validator reads: a table may claim a newer ABI's size with a tail.
  alignas(ropecheck_impl_t) static unsigned char buffer[ropecheck::kMaxImplStructSize];
  std::fill(std::begin(buffer), std::end(buffer), 0);
  ropecheck_impl_t& t = *new (buffer) ropecheck_impl_t{};
  // Sizes and version: mostly right (1.1 or 1.0), sometimes anything.
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: t.struct_size = sizeof(ropecheck_impl_t); break;
    case 1: t.struct_size = ROPECHECK_IMPL_SIZE_1_0; break;
    case 2: t.struct_size = fdp.ConsumeIntegralInRange<std::uint32_t>(0, ropecheck::kMaxImplStructSize); break;
    default: t.struct_size = fdp.ConsumeIntegral<std::uint32_t>(); break;
  }
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
  t.caps.flags = fdp.ConsumeIntegral<std::uint32_t>() & (fdp.ConsumeBool() ? 0x7ffu : ~0u);
  t.policy.struct_size = fdp.ConsumeBool() ? sizeof(ropecheck_policy_t) : fdp.ConsumeIntegral<std::uint32_t>();
  t.policy.freq_dtype = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 5);
  t.policy.angle_mode = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 3);
  t.policy.sincos = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 3);
  t.policy.sincos_max_abs_error = fdp.ConsumeFloatingPoint<double>();
  t.policy.math_dtype = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 5);
  t.policy.cache_dtype = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 5) + (fdp.ConsumeBool() ? 0u : 250u);
  t.policy.math_dtype += fdp.ConsumeBool() ? 0u : 250u;  // 255: OF_STORAGE
  // ABI 1.1 members (ignored by the validator when struct_size ends before them).
  t.abi_minor = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 2);
  t.reserved0 = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 9) ? 0u : 1u;
  ropecheck_policy_ext_t& e = t.policy_ext;
  e.struct_size = fdp.ConsumeBool() ? sizeof(ropecheck_policy_ext_t)
                                    : (fdp.ConsumeBool() ? 0u : fdp.ConsumeIntegral<std::uint32_t>());
  e.rotation_form = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 2);
  e.sincos_max_ulp = fdp.ConsumeBool() ? 0.0 : fdp.ConsumeFloatingPoint<double>();
  e.sincos_abs_error_range = fdp.ConsumeBool() ? 0.0 : fdp.ConsumeFloatingPoint<double>();
  e.sincos_phase_error_slope = fdp.ConsumeBool() ? 0.0 : fdp.ConsumeFloatingPoint<double>();
  e.freq_pow_max_ulp = fdp.ConsumeBool() ? 0.0 : fdp.ConsumeFloatingPoint<double>();
  e.positions_f32 = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 2);
  e.reserved = fdp.ConsumeIntegralInRange<std::uint32_t>(0, 9) ? 0u : 1u;
  if (fdp.ConsumeBool()) {  // a newer ABI's members past this host's struct
    const std::size_t at = fdp.ConsumeIntegralInRange<std::size_t>(sizeof(ropecheck_impl_t), sizeof buffer - 1);
    buffer[at] = fdp.ConsumeIntegral<unsigned char>();
  }
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
  // Accepted: what the harness relies on must hold of the host's copy.
  const ropecheck_impl_t h = ropecheck::host_table(t);
  const bool ok = h.policy_ext.struct_size == sizeof(ropecheck_policy_ext_t) && t.apply != nullptr &&
                  t.name != nullptr && t.caps.max_head_dim >= 2 &&
                  t.caps.max_head_dim <= 4096 && t.caps.layouts != 0 && t.caps.dtypes != 0 &&
                  (!(t.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) || t.build_cache != nullptr);
  if (!ok) {
    std::fprintf(stderr, "validator accepted an incoherent table\n");
    std::abort();
  }
  return 0;
}
