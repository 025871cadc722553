// SPDX-License-Identifier: MIT
// One call of an implementation through the C ABI on a case's buffers, and
// whether a case lies inside what the implementation declares it supports.
#ifndef ROPECHECK_CORE_KERNEL_KERNEL_CALL_H_
#define ROPECHECK_CORE_KERNEL_KERNEL_CALL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/kv_write_case.h"
#include "core/cases/qk_norm_case.h"
#include "core/cases/quant_out_case.h"
#include "core/kernel/declared_capabilities.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The outcome of one call. Out of place, the outputs arrive holding a fresh
// random poison of a random kind (core/cases/buffers.h: NaNs, finite garbage or a
// copy of the input, drawn per call): an element the kernel never writes is
// judged wrong, and a kernel that reads its output before writing it, or
// tells the harness's buffer from a production one, sees different bytes
// each call.
// The KV-cache write of a call to a kernel granting KV_CACHE_WRITE (ABI
// 1.4): the write's case, and both caches before and after the call. The
// caches arrive in a state drawn per call (random bytes, zeros, NaN codes or
// finite codes: core/cases/kv_write_case.h, fill_cache_initial): an entry
// written where nothing should be, or not written where it should, shows,
// and a kernel whose write depends on what the cache held fails.
struct KvRun {
  KvWriteCase spec;
  ByteBuffer v;  // the v given
  ByteBuffer k_cache, v_cache;
  ByteBuffer k_initial, v_initial;
};

struct KernelRun {
  // Defined in kernel_call.cc, compiled at -O3: an inline one was emitted
  // also where the gate's orchestration compiles at -O1 (ropecheck_cold),
  // and the linker kept that copy, whose ByteBuffer destructors walk every
  // byte in an empty loop (a vector with its own allocator destroys element
  // by element; -O2 deletes the loop, -O1 does not): 7% of the quick gate.
  KernelRun() = default;
  ~KernelRun();
  KernelRun(const KernelRun&) = default;
  KernelRun(KernelRun&&) noexcept = default;
  KernelRun& operator=(const KernelRun&) = default;
  KernelRun& operator=(KernelRun&&) noexcept = default;

  ropecheck_status_t status = ROPECHECK_OK;
  std::string message;
  // What ropecheck saw the call do wrong beyond its status: isolation's
  // finding (a crash, an exit, a timeout, a thread or process left running,
  // a write into an input), a write into an input of an in-process call, or
  // a difference between two calls on the same case. Empty when none.
  std::string misbehaviour;
  QkBuffers out;
  QkBuffers initial;  // what the output buffers held before the call; empty when views_cover_buffer for both
  std::optional<KvRun> kv;  // the cache write, for a kernel granting it on a case with a k
  bool ok() const { return status == ROPECHECK_OK && misbehaviour.empty(); }
  // Why !ok(), for a failure message.
  std::string failure() const;
};

// Isolation's finding on the call just made (core/isolation/isolation.h,
// take_isolation_finding), if any, becomes r's misbehaviour.
void note_isolation_finding(KernelRun& r);

// What one call carries beyond its case and inputs, each the business of
// one part of the call (core/kernel/call_parts/):
//   cache_rows_short  > 0 hands a cache kernel a cos/sin cache that many rows
//                     shorter than the largest position needs (the
//                     bounds-check property);
//   poison            the kind the outputs arrive holding (drawn when absent);
//   norm              the qk-norm (ABI 1.5) the call carries, for a kernel
//                     granting QK_NORM (core/cases/qk_norm_case.h);
//   slot_mapping      the KV-cache write's slot per token in place of the
//                     case's (a permutation of it: the slot-mapping property);
//   kv_given          for a kernel granting KV_CACHE_WRITE, the write to make
//                     in place of the one drawn from the case (golden vectors
//                     read theirs from files): its spec, its v, and the
//                     caches' bytes before the call (k_initial, v_initial);
//                     the caller checks the kernel declares it
//                     (kv_write_outside_declared);
//   quant             the quantized output (ABI 1.8) the call carries, for a
//                     kernel granting QUANTIZED_OUTPUT on an out-of-place
//                     case (core/cases/quant_out_case.h): q_out's bytes
//                     then hold fp8 codes.
struct CallOptions {
  int cache_rows_short = 0;
  std::optional<PoisonKind> poison;
  const QkNormCase* norm = nullptr;
  const std::vector<std::int64_t>* slot_mapping = nullptr;
  const KvRun* kv_given = nullptr;
  const QuantOutCase* quant = nullptr;
};

// One call of impl on case c: every input the kernel receives is a private
// copy, compared with the case after the call ("wrote into its input
// positions"); the call's parts (core/kernel/call_parts/) set themselves up
// from c and `o`.
KernelRun call_kernel(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const CallOptions& o = {});

// The positions buffer a kernel is called with: the case's ids for 1D; for
// multi-axis, num_axes rows of tokens ids axis_stride apart (kernel_abi.h,
// ABI 1.3), the ids between rows an id no kernel may read.
struct CallPositions {
  std::vector<std::int64_t> ids;
  std::int64_t axis_stride = 0;
};
CallPositions call_positions(const Case& c);


}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_KERNEL_CALL_H_
