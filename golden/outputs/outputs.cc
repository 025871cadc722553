// SPDX-License-Identifier: MIT
// A case's outputs other than the exact one (manifest schema 3): the definitions of golden/outputs/outputs.h.
#include "golden/outputs/outputs.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <algorithm>

#include "core/judge/judge.h"
#include "core/judge/kv_cache_judge.h"
#include "core/judge/qk_norm_judge.h"
#include "core/kernel/kernel_call.h"
#include "golden/catalog/bug_classes.h"
#include "golden/catalog/catalog.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::golden {
namespace {

// A row handed down without a class this export defines is the command's
// error (mutants/mutant_list.h names every row's class).
void check_bug_class(const MutantSource& m) {
  if (!find_bug_class(m.bug_class))
    throw std::logic_error(m.name + ": bug class '" + m.bug_class + "' is not one of golden/catalog/bug_classes.cc's");
}

constexpr const char* kQk[] = {"q", "k"};

const Tensor* find_tensor(const std::vector<Tensor>& ts, const std::string& name) {
  for (const Tensor& t : ts)
    if (t.name == name) return &t;
  return nullptr;
}

const Tensor& need_tensor(const std::vector<Tensor>& ts, const std::string& name, const std::string& where) {
  if (const Tensor* t = find_tensor(ts, name)) return *t;
  throw FormatError(where, "tensor '" + name + "'", "missing");
}

// An f64 tensor's values (Tensor::value element by element was most of
// the time a measure took).
std::vector<double> f64_values(const Tensor& t) {
  if (t.dtype != TensorDtype::kF64) throw std::logic_error("tensor '" + t.name + "' is not f64");
  std::vector<double> v(t.bytes.size() / sizeof(double));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(double));
  return v;
}

// The name of a stored tensor with these very bits, else a new
// "<base>_output_<n>" appended to `tensors` (base: q, k, k_cache, v_cache).
std::string place_output(std::vector<Tensor>* tensors, const std::string& base, Tensor t) {
  const std::string expected = base + "_expected", prefix = base + "_output_";
  int outputs = 0;
  for (const Tensor& s : *tensors) {
    const bool output = s.name.compare(0, prefix.size(), prefix) == 0;
    outputs += output;
    if ((output || s.name == expected) && s.dtype == t.dtype && s.shape == t.shape && s.bytes == t.bytes) return s.name;
  }
  t.name = prefix + std::to_string(outputs + 1);
  tensors->push_back(std::move(t));
  return tensors->back().name;
}

// Worst units of an output's q and k together under one policy.
OutputMeasure measure_pair(const Tensor& q, const Tensor& k, const std::vector<Tensor>& ts, const std::string& policy,
                           const std::string& where) {
  OutputMeasure both;
  for (int w = 0; w < 2; ++w) {
    const std::string n = kQk[w];
    const Tensor& out = w ? k : q;
    const Tensor& input = need_tensor(ts, n, where);
    const Tensor& exact = need_tensor(ts, n + "_expected_f64", where);
    const Tensor& budget = need_tensor(ts, n + "_budget_" + policy, where);
    if (out.dtype != input.dtype || out.shape != input.shape)
      throw FormatError(where, "tensor '" + out.name + "'", "must have the dtype and shape of " + n);
    if (exact.shape != input.shape || budget.shape != input.shape || exact.dtype != TensorDtype::kF64 ||
        budget.dtype != TensorDtype::kF64)
      throw FormatError(where, "tensors '" + exact.name + "', '" + budget.name + "'", "must be f64 with the shape of " + n);
    const OutputMeasure m = output_measure(out, exact, budget);
    both.worst_units = std::max(both.worst_units, m.worst_units);
    both.within = both.within && m.within;
  }
  return both;
}

}  // namespace

const char* output_result_name(OutputResult r) { return r == OutputResult::kAcceptable ? "acceptable" : "invalid"; }

OutputMeasure output_measure(const Tensor& out, const Tensor& expected_f64, const Tensor& budget) {
  OutputMeasure m;
  const std::int64_t n = out.elements();
  const std::vector<double> exact = f64_values(expected_f64), bud = f64_values(budget);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double v = out.value(i), err = std::fabs(v - exact[k]), b = bud[k];
    double units;
    if (!std::isfinite(v) || !std::isfinite(err)) units = std::numeric_limits<double>::infinity();
    else if (b > 0) units = err / b;
    else units = exactly_equal(err, 0.0) ? 0.0 : std::numeric_limits<double>::infinity();
    m.worst_units = std::max(m.worst_units, units);
    m.within = m.within && std::isfinite(v) && err <= b;
  }
  return m;
}

