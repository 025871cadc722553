// SPDX-License-Identifier: MIT
// An isolated apply: the params checked, every buffer the kernel sees
// planned as a guarded copy and the params' copy pointed at them, the call
// run (a child per call first calling it on decoy inputs), and the outputs
// copied back when it returned OK.
#include "core/isolation/isolated_apply.h"

#include <cstring>
#include <functional>
#include <new>
#include <vector>

#include "core/isolation/call_extents.h"
#include "core/isolation/call_timing.h"
#include "core/isolation/call_verdict.h"
#include "core/isolation/guarded_copies.h"
#include "core/isolation/isolated_call.h"
#include "ropecheck/dtype.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/qk_norm.h"
#include "ropecheck/quant_out.h"

namespace ropecheck {
namespace {

// The largest q and k a child per call saves and restores around its decoy
// call (decoy_call).
constexpr std::size_t kDecoyMaxBytes = std::size_t{64} << 20;

// Whether isolation can copy what p points at: else the kernel is left to
// refuse the params (refuse_in_child).
bool copyable(const ropecheck_apply_params_t* p) {
  const bool sane =
      p && p->struct_size >= sizeof(ropecheck_apply_params_t) && p->dtype < ROPECHECK_DTYPE_COUNT &&
      p->num_tokens >= 0 && p->num_tokens <= (std::int64_t{1} << 32) && p->head_dim > 0 && p->head_dim <= 65536 &&
      p->num_q_heads > 0 && p->num_kv_heads >= 0 && p->q_in && p->q_out &&
      (p->num_kv_heads == 0 || (p->k_in && p->k_out)) && p->positions && p->position_type <= ROPECHECK_INDEX_INT64 &&
      p->cache_max_position >= 0 && p->rotary_dim >= 0 && p->rotary_dim <= p->head_dim && p->seq_len >= 0 &&
      (p->seq_len == 0 || p->num_tokens % p->seq_len == 0) && position_ids(*p) >= 0 &&
      (!multi_axis(*p) ||
       (p->axis_assignment == ROPECHECK_AXES_TABLE ? p->pair_axis != nullptr : p->axis_sections != nullptr));
  if (!sane) return false;
  const ropecheck_kv_write_t* kv = kv_write_of(*p);
  const ropecheck_qk_norm_t* qn = qk_norm_of(*p);
  return (!kv || kv_write_insane(*p, *kv).empty()) && (!qn || qk_norm_insane(*p, *qn).empty());
}

// Every buffer an apply's kernel sees, the params themselves included, as
// indices of copies planned in a GuardedCopies (-1: none), and the copy of
// the params with the structs it points to, patched to point at the copies
// (it must stay where it is once planned: the params' copy is planned from
// its address).
struct ApplyCopies {
  const ropecheck_apply_params_t& p;
  const ropecheck_kv_write_t* kv = nullptr;
  const ropecheck_qk_norm_t* qn = nullptr;
  const ropecheck_quant_out_t* qo = nullptr;  // 1.8: no pointers inside, copied as it is
  int quant = -1;
  std::size_t es = 0, qb = 0, kb = 0;  // element size; q's and k's bytes
  std::int64_t q_elements = 0, k_elements = 0;
  int cache = -1, q_out = -1, k_out = -1, q_in = -1, k_in = -1, positions = -1, sections = -1, table = -1, params = -1;
  HeldCache named{};  // the named cache the cos/sin cache is, if any
  FreqCopies fc{};
  KvCopies kc{};
  QkNormCopies nc{};
  ropecheck_apply_params_t c{};
  ropecheck_freq_spec_t freq{};
  ropecheck_kv_write_t kv_write{};
  ropecheck_qk_norm_t qk_norm{};
  ropecheck_quant_out_t quant_out{};
};

// The cos/sin cache first: its place in a worker's region then depends on
// its size alone, and the region can keep it for the next call handed the
// same named cache (name_cache_contents).
void plan_cache(GuardedCopies& b, ApplyCopies& a) {
  const ropecheck_apply_params_t& p = a.p;
  if (!p.cos_sin_cache) return;
  const std::size_t bytes = static_cast<std::size_t>(p.cache_max_position) * static_cast<std::size_t>(p.rotary_dim) *
                            cos_sin_dtype_size(p.cache_dtype);
  a.cache = b.plan("cos_sin_cache", p.cos_sin_cache, bytes, true);
  const NamedCache& named = thread_named_cache();
  if (p.cos_sin_cache == named.data) a.named = HeldCache{named.generation, bytes};
  b.protect(a.cache);  // an input: a write faults, even one undone before the call returns
  if (a.named.generation != 0 && named.live) b.sparse(a.cache, named.live);
}

void plan_copies(GuardedCopies& b, ApplyCopies& a) {
  const ropecheck_apply_params_t& p = a.p;
  a.es = dtype_size(static_cast<ropecheck_dtype_t>(p.dtype));
  a.q_elements = extent(p, true);
  a.k_elements = extent(p, false);
  a.qb = static_cast<std::size_t>(a.q_elements) * a.es;
  a.kb = static_cast<std::size_t>(a.k_elements) * a.es;
  a.c = p;
  plan_cache(b, a);
  a.q_out = b.plan("q_out", p.q_out, a.qb, false);
  a.k_out = p.k_out ? b.plan("k_out", p.k_out, a.kb, false) : -1;
  a.q_in = p.q_in == p.q_out ? a.q_out : b.plan("q_in", p.q_in, a.qb, true);
  a.k_in = !p.k_in ? -1 : p.k_in == p.k_out ? a.k_out : b.plan("k_in", p.k_in, a.kb, true);
  a.positions =
      b.plan("positions", p.positions,
             static_cast<std::size_t>(position_ids(p)) * (p.position_type == ROPECHECK_INDEX_INT32 ? 4 : 8), true);
  // 1.3: the assignment's arrays (a 1D call's are not read).
  const bool axes = multi_axis(p);
  if (axes && p.axis_sections)
    a.sections = b.plan("axis_sections", p.axis_sections, static_cast<std::size_t>(p.num_axes) * 4, true);
  if (axes && p.pair_axis)
    a.table = b.plan("pair_axis", p.pair_axis, static_cast<std::size_t>(p.rotary_dim / 2) * 4, true);
  a.fc = plan_freq(b, p.freq, p.rotary_dim, &a.freq);
  if (a.kv) a.kc = plan_kv_write(b, p, *a.kv, &a.kv_write);
  if (a.qn) a.nc = plan_qk_norm(b, p, *a.qn, &a.qk_norm);
  if (a.qo) {
    a.quant_out = *a.qo;
    a.quant = b.plan("quant_out", &a.quant_out, sizeof a.quant_out, true);
  }
  a.params = b.plan("params", &a.c, sizeof a.c, true);
}

// Points the params' copy at the placed copies.
void patch_copies(const GuardedCopies& b, ApplyCopies& a) {
  ropecheck_apply_params_t& c = a.c;
  c.q_out = b.data(a.q_out);
  c.k_out = a.k_out >= 0 ? b.data(a.k_out) : nullptr;
  c.q_in = b.data(a.q_in);
  c.k_in = a.k_in >= 0 ? b.data(a.k_in) : nullptr;
  c.positions = b.data(a.positions);
  if (a.sections >= 0) c.axis_sections = reinterpret_cast<const std::int32_t*>(b.data(a.sections));
  if (a.table >= 0) c.pair_axis = reinterpret_cast<const std::int32_t*>(b.data(a.table));
  if (a.cache >= 0) c.cos_sin_cache = b.data(a.cache);
  c.freq = patch_freq(b, a.fc, a.p.freq, &a.freq);
  if (a.kv) c.kv_write = patch_kv_write(b, a.kc, *a.kv, &a.kv_write);
  if (a.qn) c.qk_norm = patch_qk_norm(b, a.nc, *a.qn, &a.qk_norm);
  if (a.quant >= 0) c.quant_out = reinterpret_cast<const ropecheck_quant_out_t*>(b.data(a.quant));
}

// A child per call is a new process each time: a kernel's memory of
// earlier calls (a result kept by buffer address) never meets a later
// call there, though it would in production, where one process makes
// every call. So the child first calls the kernel on decoy inputs (every
// input element's sign flipped) at the very addresses of the judged call,
// then puts every buffer back as it was: a kept result is then found, and
// returned for the wrong inputs. (A worker meets it across its calls, its
// buffers at alternating addresses.) Small calls only: the copies are the
// child's own memory. Empty for a call that makes none.
std::function<void()> decoy_call(const Isolated& w, const GuardedCopies& b, const ApplyCopies& a,
                                 const ropecheck_apply_params_t* params_at) {
  std::size_t held = 0;
  for (const GuardedCopies::Span& sp : b.spans()) held += sp.bytes;
  if (w.options.mode != IsolationMode::kFork || held > kDecoyMaxBytes) return {};
  std::vector<GuardedCopies::Span> flip;  // the q and k inputs (in place: the outputs)
  flip.push_back({b.data(a.q_in), a.qb});
  if (a.k_in >= 0) flip.push_back({b.data(a.k_in), a.kb});
  return [spans = b.spans(), flip, es = a.es, &w, params_at] {
    std::vector<std::vector<unsigned char>> saved;
    for (const GuardedCopies::Span& g : spans) saved.emplace_back(g.at, g.at + g.bytes);
    for (const GuardedCopies::Span& g : flip)
      for (std::size_t i = es - 1; i < g.bytes; i += es) g.at[i] ^= 0x80;  // the sign bit (little-endian)
    char e[256];
    w.inner->apply(w.inner->ctx, params_at, e, sizeof e);
    for (std::size_t i = 0; i < spans.size(); ++i) std::memcpy(spans[i].at, saved[i].data(), spans[i].bytes);
  };
}

// The call returned OK: its outputs (q, k, a KV-cache write's caches) go
// back to the caller's buffers.
void copy_back(const GuardedCopies& b, const ApplyCopies& a) {
  std::memcpy(a.p.q_out, b.data(a.q_out), a.qb);
  if (a.kb && a.k_out >= 0) std::memcpy(a.p.k_out, b.data(a.k_out), a.kb);
  if (a.kv) {
    std::memcpy(a.kv->k_cache, b.data(a.kc.k_cache), a.kc.cache_bytes);
    if (a.kc.v_cache >= 0) std::memcpy(a.kv->v_cache, b.data(a.kc.v_cache), a.kc.v_cache_bytes);
  }
}

ropecheck_status_t isolated_apply_unguarded(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  const ropecheck_impl_t& in = *w.inner;
  if (!copyable(p))
    return refuse_in_child(
        w, [&](char* e, std::size_t en) { return in.apply(in.ctx, p, e, en); }, err, n);
  GuardedCopies b;
  ApplyCopies a{.p = *p, .kv = kv_write_of(*p), .qn = qk_norm_of(*p), .qo = quant_out_of(*p)};
  plan_copies(b, a);
  IsolatedCall call(w, b, /*apply=*/true, a.named);
  patch_copies(b, a);
  if (call.holds(a.named)) {
    b.keep(a.cache, /*read_only=*/true);
    call.leave_armed(a.named, b.body_range(a.cache));
  }
  b.fill();
  Request r{};
  r.apply = true;
  r.params = reinterpret_cast<const ropecheck_apply_params_t*>(b.data(a.params));
  // A timed call (core/isolation/call_timing.h) is timed in a worker only,
  // whose request page ropecheck reads back.
  CallTiming* const timing = timed_calls();
  r.timed = timing != nullptr && w.options.mode == IsolationMode::kWorker;
  if (r.timed) r.timing = CallTiming{timing->caches};
  const ChildRun run =
      call.run(r, static_cast<double>(a.q_elements + (a.k_out >= 0 ? a.k_elements : 0)), decoy_call(w, b, a, r.params));
  if (timing) *timing = r.timed && run.returned ? call.timing() : CallTiming{timing->caches};
  const ropecheck_status_t st = call_verdict(run, &b, &call, err, n);
  // Isolation found nothing wrong (damage() proved the cache unchanged):
  // the region keeps it. A kernel's own INTERNAL_ERROR is not told apart.
  if (st != ROPECHECK_INTERNAL_ERROR && a.named.generation != 0) call.keep(a.named);
  if (st == ROPECHECK_OK) copy_back(b, a);
  return st;
}

}  // namespace

ropecheck_status_t isolated_apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  try {
    return isolated_apply_unguarded(ctx, p, err, n);
  } catch (const std::bad_alloc&) {
    return unmappable(err, n);
  }
}

}  // namespace ropecheck
