// SPDX-License-Identifier: MIT
// `ropecheck mutants`: the definitions of cli/mutants_command.h.
#include "cli/mutants_command.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/build_paths.h"
#include "cli/common_options.h"
#include "cli/impl_selection.h"
#include "core/io/atomic_file.h"
#include "gate/gate.h"
#include "impls/registry.h"
#include "mutants/mutant_list.h"

namespace ropecheck::cli {
namespace {

struct Row {
  std::string name, verdict, killed_by, detail;
  int cases = 0;
  double seconds = 0;
};

// The default gate: what `ropecheck check` runs with no options (on the
// suite its catalogue row names, for a bug no quick case can show).
GateOptions default_gate(const ImplSelection& s, bool stop_early) {
  GateOptions o;
  for (const mutant::BugInfo& b : mutant::kBugs)
    if (s.impls.size() == 1 && *b.suite && s.impls[0]->name == std::string(b.name)) parse_suite(b.suite, &o.suite);
  o.impls = s.impls;
  o.reproduce_args = s.reproduce_args;
  o.reproduce_environment = builtin_reproduce_environment();
  o.stop_at_first_failing_case = stop_early;
  return o;
}

Row gate_row(const std::string& name, const GateReport& r) {
  Row row;
  row.name = name;
  row.cases = r.cases;
  row.seconds = r.seconds;
  std::set<std::string> props;
  for (const auto& f : r.impls[0].failures) props.insert(f.property);
  for (const auto& p : props) row.killed_by += (row.killed_by.empty() ? "" : ", ") + p;
  if (!r.impls[0].failures.empty()) {
    const auto& f = r.impls[0].failures.front();
    row.detail = "case " + std::to_string(f.case_index) + ": " + f.message.substr(0, 140);
  }
  return row;
}

}  // namespace

CLI::App* add_mutants_command(CLI::App& app, MutantsArgs& a) {
  auto* mutants = app.add_subcommand("mutants", "Measure the gate's power: every mutant plugin must be killed, every correct kernel pass");
  mutants->add_option("--dir", a.dir, "Directory of mutant plugins (default: this build's mutants/plugins)");
  mutants->add_option("--summary", a.summary_path, "Also write the tables (markdown) to this file")
      ->check(non_empty_path());
  mutants->add_option("--timeout", a.timeout_seconds, "Seconds one isolated kernel call may take, per 2^24 elements it computes (at least once)")->check(finite_in(0.01, 3600));
  mutants->add_flag("--skip-correct", a.skip_correct, "Only the mutants (the correct kernels are gated by `check`)");
  return mutants;
}

int run_mutants(const MutantsArgs& a) {
  const std::string dir = a.dir.empty() ? std::string(mutant_dir()) : a.dir;
  std::vector<std::string> paths;
  if (!dir.empty() && std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".so") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) {
    std::cerr << "error: --dir: no mutant plugins (*.so) in '" << dir << "' (build the `mutants` target)\n";
    return 2;
  }
  std::vector<Row> mutants, correct;
  SelectionArgs control;  // correct implementations: the built-ins and the control plugin
  control.timeout_seconds = a.timeout_seconds;
  for (const std::string& path : paths) {
    SelectionArgs one;
    one.plugins = {path};
    one.timeout_seconds = a.timeout_seconds;
    const ImplSelection s = select_impls(one);
    const std::string name = s.impls[0]->name;
    if (name == "mutant_none") {
      control.plugins.push_back(path);
      continue;
    }
    std::cerr << "  " << name << " ...\n";
    const GateReport r = run_gate(default_gate(s, /*stop_early=*/true));
    Row row = gate_row(name, r);
    row.verdict = std::string(r.impls[0].failures.empty() ? "SURVIVED" : "killed") +
                  (r.suite == Suite::kQuick ? "" : std::string(" (") + suite_name(r.suite) + " suite)");
    mutants.push_back(row);
  }
  if (!a.skip_correct) {
    std::vector<std::string> names;
    ImplSelection all;
    {
      SelectionArgs builtins;
      builtins.timeout_seconds = a.timeout_seconds;
      all = select_impls(builtins);
      if (!control.plugins.empty()) {
        const ImplSelection c = select_impls(control);
        all.impls.insert(all.impls.end(), c.impls.begin(), c.impls.end());
        all.reproduce_args.insert(c.reproduce_args.begin(), c.reproduce_args.end());
      }
    }
    for (const auto* impl : all.impls) {
      std::cerr << "  " << impl->name << " (correct) ...\n";
      ImplSelection one{{impl}, all.reproduce_args};
      Row row = gate_row(impl->name, run_gate(default_gate(one, false)));
      row.verdict = row.killed_by.empty() ? "passes" : "FAILS";
      correct.push_back(row);
    }
  }
  std::ostringstream t;
  t << "| mutant | verdict | killed by (properties failing on the first failing case) | cases run | seconds |\n"
       "|---|---|---|---:|---:|\n";
  int survived = 0;
  for (const Row& r : mutants) {
    survived += r.verdict.rfind("killed", 0) != 0;
    t << "| " << r.name << " | " << r.verdict << " | " << r.killed_by << " | " << r.cases << " | " << std::fixed
      << std::setprecision(2) << r.seconds << " |\n";
  }
  t << "\nMutation score: " << (mutants.size() - survived) << "/" << mutants.size() << " killed by the default gate ("
    << "quick suite, seed 1, every property).\n";
  int failing = 0;
  if (!correct.empty()) {
    t << "\n| correct implementation | verdict | failing properties | cases | seconds |\n|---|---|---|---:|---:|\n";
    for (const Row& r : correct) {
      failing += r.verdict != "passes";
      t << "| " << r.name << " | " << r.verdict << " | " << r.killed_by << " | " << r.cases << " | " << std::fixed
        << std::setprecision(2) << r.seconds << " |\n";
    }
  }
  std::cout << t.str();
  for (const Row& r : mutants)
    if (!r.detail.empty()) std::cout << "  " << r.name << ": " << r.detail << "\n";
  for (const Row& r : correct)
    if (!r.detail.empty()) std::cout << "  FAILING correct implementation " << r.name << ": " << r.detail << "\n";
  if (!a.summary_path.empty()) write_file_atomically(a.summary_path, t.str());
  return survived == 0 && failing == 0 ? 0 : 1;
}

}  // namespace ropecheck::cli
