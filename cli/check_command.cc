#include "cli/check_command.h"

#include <cstdint>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "cli/common_options.h"
#include "core/atomic_file.h"
#include "core/config.h"
#include "core/file_read.h"
#include "gate/gate.h"
#include "impls/simd/simd_impls.h"
#include "properties/property.h"
#include "reference/rotation.h"

namespace ropecheck::cli {

CLI::App* add_check_command(CLI::App& app, CheckArgs& a) {
  auto* check = app.add_subcommand("check", "Run the conformance gate against the reference");
  add_selection_options(check, a.selection);
  check->add_option("--suite", a.suite, "quick | standard | exhaustive")->capture_default_str();
  check->add_option("--seed", a.seed, "Seed of the case grid (an integer, or 'random')")->capture_default_str();
  check->add_option("--case", a.case_index, "Run only this case index (what a reproduce line does)");
  check->add_option("--cases", a.cases, "Run the first N cases of the suite (a case's index, not N, defines it)");
  check->add_option("--summary", a.summary_path, "Also write the summary table (markdown) to this file");
  check->add_option("--property", a.properties, "Property(ies) to run (default: all; see `ropecheck properties`)");
  check->add_option("--junit", a.junit_path, "Also write JUnit XML (one testcase per implementation x property)");
  check->add_option("--report", a.report_path, "Also write a self-contained HTML report with error-vs-position plots");
  check->add_option("--config", a.config_path,
                    "A model's rope config (HF config.json, its rope_scaling dict, or ropecheck's schema): "
                    "every case uses its scheme and head shape");
  check->add_option("--threads", a.threads, "Worker threads for the SIMD kernels (tokens are split)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  check->add_flag("--quiet", a.quiet, "No progress lines");
  return check;
}

int run_check(const CheckArgs& a) {
  GateOptions o;
  if (!parse_suite(a.suite, &o.suite)) {
    std::cerr << "error: --suite must be quick, standard or exhaustive (got '" << a.suite << "')\n";
    return 2;
  }
  if (a.seed == "random") {
    o.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  } else {
    try {
      std::size_t used = 0;
      o.seed = std::stoull(a.seed, &used);
      if (used != a.seed.size()) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      std::cerr << "error: --seed must be an unsigned 64-bit integer or 'random' (got '" << a.seed << "')\n";
      return 2;
    }
  }
  if (a.cases >= 0) {
    if (a.cases < 1 || a.cases > 10000000) {
      std::cerr << "error: --cases must be in [1, 10000000] (got " << a.cases << ")\n";
      return 2;
    }
    o.cases = a.cases;
  }
  const int total = o.cases ? *o.cases : suite_size(o.suite);
  if (a.case_index >= 0) {
    if (a.case_index >= total) {
      std::cerr << "error: --case must be in [0, " << total << ") for suite " << a.suite
                << " (got " << a.case_index << ")\n";
      return 2;
    }
    o.only_case = a.case_index;
  }
  for (const auto& n : a.properties) {
    if (!prop::find_property(n)) {
      std::cerr << "error: --property: no property named '" << n << "'; known:";
      for (const auto& p : prop::kernel_properties()) std::cerr << " " << p.name;
      std::cerr << "\n";
      return 2;
    }
  }
  o.properties = a.properties;
  try {
    ImplSelection sel = select_impls(a.selection);
    o.impls = sel.impls;
    o.reproduce_args = sel.reproduce_args;
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  if (!a.config_path.empty()) {
    try {
      o.config = read_rope_config_file(a.config_path);
      o.config_path = a.config_path;
    } catch (const FileReadError& e) {
      std::cerr << "error: --config " << e.what() << "\n";
      return 2;
    } catch (const ref::ConfigError& e) {
      std::cerr << "error: --config " << a.config_path << ": " << e.what() << "\n";
      return 2;
    }
    if (o.config->shape_stated)
      std::cerr << "config " << a.config_path << ": head_dim " << o.config->shape.head_dim << ", rotary_dim "
                << o.config->shape.rotary_dim << ", " << o.config->freq.describe() << "\n";
    else
      std::cerr << "config " << a.config_path << ": " << o.config->freq.describe()
                << "; it states no head shape, so every case keeps its own\n";
  }
  impl::set_simd_threads(a.threads);
  std::cerr << "ropecheck check: suite " << a.suite << ", seed " << o.seed << ", "
            << (o.only_case ? 1 : total) << " case(s), " << o.impls.size()
            << " implementation(s)\n";
  if (!a.quiet) o.progress = progress_printer();
  const GateReport r = run_gate(o);
  print_summary(r, std::cout);
  if (!r.passed()) {
    std::cout << "\n";
    print_failures(r, std::cout);
  }
  try {
    if (!a.summary_path.empty()) {
      std::ostringstream s;
      print_summary(r, s);
      write_file_atomically(a.summary_path, s.str());
    }
    if (!a.junit_path.empty()) {
      std::ostringstream s;
      write_junit(r, s);
      write_file_atomically(a.junit_path, s.str());
    }
    if (!a.report_path.empty()) {
      ref::FreqSpec def;  // decay curve of the default scheme, d = 128, b = 1e4
      const auto decay = ref::decay_curve(ref::compute_frequencies<ref::Real>(def, 128), 4096, 1);
      std::ostringstream s;
      write_html_report(r, decay, s);
      write_file_atomically(a.report_path, s.str());
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return r.passed() ? 0 : 1;
}


}  // namespace ropecheck::cli
