// SPDX-License-Identifier: MIT
// The persistent worker of core/isolation/isolation.h (core/isolation/worker.h), seen from the
// caller: calls run in one process, each in another place of its arena; a
// call that fails in any way, or leaves a timer armed or address space
// behind, gets the next call a new process; nothing of one worker reaches
// another's socket, nor the memory of a kernel of another library (the
// kernels of one share their thread's arena); --isolation fork keeps a
// child per call.
// A probe kernel does what positions[0] of each call says and reports its
// pid and buffer addresses in its message; the misbehaving plugins through
// the CLI are mutants/plugin_isolation_test.sh.
#include <dirent.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/isolation/isolation.h"
#include "core/isolation/worker_slot.h"
#include "core/test/probe_kernel.h"

// A namespace of its own: the unity build compiles it beside the other probe tests.
namespace ropecheck::worker_test {
namespace {

enum Command : std::int64_t {
  kReport = 0,     // the identity, and the report
  kCrash,          // a write near address 0
  kLeaveThread,    // a detached thread writing into q_out forever
  kArmTimer,       // SIGALRM 50 ms later, left armed
  kExit3,          // exit(3)
  kHang,           // sleeps 30 s
  kReadAddress,    // reads the byte at positions[1]
  kLeak400MiB,     // 400 MiB of address space, never freed
  kCloseAll,       // closes every descriptor from 3 up (as some libraries do before they daemonize)
  kSleepMs,        // sleeps positions[1] milliseconds
  kDaemon,         // a daemon: fork, setsid, fork again, the middle process exits (its child an orphan)
  kTryEscape,      // tries to undo the hold on its descendants (core/isolation/descendant_hold.h) and reports
};

constexpr int kTokens = 2, kHeadDim = 4;
constexpr std::size_t kBytes = kTokens * kHeadDim * sizeof(float);

int socket_descriptors() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (const dirent* e = ::readdir(d)) {
      char target[64] = {0};
      const std::string link = std::string("/proc/self/fd/") + e->d_name;
      if (::readlink(link.c_str(), target, sizeof target - 1) > 0 && std::strncmp(target, "socket:", 7) == 0) ++n;
    }
    ::closedir(d);
  }
  return n;
}

[[noreturn]] void scribble(void* q_out) {
  for (unsigned char v = 0;; ++v) std::memset(q_out, v, kBytes);
}

ropecheck_status_t probe(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const auto* pos = static_cast<const std::int64_t*>(p->positions);
  std::memmove(p->q_out, p->q_in, kBytes);
  if (p->k_out) std::memmove(p->k_out, p->k_in, kBytes);
  switch (pos[0]) {
    case kCrash: {
      volatile std::uintptr_t wild = 64;  // an address the compiler cannot see through
      *reinterpret_cast<volatile int*>(wild) = 1;
      break;
    }
    case kLeaveThread: std::thread(scribble, p->q_out).detach(); break;
    case kArmTimer: {
      itimerval t{};
      t.it_value.tv_usec = 50000;
      ::setitimer(ITIMER_REAL, &t, nullptr);
      break;
    }
    case kExit3: std::exit(3);
    case kCloseAll:
      for (int fd = 3; fd < 1024; ++fd) ::close(fd);
      break;
    case kHang: std::this_thread::sleep_for(std::chrono::seconds(30)); break;
    case kSleepMs: std::this_thread::sleep_for(std::chrono::milliseconds(pos[1])); break;
    case kDaemon:
      if (const pid_t mid = ::fork(); mid == 0) {
        ::setsid();
        if (::fork() == 0)
          for (;;) ::pause();
        ::_exit(0);
      } else if (mid > 0) {
        ::waitpid(mid, nullptr, 0);
      }
      break;
    case kTryEscape: {
      const int unset = ::prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) == 0 ? 0 : errno;
      int held = 0;
      ::prctl(PR_GET_CHILD_SUBREAPER, &held, 0, 0, 0);
      // clone(CLONE_PARENT): a sibling, the child of ropecheck itself.
      const long sibling = ::syscall(SYS_clone, static_cast<unsigned long>(CLONE_PARENT | SIGCHLD), nullptr, nullptr,
                                     nullptr, nullptr);
      if (sibling == 0) ::_exit(0);
      const int clone_parent = sibling > 0 ? 0 : errno;
#if defined(SYS_clone3)
      const int clone3 = ::syscall(SYS_clone3, nullptr, 0) == 0 ? 0 : errno;
#else
      const int clone3 = ENOSYS;
#endif
      std::snprintf(err, n, "unset=%d held=%d clone_parent=%d clone3=%d", unset, held, clone_parent, clone3);
      return ROPECHECK_OK;
    }
    case kReadAddress: {
      const volatile char c = *reinterpret_cast<const volatile char*>(static_cast<std::uintptr_t>(pos[1]));
      (void)c;
      break;
    }
    case kLeak400MiB: {
      static void* volatile leaked;
      leaked = std::malloc(std::size_t{400} << 20);
      if (!leaked) {
        std::snprintf(err, n, "malloc refused");
        return ROPECHECK_INTERNAL_ERROR;
      }
      break;
    }
    default: break;
  }
  std::snprintf(err, n, "pid=%d q_in=%p q_out=%p sockets=%d", static_cast<int>(::getpid()), p->q_in,
                static_cast<const void*>(p->q_out), socket_descriptors());
  return ROPECHECK_OK;
}

