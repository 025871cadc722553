// SPDX-License-Identifier: MIT
// One call of a kernel through the ABI on private copies of a case's inputs, its parts set up and checked.
#include "core/kernel/kernel_call.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "core/cases/views.h"
#include "core/isolation/active_calls.h"
#include "core/isolation/host_guard.h"
#include "core/isolation/fp_env.h"
#include "core/isolation/isolation.h"
#include "core/kernel/call_parts/base_parts.h"
#include "core/kernel/call_parts/fused_parts.h"
#include "core/kernel/call_parts/quant_out_part.h"
#include "core/kernel/poison_key.h"
#include "ropecheck/axes.h"
#include "ropecheck/capabilities.h"
#include "ropecheck/dtype.h"
#include "ropecheck/names.h"

namespace ropecheck {

void note_isolation_finding(KernelRun& r) {
  if (std::optional<IsolationFinding> f = take_isolation_finding()) r.misbehaviour = f->text();
}

CallPositions call_positions(const Case& c) {
  CallPositions r;
  if (!c.axes.multi()) {
    r.ids = c.positions;
    return r;
  }
  // Rows of num_tokens ids, axis_pad ids between them holding an id no
  // kernel may read: one that reads row a at a * num_tokens (ignoring the
  // stride) rotates by a far negative position, or reports it out of range.
  const int axes = c.axes.num_axes;
  r.axis_stride = c.tokens + c.axis_pad;
  const std::int64_t gap = c.position_type == ROPECHECK_INDEX_INT32 ? INT32_MIN + 1 : -(std::int64_t{1} << 62);
  r.ids.assign(static_cast<std::size_t>(r.axis_stride * (axes - 1) + c.tokens), gap);
  for (int a = 0; a < axes; ++a)
    for (std::int64_t t = 0; t < c.tokens; ++t) r.ids[static_cast<std::size_t>(a * r.axis_stride + t)] = c.position(t, a);
  return r;
}

std::string KernelRun::failure() const {
  if (!misbehaviour.empty()) return misbehaviour;
  return "apply returned status " + std::to_string(status) + " on a case inside its declared capabilities: " + message;
}

KernelRun::~KernelRun() = default;

KernelRun call_kernel(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const CallOptions& o) {
  // What the buffers arrive holding (poison, a KV cache's state) follows
  // from this call alone: the salt tells a pair's calls apart by the poison
  // each asked for.
  seed_poison(poison_key(c, impl.name, o.poison ? 1 + static_cast<std::uint64_t>(*o.poison) : 0));
  KernelRun r;
  CallSetup s{impl, c, in, o, geometry(c), isolated_inner(impl) != nullptr, r};
  ropecheck_apply_params_t& p = s.p;
  p.struct_size = sizeof(p);
  p.dtype = c.dtype;
  p.layout = c.layout;
  p.direction = c.direction;
  p.num_tokens = c.tokens;
  p.num_q_heads = c.q_heads;
  p.num_kv_heads = c.kv_heads;
  p.head_dim = c.shape.head_dim;
  p.rotary_dim = c.shape.rotary_dim;
  p.num_threads = c.num_threads;
  // Every input the kernel receives is a private copy, compared after the
  // call (a kernel writing into one cannot change the case, or the reference
  // computed from it, for anyone else). The cache parts come after the
  // guard: building a kernel's own cache runs its code.
  QkPart qk;
  PositionsPart positions;
  FreqPart freq;
  KvWritePart kv_write;
  QkNormPart qk_norm;
  QuantOutPart quant_out;
  OwnCachePart own_cache;
  CallerCachePart caller_cache;
  CallPart* const before_guard[] = {&qk, &positions, &freq, &kv_write, &qk_norm, &quant_out};
  CallPart* const after_guard[] = {&own_cache, &caller_cache};
  for (CallPart* part : before_guard)
    if (!part->set_up(s)) return r;
  const HostGuard guard("the kernel " + std::string(impl.name) + " (called in ropecheck's own process)", 1);
  // The floating-point control state the kernel returns to: named and
  // given back when it differs, so neither the reference nor a later kernel
  // in this process computes in what it left (an isolated kernel's own
  // process checks it, core/isolation/child_side.h).
  s.fp_before = fp_control_now();
  for (CallPart* part : after_guard)
    if (!part->set_up(s)) return r;
  char err[1024] = {0};
  take_isolation_finding();  // none left from a call whose finding nobody took
  for (CallPart* part : after_guard) part->before_apply(s);
  {
    const ActiveCall running(impl.name);  // named by the supervisor if the run is stopped or killed meanwhile
    r.status = impl.apply(impl.ctx, &p, err, sizeof err);
  }
  for (CallPart* part : after_guard) part->after_apply(s);
  if (r.status != ROPECHECK_OK) r.message = err;
  const std::string fp = restore_fp_control(s.fp_before);
  note_isolation_finding(r);
  const CallPart* const all[] = {&qk, &positions, &freq, &kv_write, &qk_norm, &quant_out, &own_cache, &caller_cache};
  for (const CallPart* part : all)
    if (r.misbehaviour.empty()) r.misbehaviour = part->changed(s);
  if (r.misbehaviour.empty()) r.misbehaviour = fp;
  return r;
}

}  // namespace ropecheck
