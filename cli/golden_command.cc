#include "cli/golden_command.h"

#include <chrono>
#include <iostream>

#include "cli/common_options.h"
#include "golden/exporter.h"
#include "golden/verifier.h"

namespace ropecheck::cli {

CLI::App* add_golden_command(CLI::App& app, GoldenArgs& a) {
  auto* golden = app.add_subcommand("golden", "Export golden vectors for other frameworks, or verify an implementation on them");
  golden->require_subcommand(1);
  a.export_cmd = golden->add_subcommand("export", "Write a golden suite (inputs, exact outputs, per-policy budgets, manifest)");
  a.export_cmd->add_option("--suite", a.suite, "smoke | standard | long-context")->capture_default_str();
  a.export_cmd->add_option("--out", a.out_dir, "Directory to write (replaced atomically if it holds an export)")->required();
  a.export_cmd->add_option("--format", a.format, "safetensors | npy | json")->capture_default_str();
  a.export_cmd->add_option("--threads", a.threads, "Worker threads (default: one per core)")->check(CLI::Range(0, 256));
  a.export_cmd->add_flag("--quiet", a.quiet, "No progress lines");
  a.verify_cmd = golden->add_subcommand("verify", "Run implementations on every supported case of an export; exit 1 on a failure");
  a.verify_cmd->add_option("--dir", a.dir, "The export's directory (holds manifest.json)")->required();
  add_selection_options(a.verify_cmd, a.selection);
  return golden;
}

int run_golden(const GoldenArgs& a) {
  if (*a.export_cmd) {
    golden::ExportOptions o;
    o.suite = a.suite;
    o.out_dir = a.out_dir;
    o.threads = a.threads;
    if (!golden::parse_format(a.format, &o.format)) {
      std::cerr << "error: --format must be safetensors, npy or json (got '" << a.format << "')\n";
      return 2;
    }
    if (!a.quiet) o.progress = progress_printer();
    const auto t0 = std::chrono::steady_clock::now();
    const golden::ExportSummary s = golden::export_golden(o);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "golden export: suite " << a.suite << ", " << s.cases << " cases, " << s.bytes << " bytes ("
              << a.format << ") in " << secs << " s -> " << a.out_dir << "\n";
    return 0;
  }
  const ImplSelection sel = select_impls(a.selection);
  const std::vector<const ropecheck_impl_t*>& impls = sel.impls;
  const auto verdicts = golden::verify_golden(a.dir, impls);
  golden::print_verify_report(verdicts, std::cout);
  int failed = 0;
  for (const auto& v : verdicts) failed += v.count(Outcome::kFail);
  std::cout << (failed ? "FAIL: " : "PASS: ") << failed << " failing case(s)\n";
  return failed ? 1 : 0;
}

}  // namespace ropecheck::cli
