// SPDX-License-Identifier: MIT
// Time of the budget tables per rotated pair, on every case of a suite:
// budget_table(model, reference) for each distinct error model the built-in
// kernels declare on the case (as CaseContext::budgets builds them once per
// case and model), references computed beforehand; CPU time of the
// budget_table calls alone, best of --reps. A checksum of every budget is
// printed so that two builds can be shown to compute the same bits (the
// tables are the verdict's bounds).
//
// usage: budget_bench [--suite quick|standard|exhaustive] [--seed S] [--reps N]
// prints: suite <s> tables <n> pairs <p> ns_per_pair <t> checksum <hex>
#include <algorithm>
#include <bit>
#include <cstdint>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/budget_table.h"
#include "core/judge/reference_result.h"
#include "impls/registry.h"

namespace {

// The process's CPU seconds: the bench runs on one thread.
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// FNV-1a over the bits of every budget and dominant term of a table.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
  return h;
}

struct Options {
  std::string suite = "quick";
  std::uint64_t seed = 1;
  int reps = 3;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace ropecheck;
  Options o;
  CLI::App app{"budget_table's time per rotated pair over a suite's cases"};
  app.add_option("--suite", o.suite, "quick, standard or exhaustive")
      ->check(CLI::IsMember({"quick", "standard", "exhaustive"}));
  app.add_option("--seed", o.seed, "seed of the case grid");
  app.add_option("--reps", o.reps, "runs, the best kept")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  Suite s;
  if (!parse_suite(o.suite, &s)) return 2;
  struct Job {
    std::size_t ref;
    ErrorModel model;
  };
  std::vector<ReferenceResult> refs;
  std::vector<Job> jobs;
  long long pairs = 0;
  for (int i = 0; i < suite_size(s); ++i) {
    const Case c = make_case(s, o.seed, i);
    refs.push_back(compute_reference(c, make_inputs(c)));
    std::vector<ModelChoice> seen;
    for (const ropecheck_impl_t* impl : builtin_impls()) {
      const ModelChoice m = model_choice(*impl, c);
      if (std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
      seen.push_back(m);
      jobs.push_back({refs.size() - 1, case_error_model(m, c, refs.back().attention_factor)});
      pairs += static_cast<long long>(refs.back().pairs[0].size() + refs.back().pairs[1].size());
    }
  }
  double best = 1e300;
  std::uint64_t sum = 0xcbf29ce484222325ULL;
  for (int r = 0; r < o.reps; ++r) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    double seconds = 0;
    for (const Job& j : jobs) {
      const double t0 = cpu_seconds();
      const BudgetTable t = budget_table(j.model, refs[j.ref]);
      seconds += cpu_seconds() - t0;
      for (int w = 0; w < 2; ++w) {
        for (double b : t.budget[w]) h = mix(h, std::bit_cast<std::uint64_t>(b));
        for (std::uint8_t d : t.dominant[w]) h = mix(h, d);
        for (double b : t.pair[w]) h = mix(h, std::bit_cast<std::uint64_t>(b));
        for (double b : t.pair_no_angle[w]) h = mix(h, std::bit_cast<std::uint64_t>(b));
        for (double b : t.norm[w]) h = mix(h, std::bit_cast<std::uint64_t>(b));
      }
    }
    best = std::min(best, seconds);
    sum = h;
  }
  std::printf("suite %s tables %zu pairs %lld ns_per_pair %.1f checksum %016llx\n", o.suite.c_str(), jobs.size(), pairs,
              best / static_cast<double>(pairs) * 1e9, static_cast<unsigned long long>(sum));
  return 0;
}
