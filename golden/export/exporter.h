// SPDX-License-Identifier: MIT
// `ropecheck golden export`: a suite's cases with their exact expected
// outputs and per-policy error budgets, in one of the three formats, with
// manifest.json and SHA256SUMS. The export appears whole or not at all: it
// is written into a sibling directory and renamed into place.
#ifndef ROPECHECK_GOLDEN_EXPORT_EXPORTER_H_
#define ROPECHECK_GOLDEN_EXPORT_EXPORTER_H_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/config/model_rope.h"
#include "core/judge/reference_result.h"
#include "golden/export/case_tensors.h"
#include "golden/manifest/manifest.h"
#include "golden/outputs/outputs.h"
#include "golden/suites/suites.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {

// "ropecheck <version>": no commit hash or date, so an export depends only on
// the suite and the reference.
std::string generator_version();

struct ExportOptions {
  std::string suite = "smoke";
  // When set, the cases of this model's config.json (build_config_suite,
  // named config_name: the file's stem) instead of `suite`. The caller
  // reads it (`golden export --config` as `check --config` does:
  // cli/config_option.h).
  std::optional<ModelRope> config;
  std::string config_name;
  // With config: the size committed beside the zoo (ConfigSuiteSize), and
  // no mutant outputs (each family's exact outputs are what it commits).
  bool committed_size = false;
  std::string out_dir;
  Format format = Format::kSafetensors;
  // The bug catalogue's rows whose outputs each case stores where the
  // judge fails them (golden/outputs/outputs.h); called isolated. Empty: none.
  std::vector<MutantSource> mutants;
  // The catalogue's clean kernel (mutant_none), when given: a mutant that
  // writes its bits on a case did not touch it, and is not judged there.
  const ropecheck_impl_t* control = nullptr;
  int threads = 0;  // 0: one per core
  std::function<void(int done, int total)> progress;
};
struct ExportSummary {
  int cases = 0;
  std::uint64_t bytes = 0;
};
// Throws std::runtime_error (naming the path) when the directory cannot be
// written or already holds something that is not a golden export, or when
// SIGINT/SIGTERM arrived (core/isolation/interrupt.h; the staging directory is removed
// and a previous export stays as it was). Staging directories that exports
// killed with SIGKILL left beside out_dir are removed first.
ExportSummary export_golden(const ExportOptions& o);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_EXPORT_EXPORTER_H_
