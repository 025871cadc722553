// SPDX-License-Identifier: MIT
// `ropecheck zoo`: the definitions of cli/zoo_command.h.
#include "cli/zoo_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/build_paths.h"
#include "cli/common_options.h"
#include "core/io/file_read.h"
#include "core/config/json_reader.h"
#include "core/config/model_rope.h"

namespace ropecheck::cli {
namespace {

namespace fs = std::filesystem;

// The zoo's own record of a family: _ropecheck_zoo.<key>, "" when absent.
std::string zoo_field(const nlohmann::json& j, const char* key) {
  if (!j.contains("_ropecheck_zoo") || !j["_ropecheck_zoo"].is_object()) return "";
  const nlohmann::json& z = j["_ropecheck_zoo"];
  return z.contains(key) && z[key].is_string() ? z[key].get<std::string>() : "";
}

}  // namespace

CLI::App* add_zoo_command(CLI::App& app, ZooArgs& a) {
  auto* zoo = app.add_subcommand("zoo", "List the model zoo: each family's RoPE per layer type and its source");
  zoo->add_option("--dir", a.dir, "The zoo's directory (default: the source tree's golden/zoo)")
      ->check(non_empty_path());
  return zoo;
}

int run_zoo(const ZooArgs& a) {
  const fs::path dir = a.dir.empty() ? fs::path(source_dir()) / "golden" / "zoo" : fs::path(a.dir);
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  if (ec) {
    std::cerr << "error: --dir " << dir.string() << ": " << ec.message() << "\n";
    return 2;
  }
  std::sort(files.begin(), files.end());
  int bad = 0;
  for (const fs::path& f : files) {
    try {
      ReadLimits lim;
      lim.max_bytes = kMaxConfigBytes;
      const std::string text = read_file_bounded(f.string(), lim);
      const ModelRope m = parse_model_rope(text);
      const nlohmann::json j = parse_json_strictly(text);
      std::cout << "## " << f.stem().string() << ": " << zoo_field(j, "family") << "\n"
                << "model: " << zoo_field(j, "model") << " (" << zoo_field(j, "revision") << ")\n"
                << "source: " << zoo_field(j, "read_from") << "\n";
      std::istringstream lines(describe_model_rope(m));
      for (std::string line; std::getline(lines, line);) std::cout << "  " << line << "\n";
      if (const std::string note = zoo_field(j, "note"); !note.empty()) std::cout << "note: " << note << "\n";
      std::cout << "check: ropecheck check --config " << f.string() << "\n\n";
    } catch (const std::exception& e) {
      std::cerr << "error: " << f.string() << ": " << e.what() << "\n";
      ++bad;
    }
  }
  std::cout << files.size() << " families in " << dir.string() << "\n";
  return bad ? 1 : 0;
}

}  // namespace ropecheck::cli
