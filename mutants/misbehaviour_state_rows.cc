// SPDX-License-Identifier: MIT
// The misbehaviours that leave state for a later call in the same process
// (a persistent worker, core/isolation/worker.h): results kept by address,
// by an input hash or from the first call; a timer left armed; a signal
// handler left installed; address space leaked; the floating-point rounding
// mode or flush-to-zero left set.
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cfenv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "mutants/kept_results.h"
#include "mutants/misbehaviour_rows.h"

namespace ropecheck::mutant {
namespace {

using Status = std::optional<ropecheck_status_t>;

bool g_first_done = false;
void* volatile g_leaked = nullptr;  // the last block leaked (leaks_address_space)
int g_calls = 0;                    // calls in this process (timer_left_armed, handler_left_installed)

void on_segv_exit_zero(int) { ::_exit(0); }

Status return_stale(MisbehavingCall& c) {
  const ropecheck_apply_params_t* p = c.p;
  const auto it = stale_results().find({p->q_in, q_bytes(p)});
  if (it == stale_results().end()) return std::nullopt;
  std::memcpy(p->q_out, it->second.q.data(), it->second.q.size());
  if (!it->second.k.empty()) std::memcpy(p->k_out, it->second.k.data(), it->second.k.size());
  return ROPECHECK_OK;
}

void keep_stale(MisbehavingCall& c) {
  const ropecheck_apply_params_t* p = c.p;
  const auto* q = static_cast<const unsigned char*>(p->q_out);
  const auto* k = static_cast<const unsigned char*>(p->k_out);
  StaleEntry& e = stale_results()[{p->q_in, q_bytes(p)}];
  e.q.assign(q, q + q_bytes(p));
  if (k) e.k.assign(k, k + k_bytes(p));
}

// Taken before the work, which in place overwrites the inputs.
Status return_hashed(MisbehavingCall& c) {
  c.input_key = sampled_input_hash(c.p);
  if (const auto it = hashed_results().find(c.input_key); it != hashed_results().end() && return_kept(it->second, c.p))
    return ROPECHECK_OK;
  return std::nullopt;
}

void keep_hashed(MisbehavingCall& c) { keep_result(hashed_results()[c.input_key], c.p); }

Status return_first(MisbehavingCall& c) {
  if (!g_first_done) return std::nullopt;
  return_kept(first_result(), c.p);  // or nothing at all, on another shape
  return ROPECHECK_OK;
}

void keep_first(MisbehavingCall& c) {
  keep_result(first_result(), c.p);
  g_first_done = true;
}

// The first call arms its timer after its work (arm_timer): armed before, a
// loaded machine could stretch the work past 50 ms and end the very call
// that armed it.
Status slow_after_first(MisbehavingCall&) {
  if (++g_calls > 1) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return std::nullopt;
}

void arm_timer(MisbehavingCall&) {
  if (g_calls != 1) return;
  itimerval t{};
  t.it_value.tv_usec = 50000;  // fires during the next call, if there is one in this process
  ::setitimer(ITIMER_REAL, &t, nullptr);
}

Status handler_left_installed(MisbehavingCall& c) {
  if (++g_calls == 1) {
    // Left for a later call in the same process: its crash would look like
    // a clean exit(0).
    struct sigaction sa {};
    sa.sa_handler = on_segv_exit_zero;
    ::sigaction(SIGSEGV, &sa, nullptr);
  } else {
    static_cast<volatile unsigned char*>(c.p->q_out)[q_bytes(c.p)] = 1;
  }
  return std::nullopt;
}

Status leaks_address_space(MisbehavingCall& c) {
  volatile std::size_t leak = std::size_t{256} << 20, work = std::size_t{512} << 20;
  g_leaked = std::malloc(leak);  // never freed, never touched: address space, no memory
  void* scratch = std::malloc(work);
  if (!scratch) {
    std::snprintf(c.err, c.n, "could not allocate its 512 MiB of scratch");
    return ROPECHECK_INTERNAL_ERROR;
  }
  std::free(scratch);
  return std::nullopt;
}

void fp_rounding_left(MisbehavingCall&) { std::fesetround(FE_UPWARD); }

void ftz_left(MisbehavingCall&) {
#if defined(__x86_64__)
  _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) and DAZ (bit 6)
#else
  std::fesetround(FE_TOWARDZERO);
#endif
}

}  // namespace

void add_state_rows(MisbehaviourRows& rows) {
  row_of(rows, Misbehaviour::stale_results) = {.before = return_stale, .after_any = nullptr, .after = keep_stale};
  row_of(rows, Misbehaviour::hash_cache) = {.before = return_hashed, .after_any = nullptr, .after = keep_hashed};
  row_of(rows, Misbehaviour::first_call_only) = {.before = return_first, .after_any = nullptr, .after = keep_first};
  row_of(rows, Misbehaviour::timer_left_armed) = {.before = slow_after_first, .after_any = arm_timer, .after = nullptr};
  row_of(rows, Misbehaviour::handler_left_installed).before = handler_left_installed;
  row_of(rows, Misbehaviour::leaks_address_space).before = leaks_address_space;
  row_of(rows, Misbehaviour::fp_rounding_left).after = fp_rounding_left;
  row_of(rows, Misbehaviour::ftz_left).after = ftz_left;
}

}  // namespace ropecheck::mutant
