// SPDX-License-Identifier: MIT
#include "core/isolation/isolation.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <array>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/isolation/call_extents.h"
#include "core/isolation/call_timing.h"
#include "core/isolation/guarded_copies.h"
#include "core/isolation/worker.h"
#include "core/isolation/worker_slot.h"
#include "ropecheck/dtype.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/qk_norm.h"

namespace ropecheck {
namespace {

struct Isolated {
  const ropecheck_impl_t* inner;
  IsolationOptions options;
  ropecheck_impl_t table;
};

std::deque<Isolated>& wrappers() {
  static std::deque<Isolated> w;
  return w;
}

// The cos/sin cache the calling thread named last (name_cache_contents).
struct NamedCache {
  const void* data = nullptr;
  std::uint64_t generation = 0;
  const std::vector<std::pair<std::size_t, std::size_t>>* live = nullptr;  // null: every byte
};
thread_local NamedCache t_named_cache;

// --timeout is per 2^24 elements a call computes, at least once: a fixed
// limit would fail a correct but slow kernel (a debug build, an interpreter)
// on the long cases only, and only on a loaded machine. A hang is still
// caught, a little later on a large case.
constexpr double kTimeoutElements = 16777216.0;
// The largest q and k a child per call saves and restores around its decoy
// call (isolated_apply).
constexpr std::size_t kDecoyMaxBytes = std::size_t{64} << 20;
double call_timeout(double seconds, double elements) {
  return seconds * std::max(1.0, elements / kTimeoutElements);
}

// One isolated call: the buffers planned in `b` are placed (mappings of
// their own for a child per call, a region of the worker's arena for a
// worker), filled by the caller's `fill` (which may patch pointers to the
// copies first), and the call run.
class IsolatedCall {
 public:
  // named: the named cache the call's first buffer is, if any.
  IsolatedCall(const Isolated& w, GuardedCopies& b, bool apply, const HeldCache& named = {}) : w_(w), b_(b) {
    if (w.options.mode == IsolationMode::kWorker) {
      slot_ = &slot_for(&w, w.inner, w.options.memory_limit_gib);
      unsigned char* region = slot_->region_for(b.pages(), apply, &region_);
      const HeldCache& held = slot_->held(region_);
      const std::size_t skip = GuardedCopies::pages_of(held.bytes);
      if (held.generation != 0 && held.generation == named.generation && held.bytes != named.bytes &&
          skip + b.pages() <= slot_->region_pages()) {
        // The same cache, fewer or more rows (a derived case: positions
        // shifted, one token alone, a row short): placed after the kept
        // one, which the next call of the usual rows finds where it was.
        b.place_in_region(region + skip * page_size());
      } else {
        b.place_in_region(region);
        held_ = slot_->take_held(region_);
        at_start_ = true;
      }
    } else {
      b.place_in_mappings();
    }
  }
  // elements: what the call computes (q and k's elements, or the cache's).
  // decoy (a child per call only): run in the child before the call.
  ChildRun run(const Request& r, double elements, std::function<void()> decoy = {}) {
    ChildOptions o;
    o.timeout_seconds = call_timeout(w_.options.timeout_seconds, elements * (decoy ? 2 : 1));
    o.memory_limit_gib = w_.options.memory_limit_gib;
    o.guards = b_.guards();
    // Read-only for the call: its own cos/sin cache (an input), and in a
    // worker the caches its arena keeps (this region's, the other's).
    int ro = 0;
    const auto read_only = [&](std::pair<std::uintptr_t, std::uintptr_t> r, const char* name) {
      for (int i = 0; i < ro; ++i)
        if (o.read_only_begin[i] == r.first && o.read_only_end[i] == r.second) return;
      if (r.second <= r.first || ro == ChildOptions::kReadOnlyRanges) return;
      o.read_only_begin[ro] = r.first;
      o.read_only_end[ro] = r.second;
      o.read_only_names[ro++] = name;
    };
    for (const auto& r : b_.read_only_ranges()) read_only(r, "its input cos_sin_cache (read-only for the call)");
    if (!slot_) {
      o.share = b_.mappings();
      o.decoy = std::move(decoy);
      // The child's request is its own copy: a timing it writes stays there.
      return run_in_child(o, [&](char* e, std::size_t n) {
        Request own = r;
        return serve(*w_.inner, own, e, n);
      });
    }
    *slot_->request() = r;
    o.arm_begin = b_.arm_begin() + arm_skip_;
    o.arm_end = b_.arm_end();
    // Every cache the arena keeps is read-only in the worker, this call's
    // and the other region's: proven unchanged when its call placed it,
    // nothing can write it since (a stray write faults at once).
    read_only(read_only_, "its input cos_sin_cache (a cos/sin cache its worker keeps, read-only)");
    for (int region = 0; region < 2; ++region)
      if (const HeldCache& h = slot_->held(region); h.generation != 0) {
        const auto start = reinterpret_cast<std::uintptr_t>(slot_->region_start(region)) + page_size();
        read_only({start, start + (GuardedCopies::pages_of(h.bytes) - 2) * page_size()},
                  "a cos/sin cache its worker keeps (another call's input, read-only)");
      }
    return slot_->worker().call(o);
  }
  // What a worker measured of a timed call (its request page, read once it
  // stopped); not measured for a child per call.
  CallTiming timing() const { return slot_ ? slot_->request()->timing : CallTiming{}; }
  // After a call whose buffers show damage: nothing of it may reach the
  // next call.
  void retire() {
    if (slot_) slot_->worker().retire();
  }
  // Whether the region's first buffer holds `c` from its last call (a
  // named cache, planned first, is placed where that call's was).
  bool holds(const HeldCache& c) const { return slot_ && c.generation != 0 && held_ == c; }
  // The held cache's pages are not armed again (its guards are listed
  // again): mprotect() walks every page of its range, and over up to 64 MiB
  // of cache per call it was 5% of a gate. Its body is read-only in the
  // worker instead, made so once (child_side.cc keeps it so until a call's
  // layout covers it): a write into it faults, so nothing has to prove it
  // unchanged after the call, which compared 10 GB of caches per quick gate.
  void leave_armed(const HeldCache& c, std::pair<std::uintptr_t, std::uintptr_t> body) {
    arm_skip_ = GuardedCopies::pages_of(c.bytes) * page_size();
    read_only_ = body;
  }
  // The call's first buffer is the named cache `c`, proven unchanged after
  // the call: the region keeps it for a later call (when the call was
  // placed at the region's start, where a later call looks for it).
  // Only an arena of its own keeps a cache (worker_slot.h): another
  // kernel's worker could write into one kept in a shared arena.
  void keep(const HeldCache& c) {
    if (at_start_ && slot_ && slot_->keeps_caches()) kept_ = c;
  }
  // The caller has read what it needs from the buffers.
  ~IsolatedCall() {
    if (!slot_) return;
    const bool keep = kept_.generation != 0 && kept_.bytes <= WorkerSlot::kKeepResidentBytes;
    const std::uintptr_t from = b_.arm_begin() + (keep ? GuardedCopies::pages_of(kept_.bytes) * page_size() : 0);
    slot_->release_large(b_.arm_begin(), b_.arm_end(), from);
    if (keep) slot_->hold(region_, kept_);
  }

