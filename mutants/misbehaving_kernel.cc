// SPDX-License-Identifier: MIT
// The misbehaving kernels of misbehaviour_list.h: the control kernel
// (Bug::none), correct on its own, wrapped with one attack on the harness.
// Written to be obvious, not clever: each row is what a buggy or
// reward-hacking kernel would do (KernelArena's taxonomy of semantic attacks
// names writing results late, caching, reading stale outputs, touching memory
// it was not given).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "mutants/cos_sin_cache_mutants.h"
#include "mutants/kept_results.h"
#include "mutants/mutant_kernel.h"
#include "mutants/timing_gamers.h"
#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"

namespace ropecheck::mutant {
namespace {

constexpr int kCount = static_cast<int>(std::size(kMisbehaviours));

bool g_first_done = false;

void on_segv_exit_zero(int) { ::_exit(0); }

void* volatile g_leaked = nullptr;  // the last block leaked (leaks_address_space)
int g_calls = 0;                    // calls in this process (timer_left_armed, handler_left_installed)

// Overwrites q_out with garbage 50 ms from now, forever: work a kernel left
// running after apply returned.
[[noreturn]] void scribble_forever(void* q_out, std::size_t bytes) {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (unsigned char v = 0;; ++v) std::memset(q_out, v, bytes);
}

// A daemon (out of the call's process group) that sends sig to each of its
// ancestors named ropecheck (its worker or child, the run, the supervisor),
// then stays a while: the orphan of issue #49. Ancestors only, so that no
// other run on the machine is reached where nothing fences it.
void signal_ropecheck_from_a_daemon(int sig) {
  if (const pid_t mid = ::fork(); mid == 0) {
    ::setsid();
    if (::fork() == 0) {
      for (pid_t pid = ::getppid(); pid > 1;) {
        char path[64], stat[512] = {};
        std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
        FILE* f = std::fopen(path, "r");
        if (!f) break;
        const std::size_t got = std::fread(stat, 1, sizeof stat - 1, f);
        std::fclose(f);
        stat[got] = '\0';
        const char* open = std::strchr(stat, '(');
        const char* close = std::strrchr(stat, ')');
        if (!open || !close) break;
        if (std::strncmp(open + 1, "ropecheck", 9) == 0) ::kill(pid, sig);
        int ppid = 0;
        if (std::sscanf(close + 2, "%*c %d", &ppid) != 1) break;
        pid = static_cast<pid_t>(ppid);
      }
      ::sleep(3);
      ::_exit(0);
    }
    ::_exit(0);
  } else if (mid > 0) {
    ::waitpid(mid, nullptr, 0);
  }
}

volatile bool g_deeper = true;  // always true; the compiler cannot know

int recurse(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return (g_deeper ? recurse(depth + 1) : 0) + frame[0];
}

// The control's rotation, reading each output element before writing it:
// where the byte it finds there is odd it evaluates the rotation in double
// (rounded once), else in fp32. Both are within the declared fp32 policy,
// but the result now depends on what the output held.
ropecheck_status_t rotate_reading_output(const ropecheck_apply_params_t* p) {
  const int d = p->rotary_dim, pairs = d / 2;
  const auto f = impl::engine_frequencies<double>(*p->freq, d);
  const double sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1 : 1;
  std::vector<float> c(pairs), s(pairs);
  impl::for_each_head(*p, [&](std::int64_t t) { return impl::position_at(p, t); }, [&](const impl::HeadRef& h) {
    for (int i = 0; i < pairs; ++i) {
      const double a = static_cast<double>(h.position) * f.inv_freq[i];
      c[i] = static_cast<float>(f.attention_factor * std::cos(a));
      s[i] = static_cast<float>(sign * f.attention_factor * std::sin(a));
      int ia, ib;
      pair_channels(p->layout, d, i, &ia, &ib);
      const float x = impl::load_f32(h.in, h.offset + ia, p->dtype), y = impl::load_f32(h.in, h.offset + ib, p->dtype);
      const auto* old = static_cast<const unsigned char*>(h.out) + (h.offset + ia) * dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
      const bool wide = h.in != h.out && (*old & 1);
      const float xa = wide ? static_cast<float>(static_cast<double>(x) * c[i] - static_cast<double>(y) * s[i]) : x * c[i] - y * s[i];
      const float yb = wide ? static_cast<float>(static_cast<double>(x) * s[i] + static_cast<double>(y) * c[i]) : x * s[i] + y * c[i];
      impl::store_f32(h.out, h.offset + ia, p->dtype, xa);
      impl::store_f32(h.out, h.offset + ib, p->dtype, yb);
    }
  });
  return ROPECHECK_OK;
}

// What each row computes with: the catalogue's clean kernel, its cache
// kernel for writes_cache (whose only bug, no bounds check, is outside every
// case its cache covers), the caller's-cache control for restores_caller_cache.
const ropecheck_impl_t& clean_kernel(Misbehaviour m) {
  if (m == Misbehaviour::writes_cache) return *mutant_impl(Bug::cache_no_bounds_check);
  if (m == Misbehaviour::restores_caller_cache) return *caller_cache_control();
  return *mutant_impl(Bug::none);
}

ropecheck_status_t misbehaving_apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Misbehaviour m = static_cast<const MisbehaviourInfo*>(ctx)->kind;
  // writes_cache needs a cache kernel: the catalogue's, whose only bug
  // (no bounds check) is outside every case its cache covers.
  const ropecheck_impl_t& clean = clean_kernel(m);
  if (auto st = impl::check_apply(clean.caps, p, err, n)) return st;
  const bool big = p->num_tokens > 3, out_of_place = p->q_in != p->q_out;
  // Taken before the work, which in place overwrites the inputs.
  const std::uint64_t input_key = m == Misbehaviour::hash_cache ? sampled_input_hash(p) : 0;
  // Before the work.
  volatile std::uintptr_t wild = 64;  // an address the compiler cannot see through
  switch (m) {
    case Misbehaviour::crash:
      if (big) *reinterpret_cast<volatile int*>(wild) = 1;
      break;
    case Misbehaviour::hang:
      if (big)
        for (volatile bool forever = true; forever;) {
        }
      break;
    case Misbehaviour::exit_in_apply:
      if (big) std::exit(0);
      break;
    case Misbehaviour::stack_overflow:
      if (big) return static_cast<ropecheck_status_t>(recurse(0));
      break;
    case Misbehaviour::null_after_alloc:
      if (big) {
        volatile std::size_t huge = std::size_t{1} << 37;
        auto* block = static_cast<volatile char*>(std::malloc(huge));
        block[0] = 1;  // unchecked
        std::free(const_cast<char*>(block));
      }
      break;
    case Misbehaviour::overrun:
      if (big) static_cast<volatile unsigned char*>(p->q_out)[q_bytes(p)] = 1;
      break;
    case Misbehaviour::underrun:
      if (big) {
        const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
        volatile unsigned char* before = static_cast<unsigned char*>(p->q_out) - es;
        for (std::size_t i = 0; i < es; ++i) before[i] = 0;
      }
      break;
    case Misbehaviour::reads_output:
      return rotate_reading_output(p);
    case Misbehaviour::late_writer: {
      // The work, done by a thread that outlives the call by a millisecond:
      // by the time anyone looks, the results are there and the thread is
      // gone; a caller reading them on return sees the poison.
      const ropecheck_impl_t* c = &clean;
      std::thread([c, p] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        char e[256];
        c->apply(c->ctx, p, e, sizeof e);
      }).detach();
      return ROPECHECK_OK;
    }
    case Misbehaviour::raw_exit:
      if (big) ::_exit(0);
      break;
    case Misbehaviour::closes_stdout:
      if (big) ::close(1);
      break;
    case Misbehaviour::closes_stdout_and_stderr:
      if (big) {
        ::close(1);
        ::close(2);
      }
      break;
    case Misbehaviour::prints_stdout:
      std::printf("misbehaving_prints_stdout: printf from apply (%lld tokens)\n", static_cast<long long>(p->num_tokens));
      {
        static const char kLine[] = "misbehaving_prints_stdout: write(1) from apply\n";
        [[maybe_unused]] const ssize_t w = ::write(1, kLine, sizeof kLine - 1);
      }
      break;
    case Misbehaviour::poison_sniffer:
      // Tells the harness's poison from a production buffer: computes only
      // when every output element it looks at is a NaN.
      if (out_of_place) {
        const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
        bool all_nan = true;
        for (std::size_t i = 0; i + es <= q_bytes(p) && all_nan; i += es * 7)
          all_nan = std::isnan(impl::load_f32(p->q_out, static_cast<std::int64_t>(i / es), p->dtype));
        if (!all_nan) {
          std::memcpy(p->q_out, p->q_in, q_bytes(p));
          if (k_bytes(p)) std::memcpy(p->k_out, p->k_in, k_bytes(p));
          return ROPECHECK_OK;
        }
      }
      break;
    case Misbehaviour::hash_cache:
      if (const auto it = hashed_results().find(input_key);
          it != hashed_results().end() && return_kept(it->second, p))
        return ROPECHECK_OK;
      break;
    case Misbehaviour::first_call_only:
      if (g_first_done) {
        return_kept(first_result(), p);  // or nothing at all, on another shape
        return ROPECHECK_OK;
      }
      break;
    case Misbehaviour::extra_passes: {
      // Three more rotations, out of place into scratch, before the real one.
      std::vector<unsigned char> sq(q_bytes(p)), sk(k_bytes(p));
      ropecheck_apply_params_t scratch = *p;
      scratch.q_out = sq.data();
      scratch.k_out = sk.empty() ? nullptr : sk.data();
      for (int pass = 0; pass < 3; ++pass)
        if (auto st = clean.apply(clean.ctx, &scratch, err, n)) return st;
      break;
    }
    case Misbehaviour::stale_results:
      if (const auto it = stale_results().find({p->q_in, q_bytes(p)}); it != stale_results().end()) {
        std::memcpy(p->q_out, it->second.q.data(), it->second.q.size());
        if (!it->second.k.empty()) std::memcpy(p->k_out, it->second.k.data(), it->second.k.size());
        return ROPECHECK_OK;
      }
      break;
    case Misbehaviour::handler_left_installed:
      if (++g_calls == 1) {
        // Left for a later call in the same process: its crash would look
        // like a clean exit(0).
        struct sigaction sa {};
        sa.sa_handler = on_segv_exit_zero;
        ::sigaction(SIGSEGV, &sa, nullptr);
      } else {
        static_cast<volatile unsigned char*>(p->q_out)[q_bytes(p)] = 1;
      }
      break;
    case Misbehaviour::timer_left_armed:
      // The first call arms its timer after its work (below): armed before,
      // a loaded machine could stretch the work past 50 ms and end the very
      // call that armed it.
      if (++g_calls > 1) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      break;
    case Misbehaviour::leaks_address_space: {
      volatile std::size_t leak = std::size_t{256} << 20, work = std::size_t{512} << 20;
      g_leaked = std::malloc(leak);  // never freed, never touched: address space, no memory
      void* scratch = std::malloc(work);
      if (!scratch) {
        std::snprintf(err, n, "could not allocate its 512 MiB of scratch");
        return ROPECHECK_INTERNAL_ERROR;
      }
      std::free(scratch);
      break;
    }
    default:
      break;
  }
  if (m == Misbehaviour::diff_cache) return diff_cached_apply(clean, p, err, n);
  if (m == Misbehaviour::computes_every_fourth_call) return every_fourth_call_apply(clean, p, err, n);
  std::vector<unsigned char> before;
  if (m == Misbehaviour::unwritten && out_of_place)
    before.assign(static_cast<const unsigned char*>(p->q_out), static_cast<const unsigned char*>(p->q_out) + q_bytes(p));
  const ropecheck_status_t st = clean.apply(clean.ctx, p, err, n);
  if (m == Misbehaviour::timer_left_armed && g_calls == 1) {
    itimerval t{};
    t.it_value.tv_usec = 50000;  // fires during the next call, if there is one in this process
    ::setitimer(ITIMER_REAL, &t, nullptr);
  }
  if (st != ROPECHECK_OK) return st;
  // After the work, which is correct.
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
  switch (m) {
    case Misbehaviour::unwritten:  // the output of the last rotated channel of every q head, as it was
      if (!out_of_place) break;
      for (std::int64_t t = 0; t < p->num_tokens; ++t)
        for (int h = 0; h < p->num_q_heads; ++h) {
          int a, b;
          pair_channels(p->layout, p->rotary_dim, p->rotary_dim / 2 - 1, &a, &b);
          const auto at = static_cast<std::size_t>(t * p->q_token_stride + h * p->q_head_stride + b) * es;
          std::memcpy(static_cast<unsigned char*>(p->q_out) + at, before.data() + at, es);
        }
      break;
    case Misbehaviour::writes_positions:
      static_cast<unsigned char*>(const_cast<void*>(p->positions))[0] ^= 1;
      break;
    case Misbehaviour::writes_q_in:
      if (out_of_place) static_cast<unsigned char*>(const_cast<void*>(p->q_in))[0] ^= 1;
      break;
    case Misbehaviour::writes_freq:
      const_cast<ropecheck_freq_spec_t*>(p->freq)->base *= 2;
      break;
    case Misbehaviour::writes_cache:  // the sign bit of row 0's first cos
      if (p->cos_sin_cache) static_cast<unsigned char*>(const_cast<void*>(p->cos_sin_cache))[3] ^= 0x80;
      break;
    case Misbehaviour::restores_caller_cache:  // a byte of its first position's row, flipped and put back
      if (p->cos_sin_cache && p->num_tokens > 0) {
        const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->cache_dtype));
        auto* at = static_cast<volatile unsigned char*>(const_cast<void*>(p->cos_sin_cache)) +
                   static_cast<std::size_t>(impl::position_at(p, 0)) * static_cast<std::size_t>(p->rotary_dim) * es;
        *at = static_cast<unsigned char>(*at ^ 0x80);
        *at = static_cast<unsigned char>(*at ^ 0x80);
      }
      break;
    case Misbehaviour::background_thread:
      std::thread(scribble_forever, p->q_out, q_bytes(p)).detach();
      break;
    case Misbehaviour::forked_writer:
      if (::fork() == 0) scribble_forever(p->q_out, q_bytes(p));
      break;
    case Misbehaviour::daemon:
      if (const pid_t mid = ::fork(); mid == 0) {
        ::setsid();  // out of the call's process group
        if (::fork() == 0) scribble_forever(p->q_out, q_bytes(p));
        ::_exit(0);  // its child is an orphan now
      } else if (mid > 0) {
        ::waitpid(mid, nullptr, 0);
      }
      break;
    case Misbehaviour::hash_cache:
      keep_result(hashed_results()[input_key], p);
      break;
    case Misbehaviour::first_call_only:
      keep_result(first_result(), p);
      g_first_done = true;
      break;
    case Misbehaviour::stale_results: {
      const auto* q = static_cast<const unsigned char*>(p->q_out);
      const auto* k = static_cast<const unsigned char*>(p->k_out);
      StaleEntry& e = stale_results()[{p->q_in, q_bytes(p)}];
      e.q.assign(q, q + q_bytes(p));
      if (k) e.k.assign(k, k + k_bytes(p));
      break;
    }
    case Misbehaviour::fp_rounding_left:
      std::fesetround(FE_UPWARD);
      break;
    case Misbehaviour::ftz_left:
