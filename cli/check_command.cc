#include "cli/check_command.h"

#include <cctype>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "cli/common_options.h"
#include "cli/report_files.h"
#include "core/config.h"
#include "gate/gate.h"
#include "impls/simd/simd_impls.h"
#include "properties/property.h"

namespace ropecheck::cli {
namespace {

// "i/n" with 1 <= i <= n <= 10^7, digits only.
bool parse_shard(const std::string& s, int* index, int* count) {
  const std::size_t slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size() || s.size() > 17) return false;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (k != slash && !std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  const long long i = std::stoll(s.substr(0, slash)), n = std::stoll(s.substr(slash + 1));
  if (n < 1 || n > 10000000 || i < 1 || i > n) return false;
  *index = static_cast<int>(i);
  *count = static_cast<int>(n);
  return true;
}

}  // namespace

CLI::App* add_check_command(CLI::App& app, CheckArgs& a) {
  auto* check = app.add_subcommand("check", "Run the conformance gate against the reference");
  add_selection_options(check, a.selection);
  check->add_option("--suite", a.suite, "quick | standard | exhaustive")->capture_default_str();
  check->add_option("--seed", a.seed, "Seed of the case grid (an integer, or 'random')")->capture_default_str();
  check->add_option("--case", a.case_index, "Run only this case index (what a reproduce line does)");
  check->add_option("--cases", a.cases, "Run the first N cases of the suite (a case's index, not N, defines it)");
  check->add_option("--property", a.properties, "Property(ies) to run (default: all; see `ropecheck properties`)");
  add_report_options(check, a.files);
  check->add_option("--shard", a.shard,
                    "Run shard i of n (i/n, 1 <= i <= n): the cases whose index % n == i - 1; "
                    "`ropecheck merge` joins the shards' --json reports");
  check->add_option("--jobs", a.jobs, "Cases run in parallel (the report is the same for any N)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
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
  if (!a.shard.empty() && !parse_shard(a.shard, &o.shard_index, &o.shard_count)) {
    std::cerr << "error: --shard must be i/n with 1 <= i <= n <= 10000000 (got '" << a.shard << "')\n";
    return 2;
  }
  o.jobs = a.jobs;
  impl::set_simd_threads(a.threads);
  std::cerr << "ropecheck check: suite " << a.suite << ", seed " << o.seed << ", "
            << (o.only_case ? 1 : total) << " case(s)";
  if (o.shard_count > 1) std::cerr << ", shard " << o.shard_index << "/" << o.shard_count;
  std::cerr << ", " << o.impls.size() << " implementation(s)";
  if (o.jobs > 1) std::cerr << ", " << o.jobs << " jobs";
  std::cerr << "\n";
  if (!a.quiet) o.progress = progress_printer();
  return finish_report(run_gate(o), a.files);
}


}  // namespace ropecheck::cli