ropecheck_impl_t probe_table() { return test::probe_table("probe", probe); }

// own_arena: the probe declares a cos/sin cache of its own (it is never
// handed one here), so its worker works in an arena of its own instead of
// its thread's arena for the kernels of this binary (worker_slot.h).
const ropecheck_impl_t* isolated_probe(IsolationMode mode, double timeout = 10, double memory_gib = 16,
                                       bool own_arena = false) {
  static const ropecheck_impl_t inner = probe_table();
  static const ropecheck_impl_t inner_own = test::probe_table("probe", probe, nullptr, ROPECHECK_CAP_COS_SIN_CACHE);
  IsolationOptions o;
  o.mode = mode;
  o.timeout_seconds = timeout;
  o.memory_limit_gib = memory_gib;
  return isolate(own_arena ? &inner_own : &inner, o);
}

struct Report {
  ropecheck_status_t status = ROPECHECK_OK;
  std::string message;
  int pid = 0, sockets = -1;
  const void* q_in = nullptr;
  const void* q_out = nullptr;
  bool identity = false;  // q_out came back equal to q_in
};

// The params of a probe call: the command and its argument in positions,
// one q head and one k head of kTokens contiguous tokens (q and k set by
// the caller).
struct ProbeParams {
  std::int64_t positions[kTokens];
  ropecheck_freq_spec_t f{};
  ropecheck_apply_params_t p{};
  ProbeParams(std::int64_t command, std::int64_t arg) : positions{command, arg} {
    f.scheme = ROPECHECK_SCHEME_DEFAULT;
    f.base = 10000;
    p.struct_size = sizeof p;
    p.dtype = ROPECHECK_DTYPE_F32;
    p.num_tokens = kTokens;
    p.num_q_heads = p.num_kv_heads = 1;
    p.head_dim = p.rotary_dim = kHeadDim;
    p.q_token_stride = p.k_token_stride = kHeadDim;
    p.q_head_stride = p.k_head_stride = kHeadDim;
    p.positions = positions;
    p.position_type = ROPECHECK_INDEX_INT64;
    p.freq = &f;
  }
  ProbeParams(const ProbeParams&) = delete;  // p points into it
};

Report call(const ropecheck_impl_t* t, std::int64_t command, std::int64_t arg = 0) {
  float q_in[kTokens * kHeadDim], k_in[kTokens * kHeadDim], q_out[kTokens * kHeadDim], k_out[kTokens * kHeadDim];
  for (int i = 0; i < kTokens * kHeadDim; ++i) q_in[i] = k_in[i] = static_cast<float>(i + 1);
  std::memset(q_out, 0, sizeof q_out);
  std::memset(k_out, 0, sizeof k_out);
  ProbeParams pp(command, arg);
  ropecheck_apply_params_t& p = pp.p;
  p.q_in = q_in;
  p.q_out = q_out;
  p.k_in = k_in;
  p.k_out = k_out;
  char err[1024] = {0};
  Report r;
  r.status = t->apply(t->ctx, &p, err, sizeof err);
  r.message = err;
  std::sscanf(err, "pid=%d q_in=%p q_out=%p sockets=%d", &r.pid, const_cast<void**>(&r.q_in),
              const_cast<void**>(&r.q_out), &r.sockets);
  r.identity = std::memcmp(q_out, q_in, sizeof q_in) == 0;
  return r;
}

