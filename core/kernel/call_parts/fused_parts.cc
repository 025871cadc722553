// SPDX-License-Identifier: MIT
// The fused features' parts of a kernel call.
#include "core/kernel/call_parts/fused_parts.h"

#include <algorithm>
#include <cstring>

#include "core/cases/cos_sin_cache_case.h"
#include "core/isolation/isolation.h"
#include "core/kernel/caller_cos_sin_cache.h"
#include "core/kernel/declared_capabilities.h"
#include "core/kernel/own_cos_sin_cache.h"
#include "ropecheck/names.h"

namespace ropecheck {

bool KvWritePart::set_up(CallSetup& s) {
  if (!(s.impl.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE)) return true;
  const KvRun* given = s.o.kv_given;
  std::optional<KvWriteCase> spec =
      given ? std::optional<KvWriteCase>(given->spec) : kv_write_case(s.c, s.impl.kv_policy, s.impl.kv_cache_kinds);
  if (!spec) return true;
  KvRun& kv = s.r.kv.emplace();
  kv.spec = std::move(*spec);
  if (const std::vector<std::int64_t>* slots = s.o.slot_mapping) {
    if (slots->size() != kv.spec.slots.size())  // a caller's error, never the kernel's
      return refuse_call(s, "ropecheck passed a slot mapping of " + std::to_string(slots->size()) + " entries for " +
                                std::to_string(kv.spec.slots.size()) + " tokens");
    kv.spec.slots = *slots;
  }
  if (given) {
    kv.v = given->v;
    kv.k_cache = given->k_initial;
    kv.v_cache = given->v_initial;
  } else {
    kv.v = make_kv_v(s.c, kv.spec);
    kv.k_cache.resize(kv.spec.cache_bytes());
    kv.v_cache.resize(kv.spec.v_cache_bytes());
    // The state both caches arrive in, drawn per call.
    const CacheInitial initial = draw_cache_initial();
    fill_cache_initial(kv.k_cache.data(), kv.k_cache.size(), kv.spec.dtype, initial);
    fill_cache_initial(kv.v_cache.data(), kv.v_cache.size(), kv.spec.dtype, initial);
  }
  kv.k_initial = kv.k_cache;
  kv.v_initial = kv.v_cache;
  v_ = kv.v;
  slots_ = kv.spec.slots;
  k_scale_ = kv.spec.k_scale;
  v_scale_ = kv.spec.v_scale;
  kw_ = before_ = abi_kv_write(kv.spec, {kv.k_cache.data(), kv.v_cache.empty() ? nullptr : kv.v_cache.data(), v_.data(),
                                            slots_.data(), k_scale_.data(), v_scale_.data()});
  s.p.kv_write = &kw_;
  return true;
}

std::string KvWritePart::changed(const CallSetup& s) const {
  if (!s.r.kv) return {};
  if (std::memcmp(&kw_, &before_, sizeof kw_) != 0) return "wrote into its input kv_write";
  if (slots_ != s.r.kv->spec.slots) return "wrote into its input kv_write.slot_mapping";
  if (k_scale_ != s.r.kv->spec.k_scale || v_scale_ != s.r.kv->spec.v_scale)
    return "wrote into its input kv_write.k_scale/v_scale";
  if (v_ != s.r.kv->v) return "wrote into its input kv_write.v";
  return {};
}

bool QkNormPart::set_up(CallSetup& s) {
  const QkNormCase* norm = s.o.norm;
  if (!norm) return true;
  const Case& c = s.c;
  for (int w = 0; w < (c.kv_heads > 0 ? 2 : 1); ++w)
    weight_[static_cast<std::size_t>(w)] = given_[static_cast<std::size_t>(w)] = weight_bytes(c, *norm, w);
  qn_.struct_size = sizeof qn_;
  qn_.weight_form = norm->form;
  qn_.eps = norm->eps;
  qn_.q_weight = weight_[0].data();
  qn_.k_weight = c.kv_heads > 0 ? weight_[1].data() : nullptr;
  before_ = qn_;
  s.p.qk_norm = &qn_;
  return true;
}

std::string QkNormPart::changed(const CallSetup&) const {
  if (std::memcmp(&qn_, &before_, sizeof qn_) != 0) return "wrote into its input qk_norm";
  if (weight_ != given_) return "wrote into its input qk_norm.q_weight/k_weight";
  return {};
}

std::int64_t call_cache_rows(const CallSetup& s) {
  const int shorter = s.o.cache_rows_short;
  return shorter > 0 ? std::max<std::int64_t>(s.c.max_abs_position() + 1 - shorter, 1) : cos_sin_cache_rows(s.impl, s.c);
}

bool OwnCachePart::set_up(CallSetup& s) {
  if (!(s.impl.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE)) return true;
  if (s.impl.build_cache == nullptr) {
    s.r.status = ROPECHECK_INTERNAL_ERROR;
    s.r.message = "declares a cos/sin cache but exports no build_cache";
    return false;
  }
  const std::int64_t rows = call_cache_rows(s);
  const OwnCosSinCache own = own_cos_sin_cache(
      s.impl, {.freq = *s.p.freq, .rotary_dim = s.c.shape.rotary_dim, .rows = rows}, s.fp_before, &s.r);
  if (own.data == nullptr) return false;
  if (s.isolated) {
    // Isolation hands the kernel a copy of its own and proves it unchanged
    // (core/isolation/isolation.h): the memo itself is safe to hand over,
    // named, so its worker keeps it between calls.
    s.p.cos_sin_cache = own.data;
    name_cache_contents(own.data, own.generation);
  } else if (own.read_only_bytes > 0 &&
             watch_.emplace(const_cast<float*>(own.data), own.read_only_bytes, ReadOnlyWatch::AlreadyReadOnly{})
                 .armed()) {
    // The memo itself, read-only (own_cos_sin_cache.h) and watched until
    // the call returns (after_apply): a write faults, is named and the
    // memo built again, a write undone before returning included, as for
    // the caller's cache. A copy per call compared after it (below) cost a
    // memcpy and a memcmp of up to 64 MiB per call, 29% of an in-process
    // gate run.
    s.p.cos_sin_cache = own.data;
  } else {
    // No watch (ropecheck's fault handler not in place: an AddressSanitizer
    // build, or a host that installed its own before or after it; the memo
    // built for isolated calls; an mprotect or a watch slot that failed): this
    // thread's storage, reused (a fresh vector of up to 64 MiB per call
    // cost a page fault per page, twice), compared with the memo after
    // the call.
    watch_.reset();
    thread_local std::vector<float> t_copy;
    copy_ = &t_copy;
    copy_->assign(own.data, own.data + rows * s.c.shape.rotary_dim);
    given_ = own.data;
    s.p.cos_sin_cache = copy_->data();
  }
  s.p.cache_dtype = ROPECHECK_DTYPE_F32;
  s.p.cache_max_position = rows;
  return true;
}

void OwnCachePart::after_apply(CallSetup&) {
  // Ended before it is read: a write after this faults (a thread the
  // kernel left running), never a write recorded where nobody looks.
  written_ = watch_ && watch_->end();
  watch_.reset();
  if (written_) forget_own_cos_sin_cache();
}

std::string OwnCachePart::changed(const CallSetup&) const {
  if (written_)
    return "wrote into its input cos_sin_cache (its own, from its build_cache), read-only for the call: a write "
           "undone before returning is one too";
  // Bits, not values: a NaN the builder left is not a change, -0 over +0
  // is; and memcmp, not a float loop over up to 16M elements (10% of an
  // in-process gate's profile), against the memo it was copied from, not
  // a second copy (up to 64 MiB per call).
  if (copy_ && std::memcmp(copy_->data(), given_, copy_->size() * sizeof(float)) != 0)
    return "wrote into its input cos_sin_cache";
  return {};
}

bool CallerCachePart::set_up(CallSetup& s) {
  if (!(s.impl.caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)) return true;
  const std::int64_t rows = call_cache_rows(s);
  const ropecheck_dtype_t dtype = caller_cache_dtype(s.c, s.impl.cos_sin_cache_dtypes);
  CallerCosSinCache& cache = thread_caller_cache();
  if (!cache.build(s.c, dtype, rows))  // ropecheck's own limit, never the kernel's
    return refuse_call(s, "ropecheck could not reserve the address space of a " + std::to_string(rows) +
                              "-row cos/sin cache (a ulimit -v?); the call was not made");
  s.p.cos_sin_cache = cache.data();
  s.p.cache_dtype = dtype;
  s.p.cache_max_position = rows;
  checked_ = !s.isolated;
  // Named for isolation: a worker keeps the bytes between calls handed the
  // same cache (a case's properties call its kernel many times on it).
  if (!checked_) name_cache_contents(cache.data(), cache.generation(), &cache.live_ranges());
  return true;
}

void CallerCachePart::before_apply(CallSetup&) {
  // In this process the caller's cache is read-only for the call as it is
  // in a worker or a child (a write undone before returning is seen too).
  if (checked_) watch_.emplace(const_cast<void*>(thread_caller_cache().data()), thread_caller_cache().mapped_bytes());
}

void CallerCachePart::after_apply(CallSetup&) {
  written_ = watch_ && watch_->end();  // ended before it is read, as OwnCachePart's
  watch_.reset();
  if (written_) thread_caller_cache().invalidate();
}

std::string CallerCachePart::changed(const CallSetup& s) const {
  if (!checked_) return {};
  const std::string which = "(the caller's, " + std::string(dtype_name(static_cast<ropecheck_dtype_t>(s.p.cache_dtype))) + ")";
  if (written_) return "wrote into its input cos_sin_cache " + which + ", read-only for the call: a write undone before "
                       "returning is one too";
  if (!thread_caller_cache().unchanged()) return "wrote into its input cos_sin_cache " + which;
  return {};
}

}  // namespace ropecheck
