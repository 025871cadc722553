// SPDX-License-Identifier: MIT
#include "cli/merge_command.h"

#include <iostream>
#include <sstream>

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
  for (const std::string& path : a.inputs) {
    try {
      shards.push_back(report_from_json(read_report_file(path)));
    } catch (const ref::ConfigError& e) {
      std::cerr << "error: " << path << ": " << e.what() << "\n";
      return 2;
    } catch (const std::runtime_error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    }
  }
  GateReport merged;
  try {
    merged = merge_reports(shards);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "ropecheck merge: " << shards.size() << " shard(s), " << merged.cases << " of " << merged.total_cases
            << " case(s)\n";
  return finish_report(merged, a.files);
}

}  // namespace ropecheck::cli
