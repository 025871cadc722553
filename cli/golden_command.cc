// SPDX-License-Identifier: MIT
// `ropecheck golden export | verify`: the definitions of cli/golden_command.h.
#include "cli/golden_command.h"

#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/common_options.h"
#include "cli/config_option.h"
#include "core/isolation/interrupt.h"
#include "gate/gate.h"
#include "golden/export/exporter.h"
#include "golden/suites/suites.h"
#include "golden/verify/verifier.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck::cli {
namespace {

// A row of the bug catalogue as golden/ takes it: its kernel and the
// columns of mutants/mutant_list.h an export stores beside its outputs.
golden::MutantSource mutant_source(const mutant::BugInfo& b) {
  return {b.name, b.description, mutant::mutant_impl(b.bug), b.bug_class, b.published_bug, b.not_shown};
}

}  // namespace

CLI::App* add_golden_command(CLI::App& app, GoldenArgs& a) {
  auto* golden = app.add_subcommand("golden", "Export golden vectors for other frameworks, or verify an implementation on them");
  golden->require_subcommand(1);
  a.export_cmd = golden->add_subcommand("export", "Write a golden suite (inputs, exact outputs, per-policy budgets, manifest)");
  auto* suite = a.export_cmd->add_option("--suite", a.suite, "smoke | standard | long-context | fused")->capture_default_str();
  a.export_cmd
      ->add_option("--config", a.config,
                   "A model's config.json (e.g. golden/zoo/<family>.json): its cases per layer type and "
                   "sequence-length variant, named by the file's stem, instead of --suite")
      ->check(non_empty_path())
      ->excludes(suite);
  a.export_cmd
      ->add_flag("--committed-size", a.committed_size,
                 "With --config: the size committed beside the zoo (golden/zoo/vectors/): fp32, 2 tokens, one q "
                 "and one kv head, no mutant outputs")
      ->needs(a.export_cmd->get_option("--config"));
  a.export_cmd->add_option("--out", a.out_dir, "Directory to write (replaced atomically if it holds an export)")
      ->required()
      ->check(non_empty_path());
  a.export_cmd->add_option("--format", a.format, "safetensors | npy | json")->capture_default_str();
  a.export_cmd->add_flag("--no-outputs", a.no_outputs,
                         "The exact outputs alone: no invalid or acceptable outputs of the bug catalogue's mutants "
                         "(golden/README.md)");
  // --jobs, as `check` names its parallel cases; --threads elsewhere is the threads of one kernel call.
  a.export_cmd->add_option("--jobs", a.jobs, "Cases exported in parallel (default: one per core)")
      ->check(integer_in(0, 256));
  a.export_cmd
      ->add_option_function<int>(
          "--threads",
          [&a](int n) {
            std::cerr << "warning: golden export --threads is now --jobs (--threads is a kernel call's threads "
                         "in check and bench)\n";
            a.jobs = n;
          },
          "Deprecated spelling of --jobs")
      ->check(integer_in(0, 256));
  a.export_cmd->add_flag("--quiet", a.quiet, "No progress lines");
  a.verify_cmd = golden->add_subcommand("verify", "Run implementations on every supported case of an export; exit 1 on a failure");
  a.verify_cmd->add_option("--dir", a.dir, "The export's directory (holds manifest.json and SHA256SUMS)")
      ->required()
      ->check(non_empty_path());
  a.verify_cmd->add_option("--expect-sha256", a.expect_sha256,
                           "SHA-256 the export's SHA256SUMS must have (pins the export: checksums alone detect "
                           "corruption, not tampering)");
  a.verify_cmd->add_option("--min-judged", a.min_judged,
                           "Fail an implementation judged (not skipped) on fewer cases of the export")
      ->check(integer_in(1, kMaxCaseCount))
      ->capture_default_str();
  add_selection_options(a.verify_cmd, a.selection);
  return golden;
}

std::string validate_golden_args(const GoldenArgs& a) {
  if (*a.export_cmd) {
    golden::Format f;
    if (!golden::parse_format(a.format, &f)) return "--format: must be safetensors, npy or json (got '" + a.format + "')";
    bool known = false;
    for (const auto& s : golden::golden_suite_names()) known |= s == a.suite;
    if (!known) return "--suite: must be smoke, standard, long-context or fused (got '" + a.suite + "')";
  }
  if (*a.verify_cmd && !a.expect_sha256.empty() &&
      (a.expect_sha256.size() != 64 || a.expect_sha256.find_first_not_of("0123456789abcdef") != std::string::npos))
    return "--expect-sha256: must be 64 lowercase hex digits (got '" + a.expect_sha256 + "')";
  return {};
}

int run_golden(const GoldenArgs& a) {
  if (const std::string bad = validate_golden_args(a); !bad.empty()) {
    std::cerr << "error: " << bad << "\n";
    return 2;
  }
  install_interrupt_handlers();
  if (*a.export_cmd) {
    golden::ExportOptions o;
    o.suite = a.suite;
    if (!a.config.empty()) {
      o.config = read_config_option(a.config, std::cerr);
      o.config_name = std::filesystem::path(a.config).stem().string();
    }
    o.committed_size = a.committed_size;
    // Every row of the bug catalogue but the control: each case keeps the
    // outputs its judge fails (golden/outputs/outputs.h).
    if (!a.no_outputs) {
      for (const mutant::BugInfo& b : mutant::kBugs)
        if (b.bug != mutant::Bug::none) o.mutants.push_back(mutant_source(b));
      o.control = mutant::mutant_impl(mutant::Bug::none);
    }
    o.out_dir = a.out_dir;
    o.threads = a.jobs;
    golden::parse_format(a.format, &o.format);
    if (!a.quiet) o.progress = progress_printer();
    const auto t0 = std::chrono::steady_clock::now();
    const golden::ExportSummary s = golden::export_golden(o);  // throws when interrupted
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "golden export: " << (a.config.empty() ? "suite " + a.suite : "config " + a.config) << ", " << s.cases << " cases, " << s.bytes << " bytes ("
              << a.format << ") in " << secs << " s -> " << a.out_dir << "\n";
    return 0;
  }
  const ImplSelection sel = select_impls(a.selection);
  golden::VerifyOptions vo;
  vo.expect_sums_sha256 = a.expect_sha256;
  vo.min_judged = a.min_judged;
  // Every output of the export recomputed by its mutant (#49).
  for (const mutant::BugInfo& b : mutant::kBugs)
    if (b.bug != mutant::Bug::none) vo.mutants.push_back(mutant_source(b));
  const golden::VerifyReport r = golden::verify_golden(a.dir, sel.impls, vo);
  golden::print_verify_report(r, std::cout);
  if (!r.interrupted.empty()) return interrupted_exit_code();
  return r.passed() ? 0 : 1;
}

}  // namespace ropecheck::cli
