// SPDX-License-Identifier: MIT
// The misbehaviours that steer a timer (`ropecheck bench`, issue #35 and
// #49) rather than the results: finishing in a thread after the return,
// extra work on purpose, recomputing only what changed, computing on every
// fourth call (the last two in timing_gamers.cc).
#include <chrono>
#include <thread>
#include <vector>

#include "mutants/kept_results.h"
#include "mutants/misbehaviour_rows.h"
#include "mutants/timing_gamers.h"

namespace ropecheck::mutant {
namespace {

using Status = std::optional<ropecheck_status_t>;

// The work, done by a thread that outlives the call by a millisecond: by the
// time anyone looks, the results are there and the thread is gone; a caller
// reading them on return sees the poison.
Status late_writer(MisbehavingCall& call) {
  const ropecheck_impl_t* c = &call.clean;
  const ropecheck_apply_params_t* p = call.p;
  std::thread([c, p] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    char e[256];
    c->apply(c->ctx, p, e, sizeof e);
  }).detach();
  return ROPECHECK_OK;
}

// Three more rotations, out of place into scratch, before the real one.
Status extra_passes(MisbehavingCall& c) {
  std::vector<unsigned char> sq(q_bytes(c.p)), sk(k_bytes(c.p));
  ropecheck_apply_params_t scratch = *c.p;
  scratch.q_out = sq.data();
  scratch.k_out = sk.empty() ? nullptr : sk.data();
  for (int pass = 0; pass < 3; ++pass)
    if (auto st = c.clean.apply(c.clean.ctx, &scratch, c.err, c.n)) return st;
  return std::nullopt;
}

Status diff_cache(MisbehavingCall& c) { return diff_cached_apply(c.clean, c.p, c.err, c.n); }

Status computes_every_fourth_call(MisbehavingCall& c) { return every_fourth_call_apply(c.clean, c.p, c.err, c.n); }

}  // namespace

void add_timing_rows(MisbehaviourRows& rows) {
  row_of(rows, Misbehaviour::late_writer).before = late_writer;
  row_of(rows, Misbehaviour::extra_passes).before = extra_passes;
  row_of(rows, Misbehaviour::diff_cache).before = diff_cache;
  row_of(rows, Misbehaviour::computes_every_fourth_call).before = computes_every_fourth_call;
}

}  // namespace ropecheck::mutant
