#include "core/isolation.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/buffers.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

std::size_t page_size() {
  static const std::size_t p = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return p;
}

// Mappings are reused: a fresh 64 MiB shared mapping costs a page fault per
// page on every call (the cos/sin caches made the gate 5x slower). Bodies
// come in power-of-two page counts; a few of each size are kept.
struct Mapping {
  unsigned char* base = nullptr;
  std::size_t body = 0;  // bytes between the two guard pages
};

std::vector<Mapping>& pool(std::size_t body) {
  static thread_local std::map<std::size_t, std::vector<Mapping>> p;
  return p[body];
}

Mapping acquire(std::size_t bytes) {
  const std::size_t ps = page_size();
  std::size_t body = ps;
  while (body < bytes) body *= 2;
  auto& free = pool(body);
  if (!free.empty()) {
    Mapping m = free.back();
    free.pop_back();
    return m;
  }
  void* m = ::mmap(nullptr, body + 2 * ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  Mapping g{static_cast<unsigned char*>(m), body};
  ::mprotect(g.base, ps, PROT_NONE);
  ::mprotect(g.base + ps + body, ps, PROT_NONE);
  return g;
}

void release(const Mapping& m) {
  auto& free = pool(m.body);
  if (free.size() < 4) {
    free.push_back(m);
  } else {
    ::munmap(m.base, m.body + 2 * page_size());
  }
}

// One buffer in shared memory between two PROT_NONE guard pages, its last
// byte against the rear guard; the slack before it holds canaries.
class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  GuardedBuffer(const void* src, std::size_t bytes) : bytes_(bytes), m_(acquire(bytes)) {
    data_ = m_.base + page_size() + m_.body - bytes;
    fill_canary(m_.base + page_size(), m_.body - bytes);
    if (src && bytes) std::memcpy(data_, src, bytes);
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { release(m_); }
  unsigned char* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  bool slack_intact() const {
    const unsigned char* s = m_.base + page_size();
    for (std::size_t i = 0; i < m_.body - bytes_; ++i)
      if (s[i] != canary_byte(i)) return false;
    return true;
  }

 private:
  std::size_t bytes_ = 0;
  Mapping m_;
  unsigned char* data_ = nullptr;
};

// Shared between parent and child: the kernel's status and message.
struct CallResult {
  int status;
  char message[512];
};

struct Isolated {
  const ropecheck_impl_t* inner;
  IsolationOptions options;
  ropecheck_impl_t table;
};

std::deque<Isolated>& wrappers() {
  static std::deque<Isolated> w;
  return w;
}

std::int64_t extent(std::int64_t tokens, std::int64_t token_stride, std::int64_t heads, std::int64_t head_stride,
                    std::int64_t head_dim) {
  if (tokens <= 0 || heads <= 0 || head_dim <= 0 || token_stride < 0 || head_stride < 0) return 0;
  return (tokens - 1) * token_stride + (heads - 1) * head_stride + head_dim;
}

const char* signal_meaning(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV: an access outside its buffers (guard page)";
    case SIGBUS: return "SIGBUS: a bad memory access";
    case SIGFPE: return "SIGFPE: an arithmetic trap";
    case SIGILL: return "SIGILL: an illegal instruction";
    case SIGABRT: return "SIGABRT: the kernel aborted";
    default: return "";
  }
}

