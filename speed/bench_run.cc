// SPDX-License-Identifier: MIT
// `ropecheck bench`'s engine: the definitions of speed/bench_run.h.
#include "speed/bench_run.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>

#include "core/cases/rng.h"
#include "core/isolation/interrupt.h"
#include "core/judge/judge.h"
#include "core/judge/reference_result.h"
#include "core/kernel/kernel_call.h"
#include "ropecheck/kv_write.h"
#include "speed/baseline_kernels.h"
#include "speed/fresh_inputs.h"

namespace ropecheck::speed {
namespace {

// A kernel called in ropecheck's own process (--no-isolation, or a kernel
// that does not survive fork(): the registry's in-process kernels): its
// apply is timed right there, where the threads that are the call's cannot
// be told from ropecheck's own (threads_working -1).
struct InProcess {
  const ropecheck_impl_t* inner;
  ropecheck_impl_t table;
};

ropecheck_status_t in_process_apply(void* ctx, const ropecheck_apply_params_t* p, char* e, std::size_t n) {
  const ropecheck_impl_t& in = *static_cast<const InProcess*>(ctx)->inner;
  if (CallTiming* t = timed_calls()) return run_timed(in, p, {e, n}, t, /*own_process=*/false);
  return in.apply(in.ctx, p, e, n);
}

ropecheck_status_t in_process_build_cache(void* ctx, const ropecheck_freq_spec_t* f, std::int32_t rotary_dim,
                                          std::int64_t rows, std::uint32_t dtype, void* out, char* e, std::size_t n) {
  const ropecheck_impl_t& in = *static_cast<const InProcess*>(ctx)->inner;
  return in.build_cache(in.ctx, f, rotary_dim, rows, dtype, out, e, n);
}

const char* in_process_target(void* ctx) {
  const ropecheck_impl_t& in = *static_cast<const InProcess*>(ctx)->inner;
  return in.target(in.ctx);
}

// The table a row calls for `impl`: an isolated kernel as it is (its worker
// times its calls), any other wrapped to be timed in process. Lives for the
// process.
const ropecheck_impl_t* timed_table(const ropecheck_impl_t* impl) {
  if (isolated_inner(*impl)) return impl;
  static std::mutex mu;
  static std::deque<InProcess> tables;
  std::lock_guard<std::mutex> lock(mu);
  InProcess& w = tables.emplace_back(InProcess{impl, *impl});
  w.table.ctx = &w;
  w.table.apply = in_process_apply;
  w.table.build_cache = impl->build_cache ? in_process_build_cache : nullptr;
  w.table.target = impl->target ? in_process_target : nullptr;
  return &w.table;
}

// 64 bits that tell two outputs apart (not a checksum: it names, in a
// failure message, an earlier call whose output a kernel returned).
std::uint64_t fingerprint(const QkBuffers& b) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (const ByteBuffer& buf : b.bytes) {
    std::size_t i = 0;
    for (; i + 8 <= buf.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, buf.data() + i, 8);
      h = Rng::mix(h ^ w);
    }
    for (; i < buf.size(); ++i) h = Rng::mix(h ^ buf[i]);
    h = Rng::mix(h ^ buf.size());
  }
  return h;
}

// The KV-cache write's bytes (ABI 1.4): v read once, each written entry
// (k's, or MLA's k_pe, and v's or kv_c's) written once.
double kv_bytes(const KvRun& kv) {
  const KvWriteCase& s = kv.spec;
  std::int64_t written = 0;
  for (std::int64_t slot : s.slots) written += slot >= 0;
  const std::int64_t k_entry = static_cast<std::int64_t>(s.mla() ? 1 : s.kv_heads) * s.head_dim;
  const std::int64_t v_entry = static_cast<std::int64_t>(s.v_heads()) * s.v_channels();
  return static_cast<double>(kv.v.size()) +
         static_cast<double>(written * (k_entry + v_entry)) * static_cast<double>(kv_dtype_size(s.dtype));
}

// What a kernel call moves at least (bench/rope_bench.cc counts the same):
// in place, the rotated elements read and written once (a pass-through
// channel need not be touched); out of place, every element of q and k
// read and written once; plus the cos/sin cache rows of its tokens and
// a KV-cache write's bytes.
double kernel_bytes(const ropecheck_impl_t& impl, const Case& c, const KernelRun& first) {
  const auto es = static_cast<double>(dtype_size(c.dtype));
  const double all = static_cast<double>(c.tokens) * (c.q_heads + c.kv_heads) * c.shape.head_dim;
  double bytes = 2 * es * (c.in_place ? static_cast<double>(c.rotated_elements()) : all);
  if (impl.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE)
    bytes += static_cast<double>(c.tokens) * c.shape.rotary_dim * sizeof(float);
  if (first.kv) bytes += kv_bytes(*first.kv);
  return bytes;
}

// The baselines move q and k whole, once each way.
double baseline_bytes(const Case& c) {
  return 2.0 * static_cast<double>(dtype_size(c.dtype)) * static_cast<double>(c.tokens) * (c.q_heads + c.kv_heads) *
         c.shape.head_dim;
}