TEST(Worker, CallsRunInOneProcessAtAlternatingAddresses) {
  const ropecheck_impl_t* t = isolated_probe(IsolationMode::kWorker);
  const Report a = call(t, kReport), b = call(t, kReport), c = call(t, kReport);
  ASSERT_EQ(a.status, ROPECHECK_OK) << a.message;
  ASSERT_EQ(b.status, ROPECHECK_OK) << b.message;
  ASSERT_EQ(c.status, ROPECHECK_OK) << c.message;
  EXPECT_TRUE(a.identity && b.identity && c.identity) << "the outputs come back";
  EXPECT_NE(a.pid, ::getpid());
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(b.pid, c.pid);
  // Two calls in a row (conformance's two calls, core/kernel/kernel_call.h) never
  // share an address; the third is back in the first's region.
  EXPECT_NE(a.q_in, b.q_in);
  EXPECT_NE(a.q_out, b.q_out);
  EXPECT_EQ(a.q_in, c.q_in);
  retire_workers();
}

// --timeout is per 2^24 elements a call computes (core/isolation/isolated_call.cc): a
// call of 2^26 elements may take four times as long as a small one, in
// both modes. q alone, in place: 256 MiB here and 256 MiB in the arena.
TEST(Worker, TheTimeoutGrowsWithTheElementsOfTheCall) {
  for (IsolationMode mode : {IsolationMode::kWorker, IsolationMode::kFork}) {
    const ropecheck_impl_t* t = isolated_probe(mode, /*timeout=*/0.3);
    const Report small = call(t, kSleepMs, 600);
    EXPECT_EQ(small.status, ROPECHECK_INTERNAL_ERROR) << small.message;
    EXPECT_NE(small.message.find("timed out after 0.3 s"), std::string::npos) << small.message;

    const std::int64_t stride = (std::int64_t{1} << 26) - kHeadDim;  // extent: stride + head_dim elements
    std::vector<float> q(static_cast<std::size_t>(stride + kHeadDim), 1.0f);
    ProbeParams pp(kSleepMs, 600);
    ropecheck_apply_params_t& p = pp.p;
    p.num_kv_heads = 0;
    p.q_in = p.q_out = q.data();
    p.q_token_stride = stride;
    char err[1024] = {0};
    EXPECT_EQ(t->apply(t->ctx, &p, err, sizeof err), ROPECHECK_OK) << err;
  }
  retire_workers();
}

TEST(Worker, AChildPerCallWithIsolationFork) {
  const ropecheck_impl_t* t = isolated_probe(IsolationMode::kFork);
  const Report a = call(t, kReport), b = call(t, kReport);
  ASSERT_EQ(a.status, ROPECHECK_OK) << a.message;
  ASSERT_EQ(b.status, ROPECHECK_OK) << b.message;
  EXPECT_NE(a.pid, b.pid);
}

TEST(Worker, EveryFailingCallGetsTheNextCallANewProcess) {
  const ropecheck_impl_t* t = isolated_probe(IsolationMode::kWorker, /*timeout=*/0.5);
  struct Row {
    Command command;
    const char* message;
  };
  for (const Row& row : {Row{kCrash, "isolated call: crashed with signal 11 (a NULL pointer dereference at 0x40)"},
                         Row{kLeaveThread, "isolated call: left 1 thread(s) running after it returned"},
                         Row{kExit3, "isolated call: called exit(3)"},
                         Row{kCloseAll, "isolated call: closed or replaced a descriptor it did not open"},
                         Row{kHang, "isolated call: timed out after 0.5 s"}}) {
    const Report before = call(t, kReport);
    ASSERT_EQ(before.status, ROPECHECK_OK) << before.message;
    const Report bad = call(t, row.command);
    EXPECT_EQ(bad.status, ROPECHECK_INTERNAL_ERROR) << row.message;
    EXPECT_EQ(bad.message.rfind(row.message, 0), 0u) << bad.message;
    EXPECT_FALSE(bad.identity) << "no output is copied back from a failed call";
    // A thread of the failed call wrote into its q_out forever: it is dead,
    // and the next call's buffers are another process's.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const Report after = call(t, kReport);
    ASSERT_EQ(after.status, ROPECHECK_OK) << after.message;
    EXPECT_TRUE(after.identity) << row.message;
    EXPECT_NE(after.pid, before.pid) << row.message;
  }
  retire_workers();
}