// Runs body() in a child; returns its status, or INTERNAL_ERROR with the
// reason when the child crashed, hung or left garbage before a buffer.
template <class Body>
ropecheck_status_t run_child(const Isolated& w, Body body, const std::vector<const GuardedBuffer*>& guarded,
                             char* err, std::size_t err_len) {
  auto* result = static_cast<CallResult*>(
      ::mmap(nullptr, sizeof(CallResult), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (result == MAP_FAILED) throw std::bad_alloc();
  result->status = ROPECHECK_INTERNAL_ERROR;
  std::strcpy(result->message, "the child process ended without reporting");
  int pipefd[2];
  // Calls from several threads (check --jobs) must not leak one call's pipe
  // write end into another call's child: the parent's wait for EOF would
  // then last as long as that other child. Creating the pipe, forking and
  // closing the parent's write end happen under one lock, so no child ever
  // inherits a write end but its own.
  static std::mutex fork_mu;
  std::unique_lock<std::mutex> fork_lock(fork_mu);
  if (::pipe(pipefd) != 0) throw std::runtime_error("isolation: pipe() failed");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    throw std::runtime_error("isolation: fork() failed");
  }
  if (pid == 0) {
    ::close(pipefd[0]);
    // Default actions for the fatal signals: a crash must kill the child by
    // its signal, not run a handler the host installed (a sanitizer's
    // report-and-exit, for one).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    result->message[0] = '\0';
    result->status = body(result->message, sizeof result->message);
    result->message[sizeof result->message - 1] = '\0';
    ::_exit(0);  // no atexit handlers or sanitizer leak checks in the child
  }
  ::close(pipefd[1]);
  fork_lock.unlock();
  pollfd pfd{pipefd[0], POLLIN, 0};
  const int ms = static_cast<int>(w.options.timeout_seconds * 1000);
  int ready;
  do ready = ::poll(&pfd, 1, ms);
  while (ready < 0 && errno == EINTR);
  ::close(pipefd[0]);
  int wstatus = 0;
  std::string reason;
  if (ready == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &wstatus, 0);
    char b[128];
    std::snprintf(b, sizeof b, "timed out after %.3g s (hang?); the child was killed", w.options.timeout_seconds);
    reason = b;
  } else {
    ::waitpid(pid, &wstatus, 0);
    if (WIFSIGNALED(wstatus)) {
      reason = "crashed with signal " + std::to_string(WTERMSIG(wstatus)) + " (" + signal_meaning(WTERMSIG(wstatus)) + ")";
    } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
      reason = "the child exited with status " + std::to_string(WEXITSTATUS(wstatus)) + " (exit() inside the kernel?)";
    } else {
      for (const GuardedBuffer* g : guarded)
        if (g && !g->slack_intact()) reason = "wrote before the start of a buffer (canary overwritten)";
    }
  }
  ropecheck_status_t st = static_cast<ropecheck_status_t>(result->status);
  std::string msg = result->message;
  ::munmap(result, sizeof(CallResult));
  if (!reason.empty()) {
    st = ROPECHECK_INTERNAL_ERROR;
    msg = "isolated call: " + reason;
  }
  if (err && err_len) std::snprintf(err, err_len, "%s", msg.c_str());
  return st;
}

std::size_t cache_esize(std::uint32_t dtype) {
  return dtype < ROPECHECK_DTYPE_COUNT ? dtype_size(static_cast<ropecheck_dtype_t>(dtype)) : 4;
}

