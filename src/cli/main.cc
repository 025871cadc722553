// The `ropecheck` command: thin over the library.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "fuzz_command.h"
#include "golden_command.h"
#include "impl_selection.h"
#include "mutants_command.h"
#include "ropecheck/atomic_file.h"
#include "ropecheck/check.h"
#include "ropecheck/reference/rotation.h"
#include "ropecheck/dtype.h"
#include "ropecheck/error_model.h"
#include "ropecheck/properties/property.h"
#include "ropecheck/plugin.h"
#include "ropecheck/registry.h"
#include "simd/simd_impls.h"

namespace {

using namespace ropecheck;

std::string bits_to_names(std::uint32_t mask, int count, std::string_view (*name)(int)) {
  std::string s;
  for (int i = 0; i < count; ++i)
    if (mask & (1u << i)) s += (s.empty() ? "" : ",") + std::string(name(i));
  return s;
}

std::string_view dtype_n(int i) { return dtype_name(static_cast<ropecheck_dtype_t>(i)); }
std::string_view layout_n(int i) { return layout_name(static_cast<ropecheck_layout_t>(i)); }
std::string_view scheme_n(int i) { return scheme_name(static_cast<ropecheck_scheme_t>(i)); }

std::string policy_text(const ropecheck_policy_t& p) {
  std::string s = "freq " + std::string(dtype_n(static_cast<int>(p.freq_dtype)));
  s += p.angle_mode == ROPECHECK_ANGLE_F64 ? ", angle f64" : ", angle f32 product";
  char err_text[32];
  std::snprintf(err_text, sizeof err_text, "%.3g", p.sincos_max_abs_error);
  s += p.sincos == ROPECHECK_SINCOS_FAST ? ", fast sincos (<= " + std::string(err_text) + " abs)"
                                         : ", libm sincos";
  s += ", math " + std::string(dtype_n(static_cast<int>(p.math_dtype)));
  s += ", cos/sin " + std::string(dtype_n(static_cast<int>(p.cache_dtype)));
  return s;
}

std::string flags_text(std::uint32_t f) {
  std::string s;
  auto add = [&](std::uint32_t bit, const char* n) {
    if (f & bit) s += (s.empty() ? "" : ",") + std::string(n);
  };
  add(ROPECHECK_CAP_IN_PLACE, "in-place");
  add(ROPECHECK_CAP_OUT_OF_PLACE, "out-of-place");
  add(ROPECHECK_CAP_COS_SIN_CACHE, "cos/sin-cache");
  add(ROPECHECK_CAP_INVERSE, "inverse");
  add(ROPECHECK_CAP_PARTIAL_ROTARY, "partial-rotary");
  add(ROPECHECK_CAP_POS_INT32, "pos-i32");
  add(ROPECHECK_CAP_POS_INT64, "pos-i64");
  add(ROPECHECK_CAP_NEGATIVE_POSITIONS, "negative-positions");
  return s;
}

int cmd_list() {
  for (const ropecheck_impl_t* impl : builtin_impls()) {
    std::cout << impl->name << "\n  " << impl->description << "\n";
    if (impl->target) std::cout << "  target:   " << impl->target(impl->ctx) << "\n";
    std::cout << "  layouts:  " << bits_to_names(impl->caps.layouts, ROPECHECK_LAYOUT_COUNT, layout_n)
              << "\n  dtypes:   " << bits_to_names(impl->caps.dtypes, ROPECHECK_DTYPE_COUNT, dtype_n)
              << "\n  schemes:  " << bits_to_names(impl->caps.schemes, ROPECHECK_SCHEME_COUNT, scheme_n)
              << "\n  head_dim: <= " << impl->caps.max_head_dim
              << "\n  flags:    " << flags_text(impl->caps.flags)
              << "\n  policy:   " << policy_text(impl->policy) << "\n";
  }
  return 0;
}

struct CheckArgs {
  cli::SelectionArgs selection;
  std::string suite = "quick";
  std::string seed = "1";
  int case_index = -1;
  int cases = -1;
  std::string summary_path;
  std::string junit_path;
  std::string report_path;
  std::vector<std::string> properties;
  bool quiet = false;
  int threads = 1;
  std::string config_path;
};

int cmd_check(const CheckArgs& a) {
  CheckOptions o;
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
    cli::ImplSelection sel = cli::select_impls(a.selection);
    o.impls = sel.impls;
    o.reproduce_args = sel.reproduce_args;
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  if (!a.config_path.empty()) {
    std::ifstream f(a.config_path, std::ios::binary);
    if (!f) {
      std::cerr << "error: --config: cannot read " << a.config_path << "\n";
      return 2;
    }
    std::ostringstream text;
    text << f.rdbuf();
    try {
      o.config = parse_rope_config(text.str());
      o.config_path = a.config_path;
    } catch (const ref::ConfigError& e) {
      std::cerr << "error: --config " << a.config_path << ": " << e.what() << "\n";
      return 2;
    }
    std::cerr << "config " << a.config_path << ": head_dim " << o.config->shape.head_dim << ", rotary_dim "
              << o.config->shape.rotary_dim << ", " << o.config->freq.describe() << "\n";
  }
  impl::set_simd_threads(a.threads);
  std::cerr << "ropecheck check: suite " << a.suite << ", seed " << o.seed << ", "
            << (o.only_case ? 1 : total) << " case(s), " << o.impls.size()
            << " implementation(s)\n";
  if (!a.quiet) {
    o.progress = [](int done, int total) {
      if (done == total || done % 20 == 0) std::cerr << "  " << done << "/" << total << " cases\n";
    };
  }
  const CheckReport r = run_check(o);
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ropecheck: verification of RoPE kernels against a high-precision reference"};
  app.require_subcommand(1);
  auto* list = app.add_subcommand("list", "List the built-in implementations, their capabilities and precision policies");
  CheckArgs ca;
  auto* check = app.add_subcommand("check", "Run the conformance gate against the reference");
  check->add_option("--impl", ca.selection.names, "Implementation(s) to check (default: every built-in one, or every kernel of --plugin)");
  check->add_option("--plugin", ca.selection.plugins, "Shared library exporting ropecheck_get_impls (repeatable)");
  check->add_flag("!--no-isolation", ca.selection.isolation,
                  "Run kernels in this process (default: a child process per call, guard pages, timeout)");
  check->add_option("--timeout", ca.selection.timeout_seconds, "Seconds one isolated kernel call may take")
      ->check(CLI::Range(0.01, 3600.0))->capture_default_str();
  check->add_option("--suite", ca.suite, "quick | standard | exhaustive")->capture_default_str();
  check->add_option("--seed", ca.seed, "Seed of the case grid (an integer, or 'random')")->capture_default_str();
  check->add_option("--case", ca.case_index, "Run only this case index (what a reproduce line does)");
  check->add_option("--cases", ca.cases, "Run the first N cases of the suite (a case's index, not N, defines it)");
  check->add_option("--summary", ca.summary_path, "Also write the summary table (markdown) to this file");
  check->add_option("--property", ca.properties, "Property(ies) to run (default: all; see `ropecheck properties`)");
  check->add_option("--junit", ca.junit_path, "Also write JUnit XML (one testcase per implementation x property)");
  check->add_option("--report", ca.report_path, "Also write a self-contained HTML report with error-vs-position plots");
  check->add_option("--config", ca.config_path,
                    "A model's rope config (HF config.json, its rope_scaling dict, or ropecheck's schema): "
                    "every case uses its scheme and head shape");
  check->add_option("--threads", ca.threads, "Worker threads for the SIMD kernels (tokens are split)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  check->add_flag("--quiet", ca.quiet, "No progress lines");
  auto* props = app.add_subcommand("properties", "List the kernel properties the gate runs");
  cli::FuzzArgs fa;
  auto* fuzz = app.add_subcommand("fuzz", "Fuzz one implementation against the reference (libFuzzer, `fuzz` preset)");
  fuzz->add_option("--impl", fa.impl, "Implementation to fuzz (required without --plugin)");
  fuzz->add_option("--plugin", fa.plugin, "Fuzz the kernels of this plugin (shared library)");
  fuzz->add_option("--time", fa.seconds, "Seconds to fuzz")->check(CLI::Range(1, 7 * 24 * 3600))->capture_default_str();
  fuzz->add_option("--jobs", fa.jobs, "Parallel fuzzing jobs")->check(CLI::Range(1, 256))->capture_default_str();
  fuzz->add_option("--out", fa.out_dir, "Directory for the corpus and findings (default ropecheck-fuzz-<impl>)");
  fuzz->add_option("--fuzzer", fa.fuzzer, "Path to differential_fuzzer (default: build/fuzz next to this build)");
  cli::MutantsArgs ma;
  auto* mutants = app.add_subcommand("mutants", "Measure the gate's power: every mutant plugin must be killed, every correct kernel pass");
  mutants->add_option("--dir", ma.dir, "Directory of mutant plugins (default: this build's mutants/plugins)");
  mutants->add_option("--summary", ma.summary_path, "Also write the tables (markdown) to this file");
  mutants->add_option("--timeout", ma.timeout_seconds, "Seconds one isolated kernel call may take")->check(CLI::Range(0.01, 3600.0));
  mutants->add_flag("--skip-correct", ma.skip_correct, "Only the mutants (the correct kernels are gated by `check`)");
  cli::GoldenArgs ga;
  auto* golden = cli::add_golden_command(app, ga);
  CLI11_PARSE(app, argc, argv);
  try {
    if (*list) return cmd_list();
    if (*fuzz) {
      if (!fa.plugin.empty()) {
        const Plugin p = load_plugin(fa.plugin);  // refuses a bad plugin before fuzzing starts
        bool found = fa.impl.empty();
        for (const auto* impl : p.impls) found |= fa.impl == impl->name;
        if (!found) {
          std::cerr << "error: --impl: plugin " << fa.plugin << " has no implementation named '" << fa.impl << "'\n";
          return 2;
        }
        return cli::run_fuzz(fa, argv[0]);
      }
      if (fa.impl.empty()) {
        std::cerr << "error: --impl is required (or --plugin)\n";
        return 2;
      }
      const bool known = find_impl(fa.impl) != nullptr || fa.impl.rfind("planted_", 0) == 0;
      if (!known) {
        std::cerr << "error: --impl: no implementation named '" << fa.impl << "' (see `ropecheck list`)\n";
        return 2;
      }
      return cli::run_fuzz(fa, argv[0]);
    }
    if (*props) {
      for (const auto& p : prop::kernel_properties()) std::cout << "Rope/" << p.name << "\n  " << p.summary << "\n";
      return 0;
    }
    if (*check) return cmd_check(ca);
    if (*golden) return cli::run_golden(ga);
    if (*mutants) return cli::run_mutants(ma);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