#if defined(__x86_64__)
      _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) and DAZ (bit 6)
#else
      std::fesetround(FE_TOWARDZERO);
#endif
      break;
    case Misbehaviour::stops_ropecheck:
    case Misbehaviour::kills_ropecheck:
      if (big) signal_ropecheck_from_a_daemon(m == Misbehaviour::stops_ropecheck ? SIGSTOP : SIGKILL);
      break;
    case Misbehaviour::sleeping_child:
      if (::fork() == 0) {
        ::prctl(PR_SET_NAME, "rc_sleeping_kid");  // the test looks for it afterwards
        ::sleep(1000);
        ::_exit(0);
      }
      break;
    default:
      break;
  }
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* misbehaving_impl(Misbehaviour m) {
  static const auto* tables = [] {
    static ropecheck_impl_t t[kCount];
    for (int i = 0; i < kCount; ++i) {
      const MisbehaviourInfo& info = kMisbehaviours[i];
      t[i] = clean_kernel(info.kind);
      // Its misbehaviours address q as one run of tokens (no ABI 1.2 batch).
      t[i].caps.flags &= ~ROPECHECK_CAP_SEQ_STRIDES;
      t[i].name = info.name;
      t[i].description = info.description;
      t[i].ctx = const_cast<MisbehaviourInfo*>(&info);
      t[i].apply = misbehaving_apply;
      if (info.kind == Misbehaviour::wrong_abi) t[i].abi_version = 99;
      if (info.kind == Misbehaviour::bad_caps) t[i].caps = impl::standard_caps(impl::kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE);
      if (info.kind == Misbehaviour::declines_everything) {
        t[i].caps.max_head_dim = 2;
        t[i].caps.dtypes = 1u << ROPECHECK_DTYPE_F16;
        t[i].caps.schemes = 1u << ROPECHECK_SCHEME_LONGROPE;
      }
    }
    return t;
  }();
  return &tables[static_cast<int>(m)];
}

}  // namespace ropecheck::mutant
