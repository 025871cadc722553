// SPDX-License-Identifier: MIT
// `ropecheck golden verify`: the definitions of golden/verify/verifier.h.
#include "golden/verify/verifier.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <map>

#include "core/isolation/interrupt.h"
#include "core/cases/case_fit.h"
#include "core/judge/conformance.h"
#include "core/kernel/call_twice.h"
#include "core/judge/kv_cache_judge.h"
#include "core/kernel/declared_capabilities.h"
#include "golden/verify/export_files.h"
#include "golden/export/exporter.h"
#include "ropecheck/dtype.h"

namespace ropecheck::golden {
namespace {

const Tensor& need(const std::vector<Tensor>& ts, const std::string& name, TensorDtype dtype,
                   const std::vector<std::int64_t>& shape, const std::string& where) {
  for (const Tensor& t : ts) {
    if (t.name != name) continue;
    if (t.dtype != dtype)
      throw FormatError(where, "tensor '" + name + "'", std::string("dtype ") + tensor_dtype_name(t.dtype) +
                                                            " where the manifest implies " + tensor_dtype_name(dtype));
    if (t.shape != shape) throw FormatError(where, "tensor '" + name + "'", "shape disagrees with the manifest");
    return t;
  }
  throw FormatError(where, "tensor '" + name + "'", "missing");
}

// The case's position ids, token-major as Case holds them, from the
// positions tensor: [tokens], or [num_axes, tokens] (axis-major) with axes;
// and for multi-axis cases the pair_axis tensor checked against the
// assignment the manifest states (a file that disagrees is refused, not
// silently read either way).
void read_positions(const std::vector<Tensor>& ts, const std::string& where, Case* c) {
  const int n = c->axis_count();
  const std::vector<std::int64_t> shape =
      c->axes.multi() ? std::vector<std::int64_t>{n, c->tokens} : std::vector<std::int64_t>{c->tokens};
  const Tensor& pos = need(ts, "positions", TensorDtype::kI64, shape, where);
  c->positions.resize(static_cast<std::size_t>(c->tokens * n));
  for (int a = 0; a < n; ++a)
    for (std::int64_t t = 0; t < c->tokens; ++t)
      c->positions[static_cast<std::size_t>(t * n + a)] = pos.int_value(a * c->tokens + t);
  if (!c->axes.multi()) return;
  const int pairs = c->shape.rotary_dim / 2;
  const Tensor& pa = need(ts, "pair_axis", TensorDtype::kI64, {pairs}, where);
  const ref::PairAxes want = ref::pair_axes(c->axes, c->shape.rotary_dim);
  for (int i = 0; i < pairs; ++i)
    if (pa.int_value(i) != want.axis[static_cast<std::size_t>(i)])
      throw FormatError(where, "tensor 'pair_axis'", "pair " + std::to_string(i) + " is on axis " +
                                                         std::to_string(pa.int_value(i)) + " where the manifest's " +
                                                         c->axes.describe() + " puts it on axis " +
                                                         std::to_string(want.axis[static_cast<std::size_t>(i)]));
}

// The file of a case that holds tensor `name`: a npy export keeps one file
// per tensor (named after it), the other formats one per case.
std::string file_holding(const std::string& dir, const CaseEntry& e, const std::string& name) {
  for (const FileEntry& f : e.files)
    if (std::filesystem::path(f.path).stem().string() == name) return (std::filesystem::path(dir) / f.path).string();
  return (std::filesystem::path(dir) / e.files.front().path).string();
}

std::string hex_of(double v) { return format_hex_float(v); }

// The verifier holds the reference: everything of a case file that follows
// from its inputs (the exact and rounded expected outputs, the angles, cos
// and sin, the frequencies, every policy's budgets) and the manifest's
// attention factor are recomputed and must be the files' bits. Checksums
// recomputed after an edit (without a pinned --expect-sha256) hide nothing
// then: an altered budget, expected value or attention factor is refused,
// naming the file, the tensor and the element. What the reference cannot
// recompute are the inputs themselves (q, k, positions, the config): a case
// with other inputs is a different case, judged correctly against its own
// recomputed outputs (docs/RELIABILITY.md).
void check_against_reference(const std::string& dir, const CaseEntry& e, const std::vector<Tensor>& stored,
                             const LoadedCase& L) {
  const CaseTensors want = derive_case_tensors(L.c, L.in, dir + " case " + std::to_string(e.id),
                                               {L.kv ? &*L.kv : nullptr, L.norm ? &*L.norm : nullptr});
  if (std::memcmp(&want.attention_factor, &e.attention_factor, sizeof(double)) != 0)
    throw FormatError((std::filesystem::path(dir) / "manifest.json").string(),
                      "case " + std::to_string(e.id) + " attentionFactorHex",
                      "is " + hex_of(e.attention_factor) + " where the reference gives " + hex_of(want.attention_factor) +
                          " for this case's config: the export was altered (its checksums with it)");
  for (const Tensor& t : want.tensors) {
    const std::string file = file_holding(dir, e, t.name);
    const Tensor& s = need(stored, t.name, t.dtype, t.shape, file);
    if (s.bytes == t.bytes) continue;
    const std::size_t es = t.bytes.size() / static_cast<std::size_t>(std::max<std::int64_t>(t.elements(), 1));
    std::size_t i = 0;
    while (i + es <= t.bytes.size() && std::memcmp(s.bytes.data() + i, t.bytes.data() + i, es) == 0) i += es;
    const auto k = static_cast<std::int64_t>(i / es);
    const bool ints = t.dtype == TensorDtype::kI64;
    throw FormatError(file, "tensor '" + t.name + "' element " + std::to_string(k),
                      "holds " + (ints ? std::to_string(s.int_value(k)) : hex_of(s.value(k))) + " where the reference gives " +
                          (ints ? std::to_string(t.int_value(k)) : hex_of(t.value(k))) +
                          ": the export was altered (its checksums with it)");
  }
}

// A kernel granting the KV-cache write on a fused case: skipped outside
// what it declares (the case, or the case's write), else called twice with
// the case's write as the conformance property calls a kernel, and judged
// on q, k and the caches.
CaseOutcome judge_fused(const ropecheck_impl_t& impl, const LoadedCase& L, const Case& c) {
  std::string why = outside_capabilities(impl, c);
  if (why.empty()) why = kv_write_outside_declared(impl.kv_policy, impl.kv_cache_kinds, L.kv->spec, L.kv->direction);
  if (!why.empty()) {
    CaseOutcome out;
    out.outcome = Outcome::kSkipped;
    out.message = "outside capabilities: " + why;
    return out;
  }
  const KvRun given = L.kv->run();
  return judge_with_kv_write(impl, {.c = c, .in = L.in, .ref = L.ref}, call_kernel_twice(impl, c, L.in, nullptr, &given));
}

// Any kernel on a qk-norm case: skipped unless it grants QK_NORM with the
// case's weight form (a plain rotation cannot meet the normalised values),
// else called twice with the case's norm and judged.
CaseOutcome judge_qk_norm_case(const ropecheck_impl_t& impl, const LoadedCase& L, const Case& c) {
  if (std::string why = norm_outside_declared(impl, c, *L.norm); !why.empty()) {
    CaseOutcome out;
    out.outcome = Outcome::kSkipped;
    out.message = "outside capabilities: " + why;
    return out;
  }
  return judge_normed_run(impl, c, L.in, *L.norm, call_kernel_twice(impl, c, L.in, &L.norm->norm));
}

}  // namespace

namespace {

// Each output is what its mutant writes on the case, bit for bit: q and k,
// and a fused case's caches (golden/outputs/outputs.h, run_mutant, wrote them).
void rerun_outputs(const std::string& where, const CaseEntry& e, const std::vector<Tensor>& ts, const LoadedCase& L,
                   std::span<const MutantSource> mutants) {
  for (std::size_t i = 0; i < e.outputs.size(); ++i) {
    const OutputEntry& x = e.outputs[i];
    const std::string field = "output " + std::to_string(i) + " (" + x.mutant + ")";
    const MutantSource* m = nullptr;
    for (const MutantSource& s : mutants)
      if (s.name == x.mutant) m = &s;
    if (!m) throw FormatError(where, field, "names a mutant this ropecheck's catalogue does not have");
    const KvRun given = L.kv ? L.kv->run() : KvRun{};
    CallOptions o;
    o.norm = L.norm ? &L.norm->norm : nullptr;
    o.kv_given = L.kv ? &given : nullptr;
    const KernelRun run = call_kernel(*m->impl, L.c, L.in, o);
    const auto same = [&](const std::string& name, const ByteBuffer& bytes) {
      for (const Tensor& t : ts)
        if (t.name == name) return t.bytes.size() == bytes.size() && std::equal(t.bytes.begin(), t.bytes.end(), bytes.begin());
      return false;
    };
    bool equal = run.ok() && same(x.q, run.out.bytes[0]) && same(x.k, run.out.bytes[1]);
    if (equal && L.kv)
      equal = run.kv && same(x.k_cache, run.kv->k_cache) && (x.v_cache.empty() || same(x.v_cache, run.kv->v_cache));
    if (!equal)
      throw FormatError(where, field,
                        "is not what " + x.mutant + " writes on this case (recomputed): the export was altered "
                        "(its checksums with it)");
  }
}

// The Case a manifest entry describes, its positions read from its files;
// a case reading the caller's cos/sin cache gets its dtype, the cache's
// rows checked.
Case case_of_entry(const CaseEntry& e, const std::vector<Tensor>& ts, const std::string& where) {
  Case c;
  c.index = e.id;
  c.freq = e.config.freq;
  c.shape = e.config.shape;
  c.layout = *e.config.layout;
  c.dtype = e.dtype;
  c.direction = e.direction;
  c.tokens = e.tokens;
  c.q_heads = e.q_heads;
  c.kv_heads = e.kv_heads;
  c.in_place = true;
  c.axes = e.axes;
  try {  // parse_manifest validated it; a CaseEntry built otherwise may not be
    ref::validate_axes(c.axes, c.freq, c.shape);
  } catch (const ref::ConfigError& err) {
    throw FormatError(where, "axes", err.field() + ": " + err.message());
  }
  read_positions(ts, where, &c);
  if (e.cos_sin_cache) {
    // The cache is rebuilt to check it: no larger than the gate hands a
    // kernel (core/kernel/declared_capabilities.h).
    if (e.cos_sin_cache->rows * c.shape.rotary_dim > max_cache_elements())
      throw FormatError(where, "cosSinCache.rows",
                        "is " + std::to_string(e.cos_sin_cache->rows) + ": rows * rotary_dim must be at most " +
                            std::to_string(max_cache_elements()) + " elements");
    if (e.cos_sin_cache->rows != c.max_abs_position() + 1)
      throw FormatError(where, "cosSinCache.rows", "is " + std::to_string(e.cos_sin_cache->rows) +
                                                       " where the positions need " +
                                                       std::to_string(c.max_abs_position() + 1) +
                                                       " (the largest position + 1)");
    c.caller_cache_dtype = e.cos_sin_cache->dtype;
  }
  return c;
}

// The reference's tables as the files hold them: inv_freq, and the angle,
// cos and sin of the judged tokens (all, but for a case large enough to be
// judged on a sample: judged_tokens).
void read_reference_tables(const std::vector<Tensor>& ts, const std::string& where, const Case& c,
                           ReferenceResult* ref) {
  const int pairs = c.shape.rotary_dim / 2;
  const Tensor& angle = need(ts, "angle", TensorDtype::kF64, {c.tokens, pairs}, where);
  const Tensor& cosv = need(ts, "cos", TensorDtype::kF64, {c.tokens, pairs}, where);
  const Tensor& sinv = need(ts, "sin", TensorDtype::kF64, {c.tokens, pairs}, where);
  const Tensor& inv = need(ts, "inv_freq", TensorDtype::kF64, {pairs}, where);
  for (int i = 0; i < pairs; ++i) ref->inv_freq.push_back(inv.value(i));
  for (const std::int64_t t : judged_tokens(c))
    for (int i = 0; i < pairs; ++i) {
      const std::int64_t k = t * pairs + i;
      ref->angle.push_back(angle.value(k));
      ref->cos.push_back(cosv.value(k));
      ref->sin.push_back(sinv.value(k));
    }
}

// The expected values, rounded and exact, as the files hold them, into the
// reference result (assemble_reference).
void read_expected(const std::vector<Tensor>& ts, const std::string& where, LoadedCase* L) {
  const Case& c = L->c;
  const Geometry g = geometry(c);
  const TensorDtype sd = storage_tensor_dtype(c.dtype);
  static const char* kQk[] = {"q", "k"};
  const Tensor* expected[2];
  const Tensor* exact[2];
  for (int w = 0; w < 2; ++w) {
    const std::vector<std::int64_t> shape{c.tokens, g.heads[w], c.shape.head_dim};
    const std::string n = kQk[w];
    expected[w] = &need(ts, n + "_expected", sd, shape, where);
    exact[w] = &need(ts, n + "_expected_f64", TensorDtype::kF64, shape, where);
  }
  assemble_reference(c, L->in, [&](int w, std::int64_t tok, int h, int, int a, int b) {
    const std::int64_t base = g.offset(w, tok, h, 0);
    ExactPair p;
    p.value[0] = exact[w]->value(base + a);
    p.value[1] = exact[w]->value(base + b);
    p.rounded[0] = expected[w]->value(base + a);
    p.rounded[1] = expected[w]->value(base + b);
    return p;
  }, &L->ref);
}

}  // namespace

LoadedCase load_case(const std::string& dir, const Manifest& m, const CaseEntry& e, std::span<const MutantSource> mutants) {
  const std::vector<Tensor> ts = load_case_tensors(dir, m, e);
  const std::string where = dir + " case " + std::to_string(e.id);
  LoadedCase L;
  L.c = case_of_entry(e, ts, where);
  const Case& c = L.c;
  L.ref.attention_factor = e.attention_factor;
  read_reference_tables(ts, where, c, &L.ref);
  const Geometry g = geometry(c);
  static const char* kQk[] = {"q", "k"};
  for (int w = 0; w < 2; ++w) {
    const auto& stored =
        need(ts, kQk[w], storage_tensor_dtype(c.dtype), {c.tokens, g.heads[w], c.shape.head_dim}, where).bytes;
    L.in.bytes[w].assign(stored.begin(), stored.end());
  }
  if (e.kv_write) L.kv = read_golden_kv(*e.kv_write, c, ts, where);
  if (e.qk_norm) L.norm = read_golden_norm(*e.qk_norm, c, ts, where);
  check_against_reference(dir, e, ts, L);
  L.outputs = check_case_outputs(where, e.outputs, ts, L.kv ? &*L.kv : nullptr);
  if (!mutants.empty()) rerun_outputs(where, e, ts, L, mutants);
  read_expected(ts, where, &L);
  return L;
}

int ImplVerdicts::count(Outcome o) const {
  int n = 0;
  for (const auto& c : cases) n += c.outcome.outcome == o;
  return n;
}

std::string VerifyReport::under_floor(const ImplVerdicts& v) const {
  return verdict_floor_failure({v.count(Outcome::kPass) + v.count(Outcome::kFail), v.count(Outcome::kSkipped), cases, {}},
                               min_judged);
}

bool VerifyReport::passed() const {
  if (!interrupted.empty() || impls.empty()) return false;
  for (const ImplVerdicts& v : impls)
    if (v.count(Outcome::kFail) || !under_floor(v).empty()) return false;
  return true;
}

VerifyReport verify_golden(const std::string& dir, const std::vector<const ropecheck_impl_t*>& impls,
                           const VerifyOptions& o) {
  const Manifest m = load_manifest(dir, o.expect_sums_sha256);
  VerifyReport r;
  r.min_judged = o.min_judged;
  r.cases = static_cast<int>(m.cases.size());
  r.impls.resize(impls.size());
  for (std::size_t k = 0; k < impls.size(); ++k) r.impls[k].impl = impls[k]->name;
  for (const CaseEntry& e : m.cases) {
    const LoadedCase L = load_case(dir, m, e, o.mutants);
    for (const OutputEntry& x : e.outputs)
      ++(x.result == OutputResult::kInvalid ? r.invalid_outputs : r.acceptable_outputs);
    r.fused_cases += L.kv.has_value();
    r.qk_norm_cases += L.norm.has_value();
    r.caller_cache_cases += L.c.caller_cache_dtype.has_value();
    for (std::size_t k = 0; k < impls.size(); ++k) {
      // The vector's ids as the kernel takes them (an int32-only kernel is
      // handed the int64 ids that fit int32 as int32, never narrowed).
      const Case c = in_declared_position_dtype(L.c, impls[k]->caps.flags);
      CaseOutcome outcome = L.norm ? judge_qk_norm_case(*impls[k], L, c)
                            : L.kv && (impls[k]->caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE)
                                ? judge_fused(*impls[k], L, c)
                                : judge_conformance(*impls[k], {.c = c, .in = L.in, .ref = L.ref});
      if (interrupt_signal()) {  // the call was cut short: no verdict on it
        r.interrupted = interrupt_name();
        return r;
      }
      r.impls[k].cases.push_back(CaseVerdict{e.id, e.name, e.flags, std::move(outcome)});
    }
  }
  return r;
}

void print_verify_report(const VerifyReport& r, std::ostream& os) {
  for (const ImplVerdicts& iv : r.impls) {
    os << "## " << iv.impl << ": " << iv.count(Outcome::kPass) << " passed, " << iv.count(Outcome::kFail)
       << " failed, " << iv.count(Outcome::kSkipped) << " skipped (out of its declared capabilities)\n";
    for (const CaseVerdict& c : iv.cases) {
      if (c.outcome.outcome != Outcome::kFail) continue;
      os << "FAIL case " << c.id << " " << c.name << ": " << c.outcome.message;
      if (c.outcome.first) os << "\n     first: " << c.outcome.first->format();
      os << "\n";
    }
    if (const std::string floor = r.under_floor(iv); !floor.empty() && r.interrupted.empty())
      os << "FAIL " << iv.impl << ": " << floor << "\n";
    std::map<std::string, std::array<int, 3>> per_flag;
    for (const CaseVerdict& c : iv.cases)
      for (const auto& f : c.flags) ++per_flag[f][static_cast<int>(c.outcome.outcome)];
    os << "\n| flag | passed | failed | skipped |\n|---|---:|---:|---:|\n";
    for (const auto& [f, n] : per_flag)
      os << "| " << f << " | " << n[0] << " | " << n[1] << " | " << n[2] << " |\n";
    os << "\n";
  }
  if (r.fused_cases > 0)
    os << "Fused cases (a KV-cache write): " << r.fused_cases
       << "; a kernel granting KV_CACHE_WRITE is judged there on q, k and both caches, any other on q and k\n";
  if (r.qk_norm_cases > 0)
    os << "qk-norm cases: " << r.qk_norm_cases
       << "; a kernel granting QK_NORM with the case's weight form is judged there on the normalised values "
          "rotated (NormalisesEachHeadThenRotates), any other skipped\n";
  if (r.caller_cache_cases > 0)
    os << "Cases with the caller's cos/sin cache: " << r.caller_cache_cases
       << "; a kernel granting CALLER_COS_SIN_CACHE reads the case's cache there, any other is judged on q and k\n";
  os << "Outputs other than the exact one: " << r.invalid_outputs << " invalid and " << r.acceptable_outputs
     << " acceptable, each checked against every policy's budget (rejected where the manifest says, allowed by "
        "allowedBy); the exact outputs meet every budget\n";
  int failed = 0;
  for (const auto& v : r.impls) failed += v.count(Outcome::kFail);
  if (!r.interrupted.empty())
    os << "INTERRUPTED by " << r.interrupted << ": a partial report, no verdict\n";
  else
    os << (r.passed() ? "PASS: " : "FAIL: ") << failed << " failing case(s)\n";
}

}  // namespace ropecheck::golden
