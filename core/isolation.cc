#include "core/isolation.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
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
// come in power-of-two page counts; a few of each size are kept. A mapping
// returns here only after run_in_child has killed and reaped every process
// of its call, so no later call shares memory with a live one.
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
// byte against the rear guard; the slack before it holds canaries. An input
// remembers where its bytes came from, to prove them unchanged.
class GuardedBuffer {
 public:
  GuardedBuffer(std::string name, const void* src, std::size_t bytes, bool input)
      : name_(std::move(name)), src_(input ? src : nullptr), bytes_(bytes), m_(acquire(bytes)) {
    data_ = m_.base + page_size() + m_.body - bytes;
    fill_canary(m_.base + page_size(), m_.body - bytes);
    if (src && bytes) std::memcpy(data_, src, bytes);
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { release(m_); }
  unsigned char* data() const { return data_; }
  void add_guards(std::vector<GuardRange>* out) const {
    const auto b = reinterpret_cast<std::uintptr_t>(m_.base);
    const std::size_t ps = page_size();
    out->push_back({b, b + ps, "before the start of " + name_});
    out->push_back({b + ps + m_.body, b + 2 * ps + m_.body, "past the end of " + name_});
  }
  // Empty when nothing the kernel may not touch changed, else what did.
  std::string damage() const {
    const unsigned char* s = m_.base + page_size();
    for (std::size_t i = 0; i < m_.body - bytes_; ++i)
      if (s[i] != canary_byte(i)) return "wrote before the start of " + name_ + " (canary overwritten)";
    if (src_ && bytes_ && std::memcmp(data_, src_, bytes_) != 0) return "wrote into its input " + name_;
    return {};
  }

 private:
  std::string name_;
  const void* src_;
  std::size_t bytes_ = 0;
  Mapping m_;
  unsigned char* data_ = nullptr;
};

// Every buffer of one call; the table of guard pages for naming a fault.
struct CallBuffers {
  std::deque<GuardedBuffer> all;
  unsigned char* add(const std::string& name, const void* src, std::size_t bytes, bool input) {
    return all.emplace_back(name, src, bytes, input).data();
  }
  std::vector<GuardRange> guards() const {
    std::vector<GuardRange> g;
    for (const auto& b : all) b.add_guards(&g);
    return g;
  }
  std::string damage() const {
    for (const auto& b : all)
      if (std::string d = b.damage(); !d.empty()) return d;
    return {};
  }
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

// Elements from a view's first to its last, the sequence stride of ABI 1.2
// included (its fields are read only when struct_size covers them).
std::int64_t extent(const ropecheck_apply_params_t& p, bool q) {
  const std::int64_t heads = q ? p.num_q_heads : p.num_kv_heads;
  const std::int64_t ts = q ? p.q_token_stride : p.k_token_stride, hs = q ? p.q_head_stride : p.k_head_stride;
  const bool batched = p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 && p.seq_len > 0;
  const std::int64_t ss = !batched ? 0 : q ? p.q_seq_stride : p.k_seq_stride;
  const std::int64_t per_seq = batched ? p.seq_len : p.num_tokens;
  const std::int64_t seqs = batched ? p.num_tokens / p.seq_len : 1;
  if (p.num_tokens <= 0 || heads <= 0 || p.head_dim <= 0 || ts < 0 || hs < 0 || ss < 0) return 0;
  return (seqs - 1) * ss + (per_seq - 1) * ts + (heads - 1) * hs + p.head_dim;
}

std::size_t cache_esize(std::uint32_t dtype) {
  return dtype < ROPECHECK_DTYPE_COUNT ? dtype_size(static_cast<ropecheck_dtype_t>(dtype)) : 4;
}

// The frequency spec and the arrays it points to (rotary_dim/2 entries),
// copied; returns the copy of the spec, its pointers moved to the copies.
const ropecheck_freq_spec_t* copy_freq(CallBuffers& b, const ropecheck_freq_spec_t* f, int rotary_dim,
                                       ropecheck_freq_spec_t* patched) {
  if (!f) return nullptr;
  *patched = *f;
  const std::size_t n = static_cast<std::size_t>(rotary_dim / 2) * sizeof(double);
  if (f->short_factor) patched->short_factor = reinterpret_cast<const double*>(b.add("freq.short_factor", f->short_factor, n, true));
  if (f->long_factor) patched->long_factor = reinterpret_cast<const double*>(b.add("freq.long_factor", f->long_factor, n, true));
  if (f->inv_freq) patched->inv_freq = reinterpret_cast<const double*>(b.add("freq.inv_freq", f->inv_freq, n, true));
  return reinterpret_cast<const ropecheck_freq_spec_t*>(b.add("freq", patched, sizeof *patched, true));
}

ChildOptions child_options(const Isolated& w, const CallBuffers& b) {
  ChildOptions o;
  o.timeout_seconds = w.options.timeout_seconds;
  o.memory_limit_gib = w.options.memory_limit_gib;
  o.guards = b.guards();
  return o;
}

// The status of the call: the kernel's own, or INTERNAL_ERROR naming what
// isolation saw go wrong.
ropecheck_status_t verdict(const ChildRun& run, const CallBuffers& b, char* err, std::size_t n) {
  std::string failure = run.failure;
  if (failure.empty()) failure = b.damage();
  if (!failure.empty()) {
    if (err && n) std::snprintf(err, n, "%s%s", kIsolatedCallPrefix, failure.c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  if (err && n) std::snprintf(err, n, "%s", run.message.c_str());
  return static_cast<ropecheck_status_t>(run.status);
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
                    p->cache_max_position >= 0 && p->rotary_dim >= 0 && p->rotary_dim <= p->head_dim &&
                    p->seq_len >= 0 && (p->seq_len == 0 || p->num_tokens % p->seq_len == 0);
  CallBuffers b;
  if (!sane) {
    const ChildRun run = run_in_child(child_options(w, b), [&](char* e, std::size_t en) { return in.apply(in.ctx, p, e, en); });
    return verdict(run, b, err, n);
  }
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
  const std::size_t qb = static_cast<std::size_t>(extent(*p, true)) * es;
  const std::size_t kb = static_cast<std::size_t>(extent(*p, false)) * es;
  const bool q_inplace = p->q_in == p->q_out, k_inplace = p->k_in == p->k_out;
  ropecheck_apply_params_t c = *p;
  c.q_out = b.add("q_out", p->q_out, qb, false);
  c.k_out = p->k_out ? b.add("k_out", p->k_out, kb, false) : nullptr;
  c.q_in = q_inplace ? c.q_out : b.add("q_in", p->q_in, qb, true);
  c.k_in = !p->k_in ? nullptr : k_inplace ? c.k_out : b.add("k_in", p->k_in, kb, true);
  c.positions = b.add("positions", p->positions,
                      static_cast<std::size_t>(p->num_tokens) * (p->position_type == ROPECHECK_INDEX_INT32 ? 4 : 8), true);
  if (p->cos_sin_cache)
    c.cos_sin_cache = b.add("cos_sin_cache", p->cos_sin_cache,
                            static_cast<std::size_t>(p->cache_max_position) * static_cast<std::size_t>(p->rotary_dim) *
                                cache_esize(p->cache_dtype),
                            true);
  ropecheck_freq_spec_t patched;
  c.freq = copy_freq(b, p->freq, p->rotary_dim, &patched);
  const ChildRun run = run_in_child(child_options(w, b), [&](char* e, std::size_t en) { return in.apply(in.ctx, &c, e, en); });
  const ropecheck_status_t st = verdict(run, b, err, n);
  if (st == ROPECHECK_OK) {
    std::memcpy(p->q_out, c.q_out, qb);
    if (kb && p->k_out) std::memcpy(p->k_out, c.k_out, kb);
  }
  return st;
}

ropecheck_status_t isolated_build_cache(void* ctx, const ropecheck_freq_spec_t* f, std::int32_t rotary_dim,
                                        std::int64_t rows, std::uint32_t dtype, void* out, char* err,
                                        std::size_t n) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  const ropecheck_impl_t& in = *w.inner;
  CallBuffers b;
  if (!out || rotary_dim <= 0 || rows <= 0 || rows > (std::int64_t{1} << 32) || dtype >= ROPECHECK_DTYPE_COUNT) {
    const ChildRun run = run_in_child(child_options(w, b), [&](char* e, std::size_t en) {
      return in.build_cache(in.ctx, f, rotary_dim, rows, dtype, out, e, en);
    });
    return verdict(run, b, err, n);
  }
  const std::size_t bytes = static_cast<std::size_t>(rows) * static_cast<std::size_t>(rotary_dim) * cache_esize(dtype);
  unsigned char* cache = b.add("cos_sin_cache", out, bytes, false);
  ropecheck_freq_spec_t patched;
  const ropecheck_freq_spec_t* fc = copy_freq(b, f, rotary_dim, &patched);
  const ChildRun run = run_in_child(child_options(w, b), [&](char* e, std::size_t en) {
    return in.build_cache(in.ctx, fc, rotary_dim, rows, dtype, cache, e, en);
  });
  const ropecheck_status_t st = verdict(run, b, err, n);
  if (st == ROPECHECK_OK) std::memcpy(out, cache, bytes);
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