TEST(Worker, ClosingTheDescriptorItAnswersOnIsNamedInBothModes) {
  // Before, a child per call that lost its socket waited to be killed at
  // the timeout ("timed out", 10 s by default).
  for (IsolationMode mode : {IsolationMode::kWorker, IsolationMode::kFork}) {
    const Report r = call(isolated_probe(mode, /*timeout=*/5), kCloseAll);
    EXPECT_EQ(r.status, ROPECHECK_INTERNAL_ERROR) << isolation_mode_name(mode);
    EXPECT_EQ(r.message.rfind("isolated call: closed or replaced a descriptor it did not open", 0), 0u)
        << isolation_mode_name(mode) << ": " << r.message;
  }
  retire_workers();
}

TEST(Worker, ATimerLeftArmedRetiresTheWorkerWithoutFailingTheCall) {
  const ropecheck_impl_t* t = isolated_probe(IsolationMode::kWorker);
  const Report armed = call(t, kArmTimer);
  ASSERT_EQ(armed.status, ROPECHECK_OK) << armed.message;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past the alarm
  const Report next = call(t, kReport);
  ASSERT_EQ(next.status, ROPECHECK_OK) << next.message;
  EXPECT_NE(next.pid, armed.pid);
  retire_workers();
}

TEST(Worker, AddressSpaceKeptPastTheMemoryLimitRetiresTheWorker) {
  // --memory-limit 1 GiB, 400 MiB kept per call: every call still gets its
  // gibibyte; the worker serves calls until it holds more than that.
  const ropecheck_impl_t* t = isolated_probe(IsolationMode::kWorker, 10, /*memory_gib=*/1);
  int pids[6];
  for (int& pid : pids) {
    const Report r = call(t, kLeak400MiB);
    ASSERT_EQ(r.status, ROPECHECK_OK) << r.message;
    pid = r.pid;
  }
  EXPECT_EQ(pids[0], pids[1]) << "reused while under the limit";
  EXPECT_NE(pids[0], pids[5]) << "replaced once over it";
  retire_workers();
}

TEST(Worker, AWorkerSeesNeitherAnotherArenasMemoryNorAnotherWorkersSocket) {
  const ropecheck_impl_t* b = isolated_probe(IsolationMode::kWorker, 10, 16, /*own_arena=*/true);
  const Report rb = call(b, kReport);
  ASSERT_EQ(rb.status, ROPECHECK_OK) << rb.message;
  // Started after b's arena exists, while ropecheck holds b's socket.
  const ropecheck_impl_t* a = isolated_probe(IsolationMode::kWorker);
  const Report ra = call(a, kReport);
  ASSERT_EQ(ra.status, ROPECHECK_OK) << ra.message;
  EXPECT_EQ(ra.sockets, 1) << "its own socket only";
  const Report reach = call(a, kReadAddress, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(rb.q_in)));
  EXPECT_EQ(reach.status, ROPECHECK_INTERNAL_ERROR);
  EXPECT_EQ(reach.message.rfind("isolated call: crashed with signal 11 (an access to memory it was not given", 0), 0u)
      << reach.message;
  retire_workers();
}

// Two kernels of one library on one thread (the built-in kernels, or one
// plugin's) work in one arena, each in its own worker, one call at a time:
// a sibling's call can read what an earlier call left in the arena, a
// kernel of another library's cannot (above). Sharing the pages instead of
// holding two regions per kernel and thread is what the arena saves.
TEST(Worker, SiblingKernelsOfOneLibraryShareTheirThreadsArenaInWorkersOfTheirOwn) {
  const ropecheck_impl_t* b = isolated_probe(IsolationMode::kWorker);
  const ropecheck_impl_t* a = isolated_probe(IsolationMode::kWorker);
  const Report rb = call(b, kReport), ra = call(a, kReport);
  ASSERT_EQ(rb.status, ROPECHECK_OK) << rb.message;
  ASSERT_EQ(ra.status, ROPECHECK_OK) << ra.message;
  EXPECT_NE(ra.pid, rb.pid) << "a worker per kernel";
  EXPECT_EQ(ra.sockets, 1) << "its own socket only";
  const Report reach = call(a, kReadAddress, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(rb.q_in)));
  EXPECT_EQ(reach.status, ROPECHECK_OK) << reach.message;
  retire_workers();
}

