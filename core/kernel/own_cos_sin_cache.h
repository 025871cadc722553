// SPDX-License-Identifier: MIT
// The cos/sin cache a kernel granting COS_SIN_CACHE builds for itself with
// its build_cache (kernel_abi.h), as call_kernel hands it over: built
// through the kernel's own builder (in its worker when isolated) and kept
// per thread between calls, so that a case's properties build it once or
// twice instead of once per call.
#ifndef ROPECHECK_CORE_KERNEL_OWN_COS_SIN_CACHE_H_
#define ROPECHECK_CORE_KERNEL_OWN_COS_SIN_CACHE_H_

#include <cstdint>

#include "core/isolation/fp_env.h"
#include "core/kernel/kernel_call.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

struct OwnCosSinCache {
  const float* data = nullptr;   // at least the rows asked for, rotary_dim fp32 values each
  std::uint64_t generation = 0;  // names these bytes for isolation (name_cache_contents)
  // > 0: [data, data + read_only_bytes) are pages of their own, PROT_READ
  // until the next build (at least the rows asked for), a watch names a
  // write into them (ReadOnlyWatch::AlreadyReadOnly). 0: writable (no
  // fault handler of ropecheck's to name a write, as in an AddressSanitizer
  // build; built for isolated calls, which copy it; an mprotect that
  // failed).
  std::size_t read_only_bytes = 0;
};

// The cache a call asks for: of frequencies `freq` over rotary_dim, with
// at least `rows` rows.
struct CacheWanted {
  const ropecheck_freq_spec_t& freq;
  int rotary_dim = 0;
  std::int64_t rows = 0;
};

// impl's cache as `want` asks: the thread's last one when the same builder
// built it for the same spec with as many rows, else built now. A build
// that fails, or leaves the floating-point control state other than
// `fp_before` (given back), returns a null `data` with r's status, message
// and misbehaviour set.
OwnCosSinCache own_cos_sin_cache(const ropecheck_impl_t& impl, const CacheWanted& want, const FpControl& fp_before,
                                 KernelRun* r);

// This thread's cache is no longer trusted (a kernel wrote into it during
// a call): the next call builds it again, its pages writable until then.
void forget_own_cos_sin_cache();

// Whether a build adds rows to spare for the shifted positions the gate's
// properties call a case with (on by default). A caller whose every call
// brings a new spec (the differential fuzzer: one per input) turns it off:
// there the spare rows were never read (where the cache limit left room for
// them, they doubled the table built per execution).
void set_own_cache_spare_rows(bool on);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_OWN_COS_SIN_CACHE_H_
