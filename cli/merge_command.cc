// SPDX-License-Identifier: MIT
// `ropecheck merge SHARD.json...`: the definitions of cli/merge_command.h.
#include "cli/merge_command.h"

#include <iostream>
#include <sstream>

#include "cli/command_error.h"
#include "core/io/file_read.h"
#include "gate/gate.h"
#include "gate/report_json.h"
#include "reference/freq_spec.h"

namespace ropecheck::cli {
namespace {

// A report is a few MB even for the exhaustive suite over many kernels.
std::string read_report_file(const std::string& path) {
  ReadLimits limits;
  limits.max_bytes = std::size_t{1} << 30;
  limits.regular_only = true;
  return read_file_bounded(path, limits);
}

}  // namespace

CLI::App* add_merge_command(CLI::App& app, MergeArgs& a) {
  auto* merge = app.add_subcommand("merge", "Join the JSON reports of `check --shard i/n --json` into one report");
  merge->add_option("reports", a.inputs, "The n shard reports (any order)")->required();
  add_report_options(merge, a.files);
  return merge;
}

int run_merge(const MergeArgs& a) {
  std::vector<GateReport> shards;
  for (const std::string& path : a.inputs)
    shards.push_back(naming_source(path, [&] { return report_from_json(read_report_file(path)); }));
  const GateReport merged = merge_reports(shards);  // refusals name the field (std::invalid_argument)
  std::cerr << "ropecheck merge: " << shards.size() << " shard(s), " << merged.cases << " of " << merged.total_cases
            << " case(s)\n";
  return finish_report(merged, a.files);
}

}  // namespace ropecheck::cli
