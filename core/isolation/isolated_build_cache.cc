// SPDX-License-Identifier: MIT
// An isolated build_cache: the builder writes into a poisoned guarded copy
// of the table, copied back whole when it returned OK.
#include <cstring>

#include "core/isolation/call_extents.h"
#include "core/isolation/call_verdict.h"
#include "core/isolation/guarded_copies.h"
#include "core/isolation/isolated_apply.h"
#include "core/isolation/isolated_call.h"
#include "ropecheck/dtype.h"

namespace ropecheck {

// The signature is the ABI's (ropecheck_impl_t::build_cache): its eight
// parameters are not ours to group.
ropecheck_status_t isolated_build_cache(void* ctx, const ropecheck_freq_spec_t* f, std::int32_t rotary_dim,
                                        std::int64_t rows, std::uint32_t dtype, void* out, char* err,
                                        std::size_t n) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  const ropecheck_impl_t& in = *w.inner;
  if (!out || rotary_dim <= 0 || rows <= 0 || rows > (std::int64_t{1} << 32) || dtype >= ROPECHECK_DTYPE_COUNT)
    return refuse_in_child(
        w, [&](char* e, std::size_t en) { return in.build_cache(in.ctx, f, rotary_dim, rows, dtype, out, e, en); }, err,
        n);
  const std::size_t bytes = static_cast<std::size_t>(rows) * static_cast<std::size_t>(rotary_dim) * cos_sin_dtype_size(dtype);
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
  const ropecheck_status_t st = call_verdict(run, &b, &call, err, n);
  // The region does not keep what was built: a table is built with more
  // rows than the call that asked for it hands over (own_cos_sin_cache.h),
  // and a region holding the longer one placed every apply of the case's
  // rows after it, a copy each, instead of holding theirs (the quick gate
  // copied 12.5 GB of cos/sin caches into workers, then 4.6).
  if (st == ROPECHECK_OK) std::memcpy(out, b.data(cache), bytes);
  return st;
}

}  // namespace ropecheck
