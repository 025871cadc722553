// SPDX-License-Identifier: MIT
// The misbehaving kernels of misbehaviour_list.h: the control kernel
// (Bug::none), correct on its own, wrapped with one attack on the harness.
// Written to be obvious, not clever: each row is what a buggy or
// reward-hacking kernel would do (KernelArena's taxonomy of semantic attacks
// names writing results late, caching, reading stale outputs, touching memory
// it was not given). The rows' steps live by threat class in the
// misbehaviour_*_rows.cc files (misbehaviour_rows.h); this file runs them
// around the control's call and builds the kernels' tables.
#include <cstdint>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/impl_table.h"
#include "mutants/cos_sin_cache_mutants.h"
#include "mutants/misbehaviour_rows.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck::mutant {
namespace {

constexpr int kCount = static_cast<int>(kMisbehaviourCount);

// What each row computes with: the catalogue's clean kernel, its cache
// kernel for writes_cache and restores_own_cache (whose only bug, no bounds
// check, is outside every case its cache covers), the caller's-cache control
// for restores_caller_cache.
const ropecheck_impl_t& clean_kernel(Misbehaviour m) {
  if (m == Misbehaviour::writes_cache || m == Misbehaviour::restores_own_cache)
    return *mutant_impl(Bug::cache_no_bounds_check);
  if (m == Misbehaviour::restores_caller_cache) return *caller_cache_control();
  return *mutant_impl(Bug::none);
}

ropecheck_status_t misbehaving_apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Misbehaviour m = static_cast<const MisbehaviourInfo*>(ctx)->kind;
  const ropecheck_impl_t& clean = clean_kernel(m);
  if (auto st = impl::check_apply(clean.caps, p, err, n)) return st;
  const MisbehaviourRow& row = misbehaviour_rows()[static_cast<std::size_t>(m)];
  MisbehavingCall call{.p = p, .clean = clean, .err = err, .n = n, .big = p->num_tokens > 3,
                       .out_of_place = p->q_in != p->q_out, .input_key = 0, .before = {}};
  if (row.before)
    if (const auto st = row.before(call)) return *st;
  const ropecheck_status_t st = clean.apply(clean.ctx, p, err, n);
  if (row.after_any) row.after_any(call);
  if (st != ROPECHECK_OK) return st;
  if (row.after) row.after(call);
  return ROPECHECK_OK;
}

}  // namespace

const MisbehaviourRows& misbehaviour_rows() {
  static const MisbehaviourRows rows = [] {
    MisbehaviourRows r{};
    add_process_rows(r);
    add_memory_rows(r);
    add_escape_rows(r);
    add_state_rows(r);
    add_timing_rows(r);
    return r;
  }();
  return rows;
}

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
