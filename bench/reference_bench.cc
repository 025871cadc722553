// SPDX-License-Identifier: MIT
// Time of the reference result per element, on every case of a suite:
// compute_reference(case, inputs) over the suite's cases (inputs built
// beforehand), thread CPU time, best of --reps. It uses only what every
// ropecheck since the case generator has (make_case, make_inputs,
// geometry, compute_reference), so bench/run_gate_bench.sh builds this same
// file against the baseline tree for "today" and against this tree for the
// fast path; ROPECHECK_REFERENCE=mpfr times this tree's MPFR path.
//
// usage: reference_bench [--suite quick|standard|exhaustive] [--seed S] [--reps N]
// prints: suite <s> cases <n> elements <e> ns_per_element <t>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/reference_result.h"

namespace {

double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ropecheck;
  std::string suite = "standard";
  std::uint64_t seed = 1;
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--suite")) suite = argv[i + 1];
    else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  Suite s;
  if (!parse_suite(suite, &s) || reps < 1) {
    std::fprintf(stderr, "usage: reference_bench [--suite quick|standard|exhaustive] [--seed S] [--reps N]\n");
    return 2;
  }
  std::vector<Case> cases;
  std::vector<QkBuffers> inputs;
  long long elements = 0;
  for (int i = 0; i < suite_size(s); ++i) {
    cases.push_back(make_case(s, seed, i));
    inputs.push_back(make_inputs(cases.back()));
    const Geometry g = geometry(cases.back());
    elements += cases.back().tokens * (g.heads[0] + g.heads[1]) * g.rotary_dim;
  }
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double t0 = thread_seconds();
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const ReferenceResult ref = compute_reference(cases[i], inputs[i]);
      if (ref.inv_freq.empty()) std::abort();  // keeps the call
    }
    best = std::min(best, thread_seconds() - t0);
  }
  std::printf("suite %s cases %zu elements %lld ns_per_element %.1f\n", suite.c_str(), cases.size(), elements,
              best / static_cast<double>(elements) * 1e9);
  return 0;
}