std::vector<MutantSource> shown_mutants(std::span<const MutantSource> mutants) {
  std::vector<MutantSource> out;
  for (const MutantSource& m : mutants) {
    check_bug_class(m);
    if (m.not_shown.empty()) out.push_back(m);
  }
  return out;
}

std::vector<MutantSource> rows_granting(std::span<const MutantSource> mutants, std::uint32_t capability) {
  std::vector<MutantSource> out;
  for (const MutantSource& m : mutants) {
    check_bug_class(m);
    if (m.impl->caps.flags & capability) out.push_back(m);
  }
  return out;
}

std::string norm_outside_declared(const ropecheck_impl_t& impl, const Case& c, const GoldenNorm& norm) {
  if (!(impl.caps.flags & ROPECHECK_CAP_QK_NORM)) return "a qk-norm case (needs QK_NORM, ABI 1.5)";
  if (!(impl.norm_policy.weight_forms & (1u << norm.norm.form)))
    return std::string("the qk-norm's weight form ") +
           (norm.norm.form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W ? "1 + w" : "w") + " (not among its norm_policy's)";
  return outside_capabilities(impl, c);
}

CaseOutcome judge_normed_run(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const GoldenNorm& norm,
                             const KernelRun& run) {
  CaseOutcome out;
  out.tokens = out.judged_tokens = c.tokens;
  if (!run.ok()) {
    out.outcome = Outcome::kFail;
    out.message = run.failure();
    return out;
  }
  const NormVerdict v = judge_qk_norm(impl, c, in, norm.norm, run);
  out.worst_units = v.worst;
  if (!v.outside.empty() || !v.first.empty()) {
    out.outcome = Outcome::kFail;
    out.message = "qk-norm: " + (v.outside.empty() ? v.first : v.outside) + " (" + norm.norm.describe() + ")";
  }
  return out;
}

std::optional<Candidate> run_mutant(const MutantSource& m, const MutantCase& x) {
  const auto& [c, in, ref, tensors, control, parts] = x;
  const auto [kv, norm] = parts;
  check_bug_class(m);
  if (!outside_capabilities(*m.impl, c).empty()) return std::nullopt;
  if (kv && (!(m.impl->caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE) ||
             !kv_write_outside_declared(m.impl->kv_policy, m.impl->kv_cache_kinds, kv->spec, kv->direction).empty()))
    return std::nullopt;
  if (norm && !norm_outside_declared(*m.impl, c, *norm).empty()) return std::nullopt;
  if (c.caller_cache_dtype && !(m.impl->caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)) return std::nullopt;
  const KvRun given = kv ? kv->run() : KvRun{};
  CallOptions o;
  o.norm = norm ? &norm->norm : nullptr;
  o.kv_given = kv ? &given : nullptr;
  const KernelRun run = call_kernel(*m.impl, c, in, o);
  // A call that crashed, hung or misbehaved computed no output to store.
  if (!run.ok() || (kv && !run.kv) || (!kv && control && run.out.bytes == control->bytes)) return std::nullopt;
  const CaseOutcome verdict = kv     ? judge_with_kv_write(*m.impl, {.c = c, .in = in, .ref = ref}, run)
                              : norm ? judge_normed_run(*m.impl, c, in, *norm, run)
                                     : judge(*m.impl, {.c = c, .in = in, .ref = ref}, run);
  if (verdict.outcome != Outcome::kFail) return std::nullopt;
  const std::string where = "case " + std::to_string(c.index);
  Candidate k;
  OutputEntry& e = k.entry;
  e.mutant = m.name;
  e.bug_class = m.bug_class;
  e.published_bug = m.published_bug;
  e.comment = m.description;
  Tensor* written[2] = {&k.q, &k.k};
  for (int w = 0; w < 2; ++w) {
    const Tensor& like = need_tensor(tensors, kQk[w], where);
    if (run.out.bytes[w].size() != like.bytes.size())
      throw std::logic_error(where + ": " + m.name + " wrote a " + kQk[w] + " buffer of another size");
    *written[w] = Tensor{like.name, like.dtype, like.shape, {run.out.bytes[w].begin(), run.out.bytes[w].end()}};
  }
  std::vector<Tensor> with;  // the case's tensors and the run's caches, for cache_measure
  if (kv) {
    with = tensors;
    k.k_cache = cache_tensor("k_cache", *kv, 0, run.kv->k_cache);
    with.push_back(*k.k_cache);
    if (kv->has_v_cache()) {
      k.v_cache = cache_tensor("v_cache", *kv, 1, run.kv->v_cache);
      with.push_back(*k.v_cache);
    }
  }
  for (const BudgetPolicy& p : budget_policies()) {
    const OutputMeasure mm = measure_pair(k.q, k.k, tensors, p.name, where);
    e.worst_units.emplace_back(p.name, mm.worst_units);
    bool within = mm.within;
    if (k.k_cache) {
      const CacheMeasure cm = cache_measure(with, *kv, {"k_cache", k.v_cache ? "v_cache" : ""}, p.name, where);
      e.cache_steps.emplace_back(p.name, cm.steps);
      within = within && cm.within;
    }
    if (within) e.allowed_by.push_back(p.name);
  }
  if (e.allowed_by.size() == e.worst_units.size()) return std::nullopt;  // every exported budget meets it
  e.result = e.allowed_by.empty() ? OutputResult::kInvalid : OutputResult::kAcceptable;
  return k;
}

