// SPDX-License-Identifier: MIT
// `ropecheck check`: the definitions of cli/check_command.h.
#include "cli/check_command.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "cli/common_options.h"
#include "cli/config_option.h"
#include "cli/policies_report.h"
#include "cli/report_files.h"
#include "core/config/config.h"
#include "core/isolation/interrupt.h"
#include "gate/gate.h"
#include "core/config/model_rope.h"
#include "impls/registry.h"
#include "properties/property.h"

namespace ropecheck::cli {

namespace {

// The cores this process may run on (its CPU affinity mask, what nproc
// counts), within --jobs' range: check's default, since the report does not
// depend on --jobs and a gate on one thread left the other cores idle (#34).
int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int n = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                               : static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(n, 1, 256);
}

// "i/n" with 1 <= i <= n <= 10^7, digits only.
bool parse_shard(const std::string& s, int* index, int* count) {
  const std::size_t slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size() || s.size() > 17) return false;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (k != slash && !std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  const long long i = std::stoll(s.substr(0, slash)), n = std::stoll(s.substr(slash + 1));
  if (n < 1 || n > kMaxCaseCount || i < 1 || i > n) return false;
  *index = static_cast<int>(i);
  *count = static_cast<int>(n);
  return true;
}

}  // namespace

CLI::App* add_check_command(CLI::App& app, CheckArgs& a) {
  auto* check = app.add_subcommand("check", "Run the conformance gate against the reference");
  add_selection_options(check, a.selection);
  check->add_option("--suite", a.suite, "quick | standard | exhaustive")->capture_default_str();
  check->add_option("--seed", a.seed, "Seed of the case grid (an unsigned 64-bit integer, or 'random')")
      ->capture_default_str();
  check->add_option("--case", a.case_index, "Run only this case index (what a reproduce line does)")
      ->check(integer_in(0, kMaxCaseCount - 1));
  check->add_option("--cases", a.cases, "Run the first N cases of the suite (a case's index, not N, defines it)")
      ->check(integer_in(1, kMaxCaseCount));
  check->add_option("--min-judged", a.min_judged,
                    "Fail an implementation judged (not skipped) on fewer cases of an applicable property")
      ->check(integer_in(1, kMaxCaseCount))
      ->capture_default_str();
  check->add_option("--property", a.properties, "Property(ies) to run (default: all; see `ropecheck properties`)");
  add_report_options(check, a.files);
  check->add_option("--shard", a.shard,
                    "Run shard i of n (i/n, 1 <= i <= n): the cases whose index % n == i - 1; "
                    "`ropecheck merge` joins the shards' --json reports");
  a.jobs = usable_cores();  // the default: every core this process may run on
  check->add_option("--jobs", a.jobs,
                    "Cases run in parallel (default: the cores this process may run on; the report is the same for any N)")
      ->check(integer_in(1, 256))
      ->capture_default_str();
  check->add_option("--config", a.config_path,
                    "A model's rope config (HF config.json, its rope_scaling dict, or ropecheck's schema): "
                    "every case uses its scheme and head shape")
      ->check(non_empty_path());
  check->add_option("--threads", a.threads, "Worker threads for the SIMD kernels (tokens are split)")
      ->check(integer_in(1, 256))
      ->capture_default_str();
  check->add_option("--within", a.within_ulps,
                    "Also report, per implementation and dtype, the |position| up to which every element stays "
                    "within this many ulps of the correctly rounded result")
      ->check(CLI::Range(0.0, 1e30));
  check->add_flag("--slack", a.slack, "Also print the worst error / budget where each budget term dominates");
  check->add_flag("--policies", a.policies,
                  "Judge each kernel (conformance only) under every catalogue policy in place of its own, and print "
                  "per policy pass or fail and the worst error in budget units: the tightest passing one is the "
                  "one to declare");
  check->add_flag("--quiet", a.quiet, "No progress lines");
  return check;
}

std::string validate_check_args(const CheckArgs& a, GateOptions* o) {
  if (!parse_suite(a.suite, &o->suite)) return "--suite: must be quick, standard or exhaustive (got '" + a.suite + "')";
  if (a.seed == "random") {
    o->seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  } else {
    // Digits only: stoull read "-1" as 2^64 - 1.
    const std::string bound = "--seed: must be an unsigned 64-bit integer or 'random' (got '" + a.seed + "')";
    if (a.seed.empty() || a.seed.size() > 20 || a.seed.find_first_not_of("0123456789") != std::string::npos) return bound;
    try {
      o->seed = std::stoull(a.seed);
    } catch (const std::exception&) {
      return bound;
    }
  }
  if (a.cases >= 0) o->cases = a.cases;
  const int total = o->cases ? *o->cases : suite_size(o->suite);
  if (a.case_index >= 0) {
    if (a.case_index >= total)
      return "--case: must be in [0, " + std::to_string(total) + ") for suite " + a.suite + " (got " +
             std::to_string(a.case_index) + ")";
    o->only_case = a.case_index;
  }
  for (const auto& n : a.properties) {
    if (!prop::find_property(n)) {
      std::string known;
      for (const auto& p : prop::kernel_properties()) known += std::string(" ") + p.name;
      return "--property: no property named '" + n + "'; known:" + known;
    }
  }
  o->properties = a.properties;
  o->min_judged = a.min_judged;
  o->isolated = a.selection.isolation;
  if (!a.shard.empty() && !parse_shard(a.shard, &o->shard_index, &o->shard_count))
    return "--shard: must be i/n with 1 <= i <= n <= " + std::to_string(kMaxCaseCount) + " (got '" + a.shard + "')";
  o->jobs = a.jobs;
  return {};
}

int run_check(const CheckArgs& a) {
  install_interrupt_handlers();
  GateOptions o;
  if (const std::string bad = validate_check_args(a, &o); !bad.empty()) {
    std::cerr << "error: " << bad << "\n";
    return 2;
  }
  ImplSelection sel = select_impls(a.selection);
  o.impls = sel.impls;
  o.reproduce_args = sel.reproduce_args;
  if (!a.config_path.empty()) {
    o.configs = config_variants(read_config_option(a.config_path, std::cerr));
    o.config_path = a.config_path;
    if (o.configs.size() > 1)
      std::cerr << "  case i uses config variant i % " << o.configs.size()
                << " (each layer type; seq_len at L-1, L, L+1 and the max context where the scheme switches on it)\n";
  }
  set_builtin_kernel_threads(a.threads);
  o.reproduce_environment = builtin_reproduce_environment();
  const int total = o.cases ? *o.cases : suite_size(o.suite);
  std::cerr << "ropecheck check: suite " << a.suite << ", seed " << o.seed << ", " << (o.only_case ? 1 : total)
            << " case(s)";
  if (o.shard_count > 1) std::cerr << ", shard " << o.shard_index << "/" << o.shard_count;
  std::cerr << ", " << o.impls.size() << " implementation(s)";
  if (o.jobs > 1) std::cerr << ", " << o.jobs << " jobs";
  std::cerr << (!a.selection.isolation                     ? ", NOT isolated (--no-isolation)"
                : a.selection.isolation_mode == "fork" ? ", isolated: a child process per call (--isolation fork)"
                                                       : "")
            << "\n";
  if (a.policies) return run_policies(o, std::cout);
  if (!a.quiet) o.progress = progress_printer();
  const GateReport r = run_gate(o);
  std::ostringstream extra;  // the tables asked for, also in --summary
  if (a.slack) print_slack(r, extra);
  if (a.within_ulps >= 0) print_within(r, a.within_ulps, extra);
  return finish_report(r, a.files, extra.str());
}

}  // namespace ropecheck::cli
