// SPDX-License-Identifier: MIT
// The parts of a call that the ABI's fused features add (call_part.h), one
// per feature: the KV-cache write (1.4, MLA's caches 1.5), the qk-norm
// (1.5), the kernel's own cos/sin cache and the caller's (1.6).
#ifndef ROPECHECK_CORE_KERNEL_CALL_PARTS_FUSED_PARTS_H_
#define ROPECHECK_CORE_KERNEL_CALL_PARTS_FUSED_PARTS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/isolation/read_only_watch.h"
#include "core/kernel/call_parts/call_part.h"

namespace ropecheck {

// The cache write, for a kernel granting it: the case's (or the one given),
// its caches arriving in a state drawn per call (core/cases/kv_write_case.h).
class KvWritePart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;

 private:
  ropecheck_kv_write_t kw_{}, before_{};
  std::vector<std::int64_t> slots_;
  std::vector<float> k_scale_, v_scale_;
  ByteBuffer v_;
};

// The qk-norm, where the call's options carry one.
class QkNormPart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;

 private:
  ropecheck_qk_norm_t qn_{}, before_{};
  std::array<ByteBuffer, 2> weight_, given_;
};

// The rows a cache is handed: a row per position from 0 to the largest, or
// the case's rows when it carries more (a case derived from another); for
// the bounds check, cache_rows_short fewer than the largest position needs.
std::int64_t call_cache_rows(const CallSetup& s);

// A kernel's own cos/sin cache, built by its build_cache (own_cos_sin_cache.h):
// in process read-only for the call where watches work, as the caller's is.
class OwnCachePart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  void after_apply(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;

 private:
  // In process, where read-only watches work: the memo the kernel is
  // handed, read-only for the call (core/isolation/read_only_watch.h).
  std::optional<ReadOnlyWatch> watch_;
  bool written_ = false;
  // Else: the thread's copy the kernel is handed, and the memo it was copied from.
  std::vector<float>* copy_ = nullptr;
  const float* given_ = nullptr;
};

// The caller's cos/sin cache (core/kernel/caller_cos_sin_cache.h), read-only
// to an in-process kernel for the call (core/isolation/read_only_watch.h).
class CallerCachePart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  void before_apply(CallSetup& s) override;
  void after_apply(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;

 private:
  bool checked_ = false;  // in process: compared after the call
  std::optional<ReadOnlyWatch> watch_;
  bool written_ = false;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_CALL_PARTS_FUSED_PARTS_H_
