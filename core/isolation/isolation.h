// SPDX-License-Identifier: MIT
// Crash isolation: every call of a kernel runs in another process, on
// copies of its buffers placed in guarded shared memory
// (core/isolation/guarded_copies.h), so a kernel that crashes, exits, hangs, writes
// where it must not, or leaves work running becomes a failing call (status
// ROPECHECK_INTERNAL_ERROR, the message starting "isolated call: " and
// naming the cause) and the gate goes on.
//   - every buffer ends exactly at a PROT_NONE guard page (overruns fault,
//     named by the buffer) and starts after one, with the slack before it
//     canary-filled (an underrun within the page is caught afterwards);
//   - every input (q and k when out of place, positions, the cos/sin cache,
//     the frequency spec and its arrays, the params struct) is copied too,
//     and proven unchanged after the call: "wrote into its input positions";
//   - outputs are copied back only when the call returned OK, after every
//     process it started is dead (or, in a worker, after the worker was
//     stopped and shown to have nothing else running), so nothing can write
//     into them later;
//   - out-of-place outputs arrive holding what the caller put there (a fresh
//     poison per call, core/kernel/kernel_call.h): an element the kernel never
//     writes is judged as that poison.
// Two modes. kWorker (the default): one persistent worker process per
// implementation and calling thread (core/isolation/worker.h), its buffers in an arena
// of shared memory reused across calls; consecutive calls alternate between
// two regions of it, so two calls in a row never see the same addresses; a
// region keeps the cos/sin cache of its last call for the next call handed
// the same one (name_cache_contents), proven unchanged after every call.
// A call that fails in any way, or whose buffers show damage, retires the
// worker. kFork: a child process per call (core/isolation/child_process.h).
#ifndef ROPECHECK_CORE_ISOLATION_ISOLATION_H_
#define ROPECHECK_CORE_ISOLATION_ISOLATION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/isolation/child_process.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

enum class IsolationMode { kWorker, kFork };

struct IsolationOptions {
  double timeout_seconds = 10;
  double memory_limit_gib = kDefaultMemoryLimitGiB;
  IsolationMode mode = IsolationMode::kWorker;
};

// A table with the same name, capabilities and policy whose apply and
// build_cache run `inner` isolated. The wrapper lives for the process.
// Kernels that cannot be called in a forked child (the registry says which:
// a CUDA context does not survive fork()) are not wrapped by the caller.
const ropecheck_impl_t* isolate(const ropecheck_impl_t* inner, const IsolationOptions& o);

// The table isolate() wrapped when impl is one of its tables, else null. An
// isolated kernel only ever sees copies of what it is handed, so the caller
// need not copy inputs for it.
const ropecheck_impl_t* isolated_inner(const ropecheck_impl_t& impl);

// Names the bytes of the cos/sin cache the calling thread hands the calls
// that follow: a call handed `data` sees the bytes it held when named under
// `generation`, until it is named again (new bytes get a new generation, at
// the same address or not). A worker then keeps the cache an earlier call
// of the same implementation was handed in the same region, instead of
// copying up to 64 MiB in again (a build into `data` leaves it kept too);
// every call still proves its copy equal to `data` afterwards, so a wrong
// name costs a failing call, never a write that goes unseen. Generation 0
// (the default): every call copies it in. `live` (when given, it must
// outlive the calls): the byte ranges of `data` that hold bytes, the rest
// reading as zeros (core/kernel/caller_cos_sin_cache.h: a cache of up to
// terabytes of address space); only those are copied and compared.
void name_cache_contents(const void* data, std::uint64_t generation,
                         const std::vector<std::pair<std::size_t, std::size_t>>* live = nullptr);
// A generation no bytes were named under before, for the caches of every
// kind a thread hands out (a kernel's own, the caller's of ABI 1.6).
std::uint64_t new_cache_generation();

// Ends the calling thread's workers (a thread's workers also end with it):
// a gate run calls it when it is done with its implementations.
void retire_workers();

// "worker", "fork" (--isolation).
const char* isolation_mode_name(IsolationMode m);

// The message prefix of a call that isolation failed (not the kernel's own
// status), in its err text through the ABI.
inline constexpr const char* kIsolatedCallPrefix = "isolated call: ";

// What isolation found wrong with the calling thread's last isolated call
// (a crash, an exit, a timeout, a process left running, a write into an
// input), as a value: the call returns INTERNAL_ERROR through the ABI, and
// the caller takes the finding from here (core/kernel/kernel_call.h) rather
// than telling it from the kernel's own messages by their text. Taking it
// empties it; a call that found nothing leaves none.
struct IsolationFinding {
  std::string what;  // "crashed with signal 11 (a NULL pointer dereference at 0x40)"
  std::string text() const { return kIsolatedCallPrefix + what; }
};
std::optional<IsolationFinding> take_isolation_finding();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_ISOLATION_H_