ropecheck_status_t isolated_apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  const ropecheck_impl_t& in = *w.inner;
  // Params the kernel must refuse anyway: let it do so in the child, with
  // the caller's pointers (nothing is copied back).
  const bool sane = p && p->struct_size >= sizeof(ropecheck_apply_params_t) && p->dtype < ROPECHECK_DTYPE_COUNT &&
                    p->num_tokens >= 0 && p->num_tokens <= (std::int64_t{1} << 32) && p->head_dim > 0 &&
                    p->head_dim <= 65536 && p->num_q_heads > 0 && p->num_kv_heads >= 0 && p->q_in && p->q_out &&
                    (p->num_kv_heads == 0 || (p->k_in && p->k_out)) && p->positions && p->position_type <= ROPECHECK_INDEX_INT64 &&
                    p->cache_max_position >= 0 && p->rotary_dim >= 0 && p->rotary_dim <= p->head_dim;
  if (!sane)
    return run_child(w, [&](char* e, std::size_t en) { return in.apply(in.ctx, p, e, en); }, {}, err, n);
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
  const std::size_t qb = static_cast<std::size_t>(
      extent(p->num_tokens, p->q_token_stride, p->num_q_heads, p->q_head_stride, p->head_dim)) * es;
  const std::size_t kb = static_cast<std::size_t>(
      extent(p->num_tokens, p->k_token_stride, p->num_kv_heads, p->k_head_stride, p->head_dim)) * es;
  const bool q_inplace = p->q_in == p->q_out, k_inplace = p->k_in == p->k_out;
  GuardedBuffer q_out(p->q_out, qb), k_out(p->k_out, kb);
  GuardedBuffer q_in(q_inplace ? nullptr : p->q_in, q_inplace ? 0 : qb);
  GuardedBuffer k_in(k_inplace ? nullptr : p->k_in, k_inplace ? 0 : kb);
  GuardedBuffer pos(p->positions,
                    static_cast<std::size_t>(p->num_tokens) * (p->position_type == ROPECHECK_INDEX_INT32 ? 4 : 8));
  GuardedBuffer cache(p->cos_sin_cache,
                      p->cos_sin_cache ? static_cast<std::size_t>(p->cache_max_position) *
                                             static_cast<std::size_t>(p->rotary_dim) * cache_esize(p->cache_dtype)
                                       : 0);
  ropecheck_apply_params_t c = *p;
  c.q_out = q_out.data();
  c.k_out = p->k_out ? k_out.data() : nullptr;
  c.q_in = q_inplace ? q_out.data() : q_in.data();
  c.k_in = p->k_in ? (k_inplace ? k_out.data() : k_in.data()) : nullptr;
  c.positions = pos.data();
  if (p->cos_sin_cache) c.cos_sin_cache = cache.data();
  const ropecheck_status_t st = run_child(
      w, [&](char* e, std::size_t en) { return in.apply(in.ctx, &c, e, en); },
      {&q_out, &k_out, &q_in, &k_in, &pos, p->cos_sin_cache ? &cache : nullptr}, err, n);
  if (st == ROPECHECK_OK) {
    std::memcpy(p->q_out, q_out.data(), qb);
    if (kb) std::memcpy(p->k_out, k_out.data(), kb);
  }
  return st;
}

ropecheck_status_t isolated_build_cache(void* ctx, const ropecheck_freq_spec_t* f, std::int32_t rotary_dim,
                                        std::int64_t rows, std::uint32_t dtype, void* out, char* err,
                                        std::size_t n) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  const ropecheck_impl_t& in = *w.inner;
  if (!out || rotary_dim <= 0 || rows <= 0 || rows > (std::int64_t{1} << 32) || dtype >= ROPECHECK_DTYPE_COUNT)
    return run_child(w, [&](char* e, std::size_t en) { return in.build_cache(in.ctx, f, rotary_dim, rows, dtype, out, e, en); },
                     {}, err, n);
  const std::size_t bytes = static_cast<std::size_t>(rows) * static_cast<std::size_t>(rotary_dim) * cache_esize(dtype);
  GuardedBuffer buf(out, bytes);
  const ropecheck_status_t st = run_child(
      w, [&](char* e, std::size_t en) { return in.build_cache(in.ctx, f, rotary_dim, rows, dtype, buf.data(), e, en); },
      {&buf}, err, n);
  if (st == ROPECHECK_OK) std::memcpy(out, buf.data(), bytes);
  return st;
}

const char* isolated_target(void* ctx) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  return w.inner->target ? w.inner->target(w.inner->ctx) : "";
}

}  // namespace

const ropecheck_impl_t* isolate(const ropecheck_impl_t* inner, const IsolationOptions& o) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  Isolated& w = wrappers().emplace_back(Isolated{inner, o, *inner});
  w.table.ctx = &w;
  w.table.apply = isolated_apply;
  w.table.build_cache = inner->build_cache ? isolated_build_cache : nullptr;
  w.table.target = inner->target ? isolated_target : nullptr;
  return &w.table;
}

}  // namespace ropecheck
