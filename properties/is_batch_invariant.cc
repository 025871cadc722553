// SPDX-License-Identifier: MIT
// Rope/IsBatchInvariant: a token's output bits do not depend on what else is
// in the call: the same token rotated alone, in a batch with the token order
// reversed, and with one thread or several gives the same bits. Engines
// rely on it (a request's output must not change with the batch it lands
// in), and the size-dependent code paths of real kernels break it silently:
// a prefill path with other rounding, a thread split that changes a
// reduction, a batched decode that reads another row's position (MLX #3494).
#include <string>
#include <vector>

#include "core/cases/rng.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {
namespace {

// A case derived from the property's: its tokens are tokens token_of[t] of
// the case, run another way, which a failure names (`how`).
struct Derived {
  const Case& d;
  const std::vector<std::int64_t>& token_of;
  const std::string& how;
};

// Runs the derived case (inputs remapped from the case's) and compares each of
// its tokens with token_of[t] of the case's run `full`.
std::optional<PropertyResult> compare_derived(const ropecheck_impl_t& impl, CaseContext& ctx, const KernelRun& full,
                                              const Derived& derived) {
  const Case& c = ctx.spec();
  const Case& d = derived.d;
  if (!outside_capabilities(impl, d).empty()) return std::nullopt;  // nothing to compare with
  KernelRun r;
  if (auto f = call_or_fail(impl, d, remap_inputs(c, ctx.inputs(), d, derived.token_of), &r)) return f;
  for (std::int64_t t = 0; t < d.tokens; ++t) {
    const std::int64_t src = derived.token_of[static_cast<std::size_t>(t)];
    if (std::string diff = first_token_difference({c, full.out, src}, {d, r.out, t}); !diff.empty())
      return PropertyResult::fail("token " + std::to_string(src) + " (position " +
                                  c.token_positions(src) + ") of " +
                                  std::to_string(c.tokens) + " has other bits " + derived.how + ": " + diff);
  }
  return std::nullopt;
}

}  // namespace

PropertyResult is_batch_invariant(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const KernelRun* base = nullptr;
  if (auto f = base_run_or_fail(impl, ctx, &base)) return *f;
  const KernelRun& full = *base;

  // One token alone (a seeded pick; the last token when the first is 0).
  if (c.tokens > 1) {
    Rng rng(c.data_seed, 0x62617463ULL);  // "batc"
    const std::int64_t t = rng.range(0, c.tokens - 1);
    Case one = c;
    one.tokens = 1;
    one.seq_len = 0;
    one.seq_pad = 0;
    one.positions = c.positions_of({t});
    const std::vector<std::int64_t> alone{t};
    if (auto f = compare_derived(impl, ctx, full, {one, alone, "when rotated alone"})) return *f;

    // The whole batch with the token order reversed, as one run of tokens.
    Case rev = c;
    rev.seq_len = 0;
    rev.seq_pad = 0;
    std::vector<std::int64_t> order;
    for (std::int64_t i = c.tokens - 1; i >= 0; --i) order.push_back(i);
    rev.positions = c.positions_of(order);
    if (auto f = compare_derived(impl, ctx, full, {rev, order, "with the token order reversed"})) return *f;
  }

  // Another thread count: one thread, or four when the case asked for one.
  Case threads = c;
  threads.num_threads = c.num_threads == 1 ? 4 : 1;
  std::vector<std::int64_t> same;
  for (std::int64_t i = 0; i < c.tokens; ++i) same.push_back(i);
  const std::string how =
      "with num_threads " + std::to_string(threads.num_threads) + " instead of " + std::to_string(c.num_threads);
  if (auto f = compare_derived(impl, ctx, full, {threads, same, how})) return *f;
  return {};
}

}  // namespace ropecheck::prop