// The domains themselves: every kernel of one loaded object shares one, a
// kernel of another object another, and a kernel handed a cos/sin cache
// (its own or the caller's) none: it keeps that cache in an arena of its own.
TEST(Worker, AKernelSharesAnArenaWithTheKernelsOfItsLibraryUnlessHandedACache) {
  const ropecheck_impl_t here = probe_table();
  ropecheck_impl_t sibling = here;
  sibling.apply = [](void*, const ropecheck_apply_params_t*, char*, std::size_t) -> ropecheck_status_t {
    return ROPECHECK_OK;
  };
  // Never called: only where its code lies is asked (the C library).
  ropecheck_impl_t elsewhere = here;
  elsewhere.apply = reinterpret_cast<decltype(ropecheck_impl_t::apply)>(&std::abort);
  const void* domain = WorkerSlot::sharing_domain(&here);
  ASSERT_NE(domain, nullptr);
  EXPECT_EQ(WorkerSlot::sharing_domain(&sibling), domain);
  EXPECT_NE(WorkerSlot::sharing_domain(&elsewhere), nullptr);
  EXPECT_NE(WorkerSlot::sharing_domain(&elsewhere), domain);
  for (const std::uint32_t flag : {ROPECHECK_CAP_COS_SIN_CACHE, ROPECHECK_CAP_CALLER_COS_SIN_CACHE}) {
    ropecheck_impl_t cached = here;
    cached.caps.flags |= flag;
    EXPECT_EQ(WorkerSlot::sharing_domain(&cached), nullptr) << flag;
  }
}

// What a call leaves running is found under the call's own process (the
// hold of core/isolation/descendant_hold.h), never among ropecheck's
// children, so a call judged meanwhile on another thread is never blamed
// for it (check --jobs; the daemon plugin beside a correct one in
// mutants/plugin_isolation_test.sh).
TEST(Worker, AnOrphanIsBlamedOnTheCallThatLeftItAndOnNoCallBesideIt) {
  for (const IsolationMode mode : {IsolationMode::kWorker, IsolationMode::kFork}) {
    SCOPED_TRACE(isolation_mode_name(mode));
    std::vector<Report> daemons, beside;
    std::thread a([&] {
      const ropecheck_impl_t* t = isolated_probe(mode);
      for (int i = 0; i < 8; ++i) daemons.push_back(call(t, kDaemon));
      retire_workers();
    });
    std::thread b([&] {
      const ropecheck_impl_t* t = isolated_probe(mode);
      for (int i = 0; i < 40; ++i) beside.push_back(call(t, kSleepMs, 2));
      retire_workers();
    });
    a.join();
    b.join();
    for (const Report& r : daemons) {
      EXPECT_EQ(r.status, ROPECHECK_INTERNAL_ERROR);
      EXPECT_NE(r.message.find("that left its process group and was still running"), std::string::npos) << r.message;
      EXPECT_EQ(r.message.find("or a call beside it did"), std::string::npos) << "the blame is exact: " << r.message;
    }
    for (const Report& r : beside) EXPECT_EQ(r.status, ROPECHECK_OK) << r.message;
  }
}

// The hold cannot be undone from inside a call: clearing the subreaper
// attribute and clone(CLONE_PARENT) are refused, clone3 (whose flags a
// seccomp filter cannot read) says ENOSYS so the C library falls back to
// clone.
TEST(Worker, ACallCannotUndoTheHoldOnItsDescendants) {
  for (const IsolationMode mode : {IsolationMode::kWorker, IsolationMode::kFork}) {
    SCOPED_TRACE(isolation_mode_name(mode));
    const Report r = call(isolated_probe(mode), kTryEscape);
    ASSERT_EQ(r.status, ROPECHECK_OK) << r.message;
    EXPECT_EQ(r.message, "unset=" + std::to_string(EPERM) + " held=1 clone_parent=" + std::to_string(EPERM) +
                             " clone3=" + std::to_string(ENOSYS));
    retire_workers();
  }
}

}  // namespace
}  // namespace ropecheck::worker_test
