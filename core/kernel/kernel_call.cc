#include "core/kernel/kernel_call.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "core/cases/cos_sin_cache_case.h"
#include "core/cases/views.h"
#include "core/isolation/active_calls.h"
#include "core/isolation/host_guard.h"
#include "core/isolation/fp_env.h"
#include "core/isolation/isolation.h"
#include "core/isolation/read_only_watch.h"
#include "core/kernel/caller_cos_sin_cache.h"
#include "core/kernel/declared_capabilities.h"
#include "core/kernel/own_cos_sin_cache.h"
#include "ropecheck/axes.h"
#include "ropecheck/capabilities.h"
#include "ropecheck/dtype.h"
#include "ropecheck/names.h"

namespace ropecheck {

void take_isolation_finding(KernelRun& r) {
  const std::string prefix = kIsolatedCallPrefix;
  if (r.status == ROPECHECK_INTERNAL_ERROR && r.message.compare(0, prefix.size(), prefix) == 0)
    r.misbehaviour = r.message;
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

KernelRun call_kernel(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, int cache_rows_short,
                      std::optional<PoisonKind> poison, const QkNormCase* norm,
                      const std::vector<std::int64_t>* slot_mapping, const KvRun* kv_given) {
  const Geometry g = geometry(c);
  KernelRun r;
  // A private copy of q and k for a kernel in this process, which could
  // write into its inputs. In place it works on r.out; an isolated kernel
  // only ever sees copies isolation makes and proves unchanged
  // (core/isolation/isolation.h), so it is handed the case's own buffers.
  const bool isolated = isolated_inner(impl) != nullptr;
  const bool private_inputs = !c.in_place && !isolated;
  QkBuffers inputs;
  if (private_inputs) inputs = in;
  const QkBuffers& given = private_inputs ? inputs : in;
  if (c.in_place) {
    r.out = in;
  } else {
    const PoisonKind kind = poison ? *poison : draw_poison_kind();
    for (int w = 0; w < 2; ++w) {
      r.out.bytes[w].resize(in.bytes[w].size());
      fill_poison(r.out.bytes[w].data(), r.out.bytes[w].size(), c.dtype, kind, in.bytes[w].data());
    }
  }
  // What the outputs held, for the check of writes outside the views;
  // nothing to keep when the views are the whole buffers (no padding, no
  // other part of a qkv row): a copy of both outputs per call, 2% of a
  // quick gate, that no check read.
  if (!views_cover_buffer(g, 0) || !views_cover_buffer(g, 1)) r.initial = r.out;
  // Private copies of every input: a kernel writing into one cannot change
  // the case (or the reference computed from it) for anyone else.
  const CallPositions call_pos = call_positions(c);
  const bool ids32 = c.position_type == ROPECHECK_INDEX_INT32;
  std::vector<std::int32_t> pos32;
  std::vector<std::int64_t> pos64;
  if (ids32) {
    // Never narrowed: outside_capabilities declines such a case first.
    for (const std::int64_t id : c.positions)
      if (!fits_int32_position(id)) {
        r.status = ROPECHECK_INTERNAL_ERROR;
        r.misbehaviour = "ropecheck would narrow position " + std::to_string(id) +
                         " into an int32 buffer (the caller did not check outside_capabilities)";
        return r;
      }
    pos32.assign(call_pos.ids.begin(), call_pos.ids.end());
  } else {
    pos64 = call_pos.ids;
  }
  std::vector<std::int32_t> sections(c.axes.sections), table(c.axes.table);
  ref::FreqSpec freq = c.freq;
  const ropecheck_freq_spec_t abi_freq = freq.to_abi();
  const ropecheck_freq_spec_t abi_freq_before = abi_freq;
  // This thread's storage, reused: a fresh vector of up to 64 MiB per call
  // cost a page fault per page, twice (most of an in-process gate's system
  // time). Emptied here, so a kernel without a cache compares two empties.
  thread_local std::vector<float> t_cache;
  std::vector<float>& cache = t_cache;
  cache.clear();
  // What the cache was handed holding: the memo's first rows (an empty
  // cache for a kernel without one).
  const float* cache_given = nullptr;
  // ABI 1.6: the caller's cache, checked after the call when the kernel ran
  // in this process (isolation checks its own copy).
  bool caller_cache_checked = false;
  char err[1024] = {0};
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof(p);
  p.dtype = c.dtype;
  p.layout = c.layout;
  p.direction = c.direction;
  p.num_tokens = c.tokens;
  p.num_q_heads = c.q_heads;
  p.num_kv_heads = c.kv_heads;
  p.head_dim = c.shape.head_dim;
  p.rotary_dim = c.shape.rotary_dim;
  // Each view starts at its base (the k view of a fused qkv row).
  unsigned char* q_out = r.out.bytes[0].data() + g.base[0] * g.esize;
  unsigned char* k_out = r.out.bytes[1].data() + g.base[1] * g.esize;
  const std::optional<CallStrides> st = call_strides(c, g, (impl.caps.flags & ROPECHECK_CAP_SEQ_STRIDES) != 0);
  if (!st) {  // outside_capabilities declines these cases first: a caller skipped it
    r.status = ROPECHECK_INTERNAL_ERROR;
    r.misbehaviour = "ropecheck called the kernel on a batched case it cannot express without SEQ_STRIDES "
                     "(the caller did not check outside_capabilities)";
    return r;
  }
  p.q_in = c.in_place ? q_out : given.bytes[0].data() + g.base[0] * g.esize;
  p.q_out = q_out;
  p.q_token_stride = st->token_stride[0];
  p.q_head_stride = st->head_stride[0];
  p.k_in = c.kv_heads == 0 ? nullptr : c.in_place ? k_out : given.bytes[1].data() + g.base[1] * g.esize;
  p.k_out = c.kv_heads == 0 ? nullptr : k_out;  // kv_heads 0: no k (kernel_abi.h)
  p.k_token_stride = st->token_stride[1];
  p.k_head_stride = st->head_stride[1];
  p.seq_len = st->seq_len;
  p.q_seq_stride = st->seq_stride[0];
  p.k_seq_stride = st->seq_stride[1];
  p.num_threads = c.num_threads;
  p.positions = ids32 ? static_cast<const void*>(pos32.data()) : static_cast<const void*>(pos64.data());
  p.position_type = c.position_type;
  if (c.axes.multi()) {
    p.num_axes = c.axes.num_axes;
    p.axis_assignment = c.axes.assignment;
    p.axis_frequencies = c.axes.frequencies;
    p.position_axis_stride = call_pos.axis_stride;
    p.axis_sections = sections.empty() ? nullptr : sections.data();
    p.pair_axis = table.empty() ? nullptr : table.data();
  }
  p.freq = &abi_freq;
  // ABI 1.4: the cache write, for a kernel granting it.
  ropecheck_kv_write_t kw{};
  std::vector<std::int64_t> kv_slots;
  std::vector<float> kv_k_scale, kv_v_scale;
  ByteBuffer kv_v;
  if (impl.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE) {
    std::optional<KvWriteCase> spec =
        kv_given ? std::optional<KvWriteCase>(kv_given->spec) : kv_write_case(c, impl.kv_policy, impl.kv_cache_kinds);
    if (spec) {
      KvRun& kv = r.kv.emplace();
      kv.spec = std::move(*spec);
      if (slot_mapping != nullptr) {
        if (slot_mapping->size() != kv.spec.slots.size()) {  // a caller's error, never the kernel's
          r.status = ROPECHECK_INTERNAL_ERROR;
          r.misbehaviour = "ropecheck passed a slot mapping of " + std::to_string(slot_mapping->size()) +
                           " entries for " + std::to_string(kv.spec.slots.size()) + " tokens";
          return r;
        }
        kv.spec.slots = *slot_mapping;
      }
      if (kv_given) {
        kv.v = kv_given->v;
        kv.k_cache = kv_given->k_initial;
        kv.v_cache = kv_given->v_initial;
      } else {
        kv.v = make_kv_v(c, kv.spec);
        kv.k_cache.resize(kv.spec.cache_bytes());
        kv.v_cache.resize(kv.spec.v_cache_bytes());
        // The state both caches arrive in, drawn per call (kv_write_case.h).
        const CacheInitial initial = draw_cache_initial();
        fill_cache_initial(kv.k_cache.data(), kv.k_cache.size(), kv.spec.dtype, initial);
        fill_cache_initial(kv.v_cache.data(), kv.v_cache.size(), kv.spec.dtype, initial);
      }
      kv.k_initial = kv.k_cache;
      kv.v_initial = kv.v_cache;
      kv_v = kv.v;
      kv_slots = kv.spec.slots;
      kv_k_scale = kv.spec.k_scale;
      kv_v_scale = kv.spec.v_scale;
      kw = abi_kv_write(kv.spec, kv.k_cache.data(), kv.v_cache.empty() ? nullptr : kv.v_cache.data(), kv_v.data(),
                        kv_slots.data(), kv_k_scale.data(), kv_v_scale.data());
      p.kv_write = &kw;
    }
  }
  const ropecheck_kv_write_t kw_before = kw;
  // ABI 1.5: the qk-norm, where the caller asks for one.
  ropecheck_qk_norm_t qn{};
  std::array<ByteBuffer, 2> qn_weight, qn_weight_given;
  if (norm != nullptr) {
    for (int w = 0; w < (c.kv_heads > 0 ? 2 : 1); ++w)
      qn_weight[static_cast<std::size_t>(w)] = qn_weight_given[static_cast<std::size_t>(w)] = weight_bytes(c, *norm, w);
    qn.struct_size = sizeof qn;
    qn.weight_form = norm->form;
    qn.eps = norm->eps;
    qn.q_weight = qn_weight[0].data();
    qn.k_weight = c.kv_heads > 0 ? qn_weight[1].data() : nullptr;
    p.qk_norm = &qn;
  }
  const ropecheck_qk_norm_t qn_before = qn;
  // What an in-process kernel may not change (an isolated one works on
  // copies isolation checks itself; these then stay unchanged trivially).
  auto changed_input = [&]() -> std::string {
    if (private_inputs && inputs.bytes != in.bytes)
      return "wrote into its input " + std::string(inputs.bytes[0] != in.bytes[0] ? "q_in" : "k_in");
    if (ids32 ? !std::equal(pos32.begin(), pos32.end(), call_pos.ids.begin(), call_pos.ids.end(),
                            [](std::int32_t a, std::int64_t b) { return a == static_cast<std::int32_t>(b); })
              : pos64 != call_pos.ids)
      return "wrote into its input positions";
    if (sections != c.axes.sections) return "wrote into its input axis_sections";
    if (table != c.axes.table) return "wrote into its input pair_axis";
    if (std::memcmp(&abi_freq, &abi_freq_before, sizeof abi_freq) != 0) return "wrote into its input freq";
    if (r.kv) {
      if (std::memcmp(&kw, &kw_before, sizeof kw) != 0) return "wrote into its input kv_write";
      if (kv_slots != r.kv->spec.slots) return "wrote into its input kv_write.slot_mapping";
      if (kv_k_scale != r.kv->spec.k_scale || kv_v_scale != r.kv->spec.v_scale)
        return "wrote into its input kv_write.k_scale/v_scale";
      if (kv_v != r.kv->v) return "wrote into its input kv_write.v";
    }
    if (std::memcmp(&qn, &qn_before, sizeof qn) != 0) return "wrote into its input qk_norm";
    if (qn_weight != qn_weight_given) return "wrote into its input qk_norm.q_weight/k_weight";
    if (freq.short_factor != c.freq.short_factor) return "wrote into its input freq.short_factor";
    if (freq.long_factor != c.freq.long_factor) return "wrote into its input freq.long_factor";
    if (freq.inv_freq != c.freq.inv_freq) return "wrote into its input freq.inv_freq";
    // Bits, not values: a NaN the builder left is not a change, -0 over +0
    // is; and memcmp, not a float loop over up to 16M elements (10% of an
    // in-process gate's profile), against the memo it was copied from, not
    // a second copy (up to 64 MiB per call).
    if (!cache.empty() && std::memcmp(cache.data(), cache_given, cache.size() * sizeof(float)) != 0)
      return "wrote into its input cos_sin_cache";
    if (caller_cache_checked && !thread_caller_cache().unchanged())
      return "wrote into its input cos_sin_cache (the caller's, " + std::string(dtype_name(static_cast<ropecheck_dtype_t>(p.cache_dtype))) + ")";
    return {};
  };
  const HostGuard guard("the kernel " + std::string(impl.name) + " (called in ropecheck's own process)", 1);
  // The floating-point control state the kernel returns to: named and
  // given back when it differs, so neither the reference nor a later kernel
  // in this process computes in what it left (an isolated kernel's own
  // process checks it, core/isolation/child_side.h).
  const FpControl fp_before = fp_control_now();
  // A cos/sin cache, the kernel's own or the caller's: a row per position
  // from 0 to the largest, or the case's rows when it carries more (a case
  // derived from another, core/cases/cases.h); for the bounds check,
  // cache_rows_short fewer than the largest position needs.
  const std::int64_t rows = cache_rows_short > 0
                                ? std::max<std::int64_t>(c.max_abs_position() + 1 - cache_rows_short, 1)
                                : cos_sin_cache_rows(impl, c);
  if (impl.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) {
    if (impl.build_cache == nullptr) {
      r.status = ROPECHECK_INTERNAL_ERROR;
      r.message = "declares a cos/sin cache but exports no build_cache";
      return r;
    }
    const OwnCosSinCache own = own_cos_sin_cache(impl, abi_freq, c.shape.rotary_dim, rows, fp_before, &r);
    if (own.data == nullptr) return r;
    if (isolated) {
      // Isolation hands the kernel a copy of its own and proves it unchanged
      // (core/isolation/isolation.h): the memo itself is safe to hand over,
      // named, so its worker keeps it between calls.
      p.cos_sin_cache = own.data;
      name_cache_contents(own.data, own.generation);
    } else {
      cache.assign(own.data, own.data + rows * c.shape.rotary_dim);
      cache_given = own.data;
      p.cos_sin_cache = cache.data();
    }
    p.cache_dtype = ROPECHECK_DTYPE_F32;
    p.cache_max_position = rows;
  }
  if (impl.caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE) {
    const ropecheck_dtype_t dtype = caller_cache_dtype(c, impl.cos_sin_cache_dtypes);
    CallerCosSinCache& given_cache = thread_caller_cache();
    if (!given_cache.build(c, dtype, rows)) {  // ropecheck's own limit, never the kernel's
      r.status = ROPECHECK_INTERNAL_ERROR;
      r.misbehaviour = "ropecheck could not reserve the address space of a " + std::to_string(rows) +
                       "-row cos/sin cache (a ulimit -v?); the call was not made";
      return r;
    }
    p.cos_sin_cache = given_cache.data();
    p.cache_dtype = dtype;
    p.cache_max_position = rows;
    caller_cache_checked = !isolated;
    // Named for isolation: a worker keeps the bytes between calls handed the
    // same cache (a case's properties call its kernel many times on it).
    if (!caller_cache_checked)
      name_cache_contents(given_cache.data(), given_cache.generation(), &given_cache.live_ranges());
  }
  // In this process the caller's cache is read-only for the call as it is
  // in a worker or a child (a write undone before returning is seen too).
  std::optional<ReadOnlyWatch> read_only;
  if (caller_cache_checked)
    read_only.emplace(const_cast<void*>(thread_caller_cache().data()), thread_caller_cache().mapped_bytes());
  {
    const ActiveCall running(impl.name);  // named by the supervisor if the run is stopped or killed meanwhile
    r.status = impl.apply(impl.ctx, &p, err, sizeof err);
  }
  if (r.status != ROPECHECK_OK) r.message = err;
  const bool cache_written = read_only && read_only->written();
  read_only.reset();
  if (cache_written) thread_caller_cache().invalidate();
  const std::string fp = restore_fp_control(fp_before);
  take_isolation_finding(r);
  if (r.misbehaviour.empty() && cache_written)
    r.misbehaviour = "wrote into its input cos_sin_cache (the caller's, " +
                     std::string(dtype_name(static_cast<ropecheck_dtype_t>(p.cache_dtype))) +
                     "), read-only for the call: a write undone before returning is one too";
  if (r.misbehaviour.empty()) r.misbehaviour = changed_input();
  if (r.misbehaviour.empty()) r.misbehaviour = fp;
  return r;
}

}  // namespace ropecheck
