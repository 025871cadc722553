// SPDX-License-Identifier: MIT
// A case's outputs other than the exact one (manifest schema 3): what the
// bug catalogue's mutants compute on the case's inputs where the gate's
// judge fails them, each measured against the budget of every exported
// policy. "invalid": it fails every policy's budget, so every consumer must
// reject it; "acceptable": some declared policies allow it (allowedBy; HF
// eager's bf16 arithmetic under hf_eager, say) and the others reject it.
// The exporter makes them, the verifier and the consumers check them with
// the one measure below (Wycheproof's valid / invalid / acceptable).
#ifndef ROPECHECK_GOLDEN_OUTPUTS_OUTPUTS_H_
#define ROPECHECK_GOLDEN_OUTPUTS_OUTPUTS_H_

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/reference_result.h"
#include "core/judge/judge.h"
#include "golden/fused/fused_parts.h"
#include "golden/fused/kv_golden.h"
#include "golden/fused/qk_norm_golden.h"
#include "golden/formats/tensor_file.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::golden {

// A row of the bug catalogue, handed in by the caller (golden/ does not
// link mutants/: the command does, cli/golden_command.cc).
// A row of the bug catalogue (mutants/mutant_list.h) as the command hands
// it down (golden/ does not link mutants/): its kernel and the columns an
// export stores beside its outputs.
struct MutantSource {
  std::string name;         // "mutant_<bug>"
  std::string description;  // the catalogue's account of what it does wrong
  const ropecheck_impl_t* impl = nullptr;
  std::string bug_class;      // a name of bug_class_catalog() (golden/catalog/bug_classes.h)
  std::string published_bug;  // the tracker entry its description cites, "" when it cites none
  std::string not_shown;      // "" when a plain golden case can show its bug, else why none can
};

enum class OutputResult { kInvalid, kAcceptable };
const char* output_result_name(OutputResult r);  // "invalid", "acceptable"

struct OutputEntry {
  OutputResult result = OutputResult::kInvalid;
  std::string mutant, bug_class, published_bug, comment;  // published_bug "" when none is cited
  // The tensors of the case's files holding it: "q_output_<n>" / "k_output_<n>",
  // or "q_expected" / "k_expected" where the mutant wrote those very bits.
  std::string q, k;
  // Per exported policy (budget_policies() order): worst |out - expected_f64|
  // / budget (output_measure); infinity where unbounded.
  std::vector<std::pair<std::string, double>> worst_units;
  std::vector<std::string> allowed_by;  // the policies whose budget it meets; empty when invalid
  // A fused case's (schema 4): the tensors holding the caches it left,
  // "k_cache_output_<n>" / "v_cache_output_<n>" or the expected ones
  // ("k_cache_expected"; v_cache "" for MLA_JOINT), and per exported policy
  // the codes its worst written element lies outside its admissible ones
  // (cache_measure; infinity for a byte changed outside every entry). Empty
  // for a case without a KV-cache write. Its result and allowedBy weigh
  // q, k and the caches together.
  std::string k_cache, v_cache;
  std::vector<std::pair<std::string, double>> cache_steps;
};

// One output of a tensor (q or k) against one policy's budget: the largest
// |out - expected_f64| / budget over its elements (a non-finite output, or
// any difference where the budget is 0 (pass-through), counts as
// infinity), and whether every element has |out - expected_f64| <= budget.
struct OutputMeasure {
  double worst_units = 0;
  bool within = true;
};
OutputMeasure output_measure(const Tensor& out, const Tensor& expected_f64, const Tensor& budget);

// The rows of `mutants` a golden case can show (MutantSource::not_shown
// says why the others cannot); throws std::logic_error naming a row whose
// class golden/catalog/bug_classes.cc does not define.
std::vector<MutantSource> shown_mutants(std::span<const MutantSource> mutants);
// The rows of `mutants` a fused case runs: those granting its part's
// capability (KV_CACHE_WRITE for a KV-cache write, QK_NORM for a qk-norm,
// CALLER_COS_SIN_CACHE for the caller's cos/sin cache), in the catalogue's
// order (same throw).
std::vector<MutantSource> rows_granting(std::span<const MutantSource> mutants, std::uint32_t capability);

// What one mutant wrote on one case, kept as a candidate output when the
// gate's judge fails it under its declared policy and at least one
// exported budget rejects it: `entry` complete but for its tensor names.
struct Candidate {
  OutputEntry entry;
  Tensor q, k;
  std::optional<Tensor> k_cache, v_cache;  // a fused case's
};
// The case a mutant runs on: its inputs, the reference's result, its
// tensors (inputs, expected values, budgets), and what run_mutant reads
// besides.
struct MutantCase {
  const Case& c;
  const QkBuffers& in;
  const ReferenceResult& ref;
  const std::vector<Tensor>& tensors;
  const QkBuffers* control = nullptr;
  FusedParts parts = {};
};
// The mutant runs as given (the exporter isolates it: a crash, hang or
// misbehaviour is no output) on the case's inputs. `control`, when given, is what the
// catalogue's clean kernel wrote on the case: a mutant writing those very
// bits did not touch the case, and is not judged. parts.kv, for a fused case:
// the write the case makes; only a row granting KV_CACHE_WRITE and
// declaring that write runs there, judged on q, k and the caches together
// (core/judge/kv_cache_judge.h, judge_with_kv_write). parts.norm, for a
// qk-norm case: only a row granting QK_NORM with the case's weight form
// runs, called with the norm and judged as NormalisesEachHeadThenRotates
// judges (core/judge/qk_norm_judge.h). A case reading the caller's cos/sin
// cache (c.caller_cache_dtype) runs a row reading it in that dtype.
std::optional<Candidate> run_mutant(const MutantSource& m, const MutantCase& x);
// "" when `impl` may be called with the norm on case c (it grants
// QK_NORM with the norm's weight form, and declares the case), else why not.
std::string norm_outside_declared(const ropecheck_impl_t& impl, const Case& c, const GoldenNorm& norm);
// A run made with the norm judged as the gate's NormalisesEachHeadThenRotates
// judges it (core/judge/qk_norm_judge.h): `golden verify`'s verdict on a
// qk-norm case, and the exporter's on a row there.
CaseOutcome judge_normed_run(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const GoldenNorm& norm,
                             const KernelRun& run);
// The rows grouped by bug class, classes and rows in the catalogue's order:
// a case stores the first invalid and the first acceptable output of each
// class, so it shows every class it can at a size that stays small.
std::vector<std::vector<MutantSource>> by_bug_class(std::span<const MutantSource> mutants);
// A case's outputs from its candidates (per class its invalid, then its
// acceptable one, at most, in class order). Their tensors are appended to `tensors`, a tensor equal to one
// already there (the expected bits, another mutant's) named instead.
std::vector<OutputEntry> keep_outputs(std::vector<std::optional<Candidate>> candidates, std::vector<Tensor>* tensors);

// What the verifier and every consumer check of one case: the expected
// outputs meet every policy's budget, and each stored output is what its
// entry says (fails the budgets it is rejected by, meets those of allowedBy,
// worst units as stated). Throws FormatError naming the file, the output
// and the policy otherwise. Returns the outputs checked. With `kv` (a fused
// case) the caches count too: the expected caches meet every policy's
// codes, and each output's cacheSteps are as stated.
int check_case_outputs(const std::string& where, const std::vector<OutputEntry>& outputs,
                       const std::vector<Tensor>& stored, const GoldenKv* kv = nullptr);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_OUTPUTS_OUTPUTS_H_