std::vector<std::vector<MutantSource>> by_bug_class(std::span<const MutantSource> mutants) {
  std::vector<std::vector<MutantSource>> out;
  std::vector<std::string> names;
  for (const MutantSource& m : mutants) {
    check_bug_class(m);
    const auto at = std::find(names.begin(), names.end(), m.bug_class);
    if (at == names.end()) {
      names.push_back(m.bug_class);
      out.emplace_back();
    }
    out[static_cast<std::size_t>(std::find(names.begin(), names.end(), m.bug_class) - names.begin())].push_back(m);
  }
  return out;
}

std::vector<OutputEntry> keep_outputs(std::vector<std::optional<Candidate>> candidates, std::vector<Tensor>* tensors) {
  std::vector<OutputEntry> out;
  for (std::optional<Candidate>& k : candidates) {
    if (!k) continue;
    k->entry.q = place_output(tensors, "q", std::move(k->q));
    k->entry.k = place_output(tensors, "k", std::move(k->k));
    if (k->k_cache) k->entry.k_cache = place_output(tensors, "k_cache", std::move(*k->k_cache));
    if (k->v_cache) k->entry.v_cache = place_output(tensors, "v_cache", std::move(*k->v_cache));
    out.push_back(std::move(k->entry));
  }
  return out;
}

int check_case_outputs(const std::string& where, const std::vector<OutputEntry>& outputs,
                       const std::vector<Tensor>& stored, const GoldenKv* kv) {
  for (const BudgetPolicy& p : budget_policies()) {
    if (!measure_pair(need_tensor(stored, "q_expected", where), need_tensor(stored, "k_expected", where), stored, p.name,
                      where)
             .within)
      throw FormatError(where, "q_expected, k_expected", std::string("exceed the budget of policy ") + p.name +
                                                              ": the correctly rounded result must meet every budget");
    if (kv && !cache_measure(stored, *kv, {"k_cache_expected", kv->has_v_cache() ? "v_cache_expected" : ""}, p.name, where)
                   .within)
      throw FormatError(where, "k_cache_expected, v_cache_expected",
                        std::string("lie outside the codes of policy ") + p.name +
                            ": the exactly rounded caches must meet every policy's codes");
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputEntry& e = outputs[i];
    const std::string field = "output " + std::to_string(i) + " (" + e.mutant + ")";
    if ((kv != nullptr) == e.k_cache.empty() || (kv && e.cache_steps.size() != e.worst_units.size()))
      throw FormatError(where, field, kv ? "names no kCache or lacks cacheSteps: every output of a case with a "
                                           "kvWrite has both"
                                         : "names a kCache in a case without a kvWrite");
    for (std::size_t j = 0; j < e.worst_units.size(); ++j) {
      const auto& [policy, units] = e.worst_units[j];
      OutputMeasure m =
          measure_pair(need_tensor(stored, e.q, where), need_tensor(stored, e.k, where), stored, policy, where);
      if (kv) {
        const CacheMeasure cm = cache_measure(stored, *kv, {e.k_cache, e.v_cache}, policy, where);
        if (e.cache_steps[j].first != policy || !exactly_equal(cm.steps, e.cache_steps[j].second))
          throw FormatError(where, field + " cacheSteps." + policy,
                            "is " + format_hex_float(e.cache_steps[j].second) + " where its caches give " +
                                format_hex_float(cm.steps));
        m.within = m.within && cm.within;
      }
      bool allowed = false;
      for (const std::string& a : e.allowed_by) allowed |= a == policy;
      if (m.within != allowed)
        throw FormatError(where, field,
                          std::string(m.within ? "meets" : "exceeds") + " the budget of policy " + policy +
                              (allowed ? ", which the manifest lists in allowedBy"
                                       : ", where the manifest marks it " + std::string(output_result_name(e.result))));
      if (!exactly_equal(m.worst_units, units))
        throw FormatError(where, field + " worstUnits." + policy,
                          "is " + format_hex_float(units) + " where its tensors give " + format_hex_float(m.worst_units));
    }
  }
  return static_cast<int>(outputs.size());
}

}  // namespace ropecheck::golden