 private:
  const Isolated& w_;
  GuardedCopies& b_;
  WorkerSlot* slot_ = nullptr;
  int region_ = 0;
  bool at_start_ = false;
  std::uintptr_t arm_skip_ = 0;
  std::pair<std::uintptr_t, std::uintptr_t> read_only_{0, 0};
  HeldCache held_, kept_;
};

// The calling thread's last finding (take_isolation_finding).
thread_local std::optional<IsolationFinding> t_finding;

// The status of the call: the kernel's own, or INTERNAL_ERROR naming what
// isolation saw go wrong.
ropecheck_status_t verdict(const ChildRun& run, const GuardedCopies* b, IsolatedCall* call, char* err, std::size_t n) {
  std::string failure = run.failure;
  if (failure.empty() && b) failure = b->damage();
  if (!failure.empty()) {
    if (call) call->retire();
    t_finding = IsolationFinding{failure};
    if (err && n) std::snprintf(err, n, "%s", t_finding->text().c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  t_finding.reset();
  if (err && n) std::snprintf(err, n, "%s", run.message.c_str());
  return static_cast<ropecheck_status_t>(run.status);
}

// Params the kernel must refuse anyway: it does so in a child of its own
// with the caller's pointers (nothing is copied back), whatever the mode.
ropecheck_status_t refuse_in_child(const Isolated& w, const std::function<int(char*, std::size_t)>& body, char* err,
                                   std::size_t n) {
  ChildOptions o;
  o.timeout_seconds = w.options.timeout_seconds;
  o.memory_limit_gib = w.options.memory_limit_gib;
  return verdict(run_in_child(o, body), nullptr, nullptr, err, n);
}

// Isolation could not map the memory a call's copies need (an address-space
// limit, ulimit -v, below what they take): the call is not made, and says so.
ropecheck_status_t unmappable(char* err, std::size_t n) {
  rlimit r{};
  ::getrlimit(RLIMIT_AS, &r);
  const std::string limit = r.rlim_cur == RLIM_INFINITY
                                ? std::string("no address-space limit is set: the system refused the memory")
                                : "the address-space limit ropecheck was started with (ulimit -v: " +
                                      std::to_string(r.rlim_cur >> 20) + " MiB) is below what they take";
  t_finding = IsolationFinding{"ropecheck could not map the call's buffers (" + limit + "); the call was not made"};
  if (err && n) std::snprintf(err, n, "%s", t_finding->text().c_str());
  return ROPECHECK_INTERNAL_ERROR;
}

ropecheck_status_t isolated_apply_unguarded(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n);

ropecheck_status_t isolated_apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  try {
    return isolated_apply_unguarded(ctx, p, err, n);
  } catch (const std::bad_alloc&) {
    return unmappable(err, n);
  }
}

ropecheck_status_t isolated_apply_unguarded(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  const ropecheck_impl_t& in = *w.inner;
  const bool sane = p && p->struct_size >= sizeof(ropecheck_apply_params_t) && p->dtype < ROPECHECK_DTYPE_COUNT &&
                    p->num_tokens >= 0 && p->num_tokens <= (std::int64_t{1} << 32) && p->head_dim > 0 &&
                    p->head_dim <= 65536 && p->num_q_heads > 0 && p->num_kv_heads >= 0 && p->q_in && p->q_out &&
                    (p->num_kv_heads == 0 || (p->k_in && p->k_out)) && p->positions && p->position_type <= ROPECHECK_INDEX_INT64 &&
                    p->cache_max_position >= 0 && p->rotary_dim >= 0 && p->rotary_dim <= p->head_dim &&
                    p->seq_len >= 0 && (p->seq_len == 0 || p->num_tokens % p->seq_len == 0) && position_ids(*p) >= 0 &&
                    (!multi_axis(*p) || (p->axis_assignment == ROPECHECK_AXES_TABLE ? p->pair_axis != nullptr
                                                                                    : p->axis_sections != nullptr));
  const ropecheck_kv_write_t* kv = sane ? kv_write_of(*p) : nullptr;
  const ropecheck_qk_norm_t* qn = sane ? qk_norm_of(*p) : nullptr;
  if (!sane || (kv && !kv_write_insane(*p, *kv).empty()) || (qn && !qk_norm_insane(*p, *qn).empty()))
    return refuse_in_child(w, [&](char* e, std::size_t en) { return in.apply(in.ctx, p, e, en); }, err, n);
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
  const std::int64_t q_elements = extent(*p, true), k_elements = extent(*p, false);
  const std::size_t qb = static_cast<std::size_t>(q_elements) * es;
  const std::size_t kb = static_cast<std::size_t>(k_elements) * es;
  const bool q_inplace = p->q_in == p->q_out, k_inplace = p->k_in == p->k_out;
  // Every buffer the kernel sees, the params themselves included. The
  // cos/sin cache first: its place in a worker's region then depends on its
  // size alone, and the region can keep it for the next call handed the
  // same named cache (name_cache_contents).
  GuardedCopies b;
  ropecheck_apply_params_t c = *p;
  ropecheck_freq_spec_t patched{};
  const std::size_t cache_bytes = !p->cos_sin_cache ? 0
                                                    : static_cast<std::size_t>(p->cache_max_position) *
                                                          static_cast<std::size_t>(p->rotary_dim) *
                                                          cache_esize(p->cache_dtype);
  const int cache = !p->cos_sin_cache ? -1 : b.plan("cos_sin_cache", p->cos_sin_cache, cache_bytes, true);
  const HeldCache named = cache >= 0 && p->cos_sin_cache == t_named_cache.data
                              ? HeldCache{t_named_cache.generation, cache_bytes}
                              : HeldCache{};
  if (cache >= 0) {
    b.protect(cache);  // an input: a write faults, even one undone before the call returns
    if (named.generation != 0 && t_named_cache.live) b.sparse(cache, t_named_cache.live);
  }
  const int q_out = b.plan("q_out", p->q_out, qb, false);
  const int k_out = p->k_out ? b.plan("k_out", p->k_out, kb, false) : -1;
  const int q_in = q_inplace ? q_out : b.plan("q_in", p->q_in, qb, true);
  const int k_in = !p->k_in ? -1 : k_inplace ? k_out : b.plan("k_in", p->k_in, kb, true);
  const int positions = b.plan("positions", p->positions,
                               static_cast<std::size_t>(position_ids(*p)) * (p->position_type == ROPECHECK_INDEX_INT32 ? 4 : 8), true);
  // 1.3: the assignment's arrays (a 1D call's are not read).
  const bool axes = multi_axis(*p);
  const int sections = axes && p->axis_sections
                           ? b.plan("axis_sections", p->axis_sections, static_cast<std::size_t>(p->num_axes) * 4, true)
                           : -1;
  const int table = axes && p->pair_axis
                        ? b.plan("pair_axis", p->pair_axis, static_cast<std::size_t>(p->rotary_dim / 2) * 4, true)
                        : -1;
  const FreqCopies fc = plan_freq(b, p->freq, p->rotary_dim, &patched);
  ropecheck_kv_write_t kv_patched{};
  const KvCopies kc = kv ? plan_kv_write(b, *p, *kv, &kv_patched) : KvCopies{};
  ropecheck_qk_norm_t qn_patched{};
  const QkNormCopies nc = qn ? plan_qk_norm(b, *p, *qn, &qn_patched) : QkNormCopies{};
  const int params = b.plan("params", &c, sizeof c, true);
  IsolatedCall call(w, b, /*apply=*/true, named);
  c.q_out = b.data(q_out);
  c.k_out = k_out >= 0 ? b.data(k_out) : nullptr;
  c.q_in = b.data(q_in);
  c.k_in = k_in >= 0 ? b.data(k_in) : nullptr;
  c.positions = b.data(positions);
  if (sections >= 0) c.axis_sections = reinterpret_cast<const std::int32_t*>(b.data(sections));
  if (table >= 0) c.pair_axis = reinterpret_cast<const std::int32_t*>(b.data(table));
  if (cache >= 0) c.cos_sin_cache = b.data(cache);
  c.freq = patch_freq(b, fc, p->freq, &patched);
  if (kv) c.kv_write = patch_kv_write(b, kc, *kv, &kv_patched);
  if (qn) c.qk_norm = patch_qk_norm(b, nc, *qn, &qn_patched);
  if (call.holds(named)) {
    b.keep(cache, /*read_only=*/true);
    call.leave_armed(named, b.body_range(cache));
  }
  b.fill();
  Request r{};
  r.apply = true;
  r.params = reinterpret_cast<const ropecheck_apply_params_t*>(b.data(params));
  // A timed call (core/isolation/call_timing.h) is timed in a worker only,
  // whose request page ropecheck reads back.
  CallTiming* const timing = timed_calls();
  r.timed = timing != nullptr && w.options.mode == IsolationMode::kWorker;
  if (r.timed) r.timing = CallTiming{timing->caches};
  // A child per call is a new process each time: a kernel's memory of
  // earlier calls (a result kept by buffer address) never meets a later
  // call there, though it would in production, where one process makes
  // every call. So the child first calls the kernel on decoy inputs (every
  // input element's sign flipped) at the very addresses of the judged call,
  // then puts every buffer back as it was: a kept result is then found, and
  // returned for the wrong inputs. (A worker meets it across its calls, its
  // buffers at alternating addresses.) Small calls only: the copies are the
  // child's own memory.
  std::function<void()> decoy;
  std::size_t held = 0;
  for (const GuardedCopies::Span& sp : b.spans()) held += sp.bytes;
  if (w.options.mode == IsolationMode::kFork && held <= kDecoyMaxBytes) {
    std::vector<GuardedCopies::Span> flip;  // the q and k inputs (in place: the outputs)
    flip.push_back({b.data(q_in), qb});
    if (k_in >= 0) flip.push_back({b.data(k_in), kb});
    decoy = [spans = b.spans(), flip, es, &w, params_at = r.params] {
      std::vector<std::vector<unsigned char>> saved;
      for (const GuardedCopies::Span& g : spans) saved.emplace_back(g.at, g.at + g.bytes);
      for (const GuardedCopies::Span& g : flip)
        for (std::size_t i = es - 1; i < g.bytes; i += es) g.at[i] ^= 0x80;  // the sign bit (little-endian)
      char e[256];
      w.inner->apply(w.inner->ctx, params_at, e, sizeof e);
      for (std::size_t i = 0; i < spans.size(); ++i) std::memcpy(spans[i].at, saved[i].data(), spans[i].bytes);
    };
  }
  const ChildRun run = call.run(r, static_cast<double>(q_elements + (k_out >= 0 ? k_elements : 0)), decoy);
  if (timing) *timing = r.timed && run.returned ? call.timing() : CallTiming{timing->caches};
  const ropecheck_status_t st = verdict(run, &b, &call, err, n);
  // Isolation found nothing wrong (damage() proved the cache unchanged):
  // the region keeps it. A kernel's own INTERNAL_ERROR is not told apart.
  if (st != ROPECHECK_INTERNAL_ERROR && named.generation != 0) call.keep(named);
  if (st == ROPECHECK_OK) {
    std::memcpy(p->q_out, b.data(q_out), qb);
    if (kb && k_out >= 0) std::memcpy(p->k_out, b.data(k_out), kb);
    if (kv) {
      std::memcpy(kv->k_cache, b.data(kc.k_cache), kc.cache_bytes);
      if (kc.v_cache >= 0) std::memcpy(kv->v_cache, b.data(kc.v_cache), kc.v_cache_bytes);
    }
  }
  return st;
}

ropecheck_status_t isolated_build_cache(void* ctx, const ropecheck_freq_spec_t* f, std::int32_t rotary_dim,
                                        std::int64_t rows, std::uint32_t dtype, void* out, char* err,
                                        std::size_t n) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  const ropecheck_impl_t& in = *w.inner;
  if (!out || rotary_dim <= 0 || rows <= 0 || rows > (std::int64_t{1} << 32) || dtype >= ROPECHECK_DTYPE_COUNT)
    return refuse_in_child(
        w, [&](char* e, std::size_t en) { return in.build_cache(in.ctx, f, rotary_dim, rows, dtype, out, e, en); }, err,
        n);
  const std::size_t bytes = static_cast<std::size_t>(rows) * static_cast<std::size_t>(rotary_dim) * cache_esize(dtype);
  GuardedCopies b;
  ropecheck_freq_spec_t patched{};
  // Nothing of `out` goes in: the builder must write every entry, and an
  // entry it leaves holds a NaN (the table came in from the caller, 0.5% of
  // a quick gate in copies alone).
  const int cache = b.plan("cos_sin_cache", nullptr, bytes, false);
  b.poison(cache);
  const FreqCopies fc = plan_freq(b, f, rotary_dim, &patched);
  IsolatedCall call(w, b, /*apply=*/false);
  Request r{};
  r.apply = false;
  r.freq = patch_freq(b, fc, f, &patched);
  r.rotary_dim = rotary_dim;
  r.rows = rows;
  r.dtype = dtype;
  r.out = b.data(cache);
  b.fill();
  const ChildRun run = call.run(r, static_cast<double>(rows) * rotary_dim);
  const ropecheck_status_t st = verdict(run, &b, &call, err, n);
  // The region does not keep what was built: a table is built with more
  // rows than the call that asked for it hands over (own_cos_sin_cache.h),
  // and a region holding the longer one placed every apply of the case's
  // rows after it, a copy each, instead of holding theirs (the quick gate
  // copied 12.5 GB of cos/sin caches into workers, then 4.6).
  if (st == ROPECHECK_OK) std::memcpy(out, b.data(cache), bytes);
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

const ropecheck_impl_t* isolated_inner(const ropecheck_impl_t& impl) {
  return impl.apply == isolated_apply ? static_cast<const Isolated*>(impl.ctx)->inner : nullptr;
}

std::optional<IsolationFinding> take_isolation_finding() {
  std::optional<IsolationFinding> f;
  f.swap(t_finding);
  return f;
}

void name_cache_contents(const void* data, std::uint64_t generation,
                         const std::vector<std::pair<std::size_t, std::size_t>>* live) {
  t_named_cache = {data, generation, live};
}

std::uint64_t new_cache_generation() {
  static std::atomic<std::uint64_t> generations{0};
  return ++generations;
}

void retire_workers() { retire_worker_slots(); }

const char* isolation_mode_name(IsolationMode m) { return m == IsolationMode::kFork ? "fork" : "worker"; }

}  // namespace ropecheck