struct Baselines {
  const ropecheck_impl_t* copy;
  const ropecheck_impl_t* rmw;
};

std::string milliseconds(std::uint64_t ns) {
  std::ostringstream os;
  os.precision(3);
  os << static_cast<double>(ns) * 1e-6 << " ms";
  return os.str();
}

// The kernel a row times: the table the user named (shown: its name and
// declaration) and the one called (the same, or its in-process wrapper).
struct RowKernels {
  const ropecheck_impl_t& shown;
  const ropecheck_impl_t& kernel;
};

// A row's case and the seed its inputs and call order are drawn from.
struct RowCase {
  const Case& c;
  std::uint64_t seed;
};

class RowRun {
 public:
  RowRun(const RowKernels& k, const Baselines& b, const BenchOptions& o, const RowCase& rc, BenchRow* row)
      : shown_(k.shown), kernel_(k.kernel), b_(b), c_(rc.c), o_(o), fresh_(rc.c, rc.seed), rng_(rc.seed, 1),
        row_(*row) {
    copy_case_ = rc.c;
    copy_case_.in_place = false;
    rmw_case_ = rc.c;
    rmw_case_.in_place = true;
  }

  // False when the row failed (row.reason says why) or was interrupted.
  bool run() {
    const int reps = o_.repetitions;
    // The kernel's timed calls to judge: every one (the default: no call a
    // kernel could tell from the others goes unjudged, issue #49), or a
    // random sample of o.judged (drawn from the seed, which the kernel never
    // sees; no call is always in it).
    judge_.assign(static_cast<std::size_t>(reps), o_.judged <= 0 || o_.judged >= reps ? 1 : 0);
    if (o_.judged > 0 && o_.judged < reps) {
      std::vector<int> calls(static_cast<std::size_t>(reps));
      for (int i = 0; i < reps; ++i) calls[static_cast<std::size_t>(i)] = i;
      shuffle(calls);
      for (int i = 0; i < o_.judged; ++i) judge_[static_cast<std::size_t>(calls[static_cast<std::size_t>(i)])] = 1;
    }
    // A warm-up call of each (the kernel first), then every timed call in
    // a random order.
    std::vector<int> order;
    for (int i = 0; i < reps; ++i)
      for (int s = 0; s < 3; ++s) order.push_back(s);
    shuffle(order);
    for (int s = 0; s < 3; ++s)
      if (!call(s, /*warmup=*/true)) return false;
    for (int s : order)
      if (!call(s, /*warmup=*/false)) return false;
    return true;
  }

  bool interrupted() const { return interrupted_; }

 private:
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng_.below(i)]);
  }

  bool fail(std::string why) {
    row_.status = RowStatus::kFailed;
    row_.reason = std::move(why);
    return false;
  }

  bool call(int series, bool warmup) {
    if (interrupt_signal()) {
      interrupted_ = true;
      return false;
    }
    const bool kernel = series == 0;
    const ropecheck_impl_t& impl = kernel ? kernel_ : series == 1 ? *b_.copy : *b_.rmw;
    const Case& c = kernel ? c_ : series == 1 ? copy_case_ : rmw_case_;
    // Each kernel call after the first gets inputs no earlier call had.
    const QkBuffers& in = kernel && kernel_calls_ > 0 ? fresh_.next() : fresh_.current();
    CallTiming t{o_.caches};
    time_calls(&t);
    const KernelRun run = call_kernel(impl, c, in);
    time_calls(nullptr);
    if (interrupt_signal()) {
      interrupted_ = true;
      return false;
    }
    if (!kernel) {
      if (!run.ok()) return fail(std::string(impl.name) + " (ropecheck's baseline) failed: " + run.failure());
      if (!t.measured) return fail(std::string(impl.name) + " (ropecheck's baseline) was not timed");
      if (!warmup) (series == 1 ? row_.copy : row_.rmw).seconds.push_back(static_cast<double>(t.nanoseconds) * 1e-9);
      return true;
    }
    const int no = ++kernel_calls_;
    const std::string call_name = "call " + std::to_string(no) + (warmup ? " (the warm-up)" : "");
    if (!run.ok()) return fail(call_name + ": " + run.failure());
    if (!t.measured) return fail(call_name + " was not timed (a child per call cannot time it: --isolation worker)");
    if (t.threads_working > 0)
      return fail(call_name + " returned before its work was done: " + std::to_string(t.threads_working) +
                  " thread(s) it started were still working when apply returned (its work ended " +
                  milliseconds(t.nanoseconds) +
                  " after the call; a timer stopped at the return measures the launch, not the work)");
    if (no == 1) row_.kernel.bytes = kernel_bytes(shown_, c_, run);
    const std::uint64_t out = fingerprint(run.out);
    if (!warmup && judge_[static_cast<std::size_t>(timed_)]) {
      const CaseOutcome judged = judge(shown_, {.c = c_, .in = in, .ref = compute_reference(c_, in)}, run);
      ++row_.judged;
      if (judged.outcome == Outcome::kFail)
        return fail(call_name + "'s output is wrong (judged under its declared policy): " + judged.message +
                    diagnosis(out, fingerprint(in)));
    }
    outputs_.push_back(out);
    if (!warmup) {
      row_.kernel.seconds.push_back(static_cast<double>(t.nanoseconds) * 1e-9);
      ++timed_;
    }
    return true;
  }

  // Where a wrong output came from, when it is one ropecheck has seen.
  std::string diagnosis(std::uint64_t out, std::uint64_t in) const {
    for (std::size_t k = 0; k < outputs_.size(); ++k)  // the first call that returned it
      if (outputs_[k] == out)
        return "; its output is call " + std::to_string(k + 1) +
               "'s, computed for other inputs: a result kept from an earlier call (by the buffers' address, by a "
               "hash of their content, or from the first call) returned without computing";
    if (out == in) return "; its output is its input: nothing was rotated";
    return {};
  }

  const ropecheck_impl_t& shown_;
  const ropecheck_impl_t& kernel_;
  const Baselines& b_;
  const Case& c_;
  Case copy_case_, rmw_case_;
  const BenchOptions& o_;
  FreshInputs fresh_;
  Rng rng_;
  BenchRow& row_;
  std::vector<char> judge_;
  std::vector<std::uint64_t> outputs_;  // every kernel call's output so far, by call number - 1
  int kernel_calls_ = 0, timed_ = 0;
  bool interrupted_ = false;
};

}  // namespace

BenchReport run_bench(const std::vector<const ropecheck_impl_t*>& impls, const BenchOptions& o) {
  BenchReport rep;
  rep.caches = cache_state_name(o.caches);
  rep.repetitions = o.repetitions;
  rep.judged_per_row = o.judged <= 0 ? o.repetitions : std::min(o.judged, o.repetitions);
  rep.inputs = FreshInputs::description();
  rep.isolated = o.isolated;
  rep.seed = o.seed;
  const Baselines b{o.isolated ? isolate(copy_baseline(), o.isolation) : timed_table(copy_baseline()),
                    o.isolated ? isolate(rmw_baseline(), o.isolation) : timed_table(rmw_baseline())};
  std::uint64_t row_index = 0;
  for (const ropecheck_impl_t* shown : impls) {
    const ropecheck_impl_t* kernel = timed_table(shown);
    int timed = 0, rows = 0;
    for (const BenchModel& m : o.models)
      for (const BenchShape& s : o.shapes)
        for (const RowChoice& choice : declared_rows(*shown, m, o.dtypes, o.layouts, o.threads)) {
          if (interrupt_signal()) break;
          BenchRow row;
          row.impl = shown->name;
          row.model = m.name;
          row.step = s.step;
          row.tokens = s.tokens;
          row.q_heads = m.q_heads;
          row.kv_heads = m.kv_heads;
          row.head_dim = m.rope.shape.head_dim;
          row.rotary_dim = m.rope.shape.rotary_dim;
          row.choice = choice;
          const Case c = bench_case(m, s, choice);
          row.scheme = c.freq.describe();
          ++rows;
          if (std::string why = outside_capabilities(*shown, c); !why.empty()) {
            row.status = RowStatus::kSkipped;
            row.reason = "outside its declared capabilities: " + why;
          } else {
            RowRun run({*shown, *kernel}, b, o, {c, Rng::mix(o.seed + ++row_index)}, &row);
            const bool ok = run.run();
            if (run.interrupted()) break;  // a row cut short is left out
            row.copy.bytes = row.rmw.bytes = baseline_bytes(c);
            for (SeriesStats* st : {&row.kernel, &row.copy, &row.rmw}) st->summarize();
            if (ok && roofline_exceeded(row.kernel, row.rmw)) {
              row.faster_than_roofline = true;
              row.status = RowStatus::kFailed;
              std::ostringstream why;
              why.precision(3);
              why << "faster than the in-place roofline measured in the same run: " << row.kernel.gbps()
                  << " GB/s at its median against the in-place pass's fastest call, " << row.rmw.best_gbps()
                  << " GB/s (spreads " << row.kernel.rel_iqr() * 100 << "% and " << row.rmw.rel_iqr() * 100
                  << "%): a time no kernel moving these bytes can reach";
              row.reason = why.str();
            }
            if (!ok) {  // a failure is named, not a speed
              row.kernel.seconds.clear();
              row.kernel.summarize();
            }
            timed += row.status == RowStatus::kTimed;
          }
          if (o.progress) o.progress(row);
          rep.rows.push_back(std::move(row));
        }
    if (interrupt_signal()) break;
    if (timed == 0 && std::none_of(rep.rows.begin(), rep.rows.end(), [&](const BenchRow& r) {
          return r.impl == shown->name && r.status == RowStatus::kFailed;
        }))
      rep.impl_failures.emplace_back(shown->name, rows == 0 ? "declares no storage dtype and layout asked for"
                                                            : "no row lies within its declared capabilities");
  }
  if (interrupt_signal()) rep.interrupted = interrupt_name();
  retire_workers();
  return rep;
}

}  // namespace ropecheck::speed
