// SPDX-License-Identifier: MIT
// `ropecheck fuzz`: the definitions of cli/fuzz_command.h.
#include "cli/fuzz_command.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "cli/build_paths.h"
#include "cli/fuzz_tally.h"
#include "core/kernel/plugin.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"

extern char** environ;

namespace ropecheck::cli {
namespace fs = std::filesystem;

CLI::App* add_fuzz_command(CLI::App& app, FuzzArgs& a) {
  auto* fuzz = app.add_subcommand("fuzz", "Fuzz one implementation against the reference (libFuzzer, `fuzz` preset)");
  fuzz->add_option("--impl", a.impl, "Implementation to fuzz (required without --plugin)");
  fuzz->add_option("--plugin", a.plugin, "Fuzz the kernels of this plugin (shared library)");
  fuzz->add_option("--time", a.seconds, "Seconds to fuzz")->check(CLI::Range(1, 7 * 24 * 3600))->capture_default_str();
  fuzz->add_option("--jobs", a.jobs, "Parallel fuzzing jobs")->check(CLI::Range(1, 256))->capture_default_str();
  fuzz->add_option("--out", a.out_dir, "Directory for the corpus and findings (default ropecheck-fuzz-<impl>)");
  fuzz->add_option("--rate-every", a.rate_every,
                   "Print the executions so far and their rate every this many seconds (0: at the end only)")
      ->check(CLI::Range(0, 24 * 3600))
      ->capture_default_str();
  fuzz->add_option("--fuzzer", a.fuzzer, "Path to differential_fuzzer (default: build/fuzz next to this build)");
  auto* off = fuzz->add_flag("!--no-isolation", a.isolation,
                             "Run a plugin's kernels in the fuzzer's process (a crash is then libFuzzer's finding)");
  fuzz->add_option("--isolation", a.isolation_mode,
                   "How a plugin's kernels are isolated: 'worker' (default) or 'fork' (docs/PLUGINS.md); "
                   "built-in kernels run in the fuzzer's process, under its sanitizers")
      ->check(CLI::IsMember({"worker", "fork"}))
      ->capture_default_str()
      ->excludes(off);
  return fuzz;
}

namespace {

// Refuses an implementation the fuzzer would not find, before it starts:
// a plugin's kernel, a built-in one, or a mutant of the bug catalogue.
std::string unknown_impl(const FuzzArgs& a) {
  if (!a.plugin.empty()) {
    const Plugin p = load_plugin(a.plugin);  // throws PluginError for a bad plugin
    bool found = a.impl.empty();
    for (const auto* impl : p.impls) found |= a.impl == impl->name;
    return found ? "" : "--impl: plugin " + a.plugin + " has no implementation named '" + a.impl + "'";
  }
  if (a.impl.empty()) return "--impl is required (or --plugin)";
  if (find_impl(a.impl) == nullptr && mutant::find_mutant(a.impl) == nullptr)
    return "--impl: no implementation named '" + a.impl + "' (see `ropecheck list`, or a mutant_<bug> of `ropecheck mutants`)";
  return "";
}

// The sum of the tallies the fuzzer's processes wrote (one per process:
// -jobs runs several).
FuzzTally read_tallies(const fs::path& dir) {
  FuzzTally sum;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".txt") continue;
    std::ifstream f(e.path());
    std::stringstream text;
    text << f.rdbuf();
    if (const std::optional<FuzzTally> t = parse_tally(text.str())) sum.merge(*t);
  }
  return sum;
}

// Waits for the fuzzer, printing every `every` seconds the executions so
// far and their rate, overall and over the last interval, from the tally
// files the harness rewrites about once a second (fuzz/differential/tally.h):
// libFuzzer's own pulse lines come ever more rarely (at doubling execution
// counts) and count one job each.
int wait_printing_rate(pid_t pid, const fs::path& tally_dir, int every, int jobs) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point next = start + std::chrono::seconds(every);
  std::int64_t last_executions = 0;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const Clock::time_point now = Clock::now();
    if (every <= 0 || now < next) continue;
    next += std::chrono::seconds(every);
    const std::int64_t n = read_tallies(tally_dir).executions;
    std::cout << rate_line(n, n - last_executions, std::chrono::duration<double>(now - start).count(), every, jobs)
              << std::flush;
    last_executions = n;
  }
  return status;
}

}  // namespace

int run_fuzz(const FuzzArgs& a, const std::string& self_path) {
  if (const std::string bad = unknown_impl(a); !bad.empty()) {
    std::cerr << "error: " << bad << "\n";
    return 2;
  }
  // build/release/ropecheck -> build/fuzz/fuzz/differential_fuzzer
  const fs::path self = fs::weakly_canonical(fs::path(self_path));
  const fs::path fuzzer = a.fuzzer.empty() ? self.parent_path().parent_path() / "fuzz/fuzz/differential_fuzzer"
                                           : fs::path(a.fuzzer);
  if (!fs::exists(fuzzer)) {
    std::cerr << "error: --fuzzer: " << fuzzer.string() << " not found; build it with\n"
              << "  cmake --preset fuzz && cmake --build --preset fuzz\n";
    return 2;
  }
  const fs::path replay = self.parent_path() / "fuzz/differential_fuzzer_replay";
  const std::string label = a.impl.empty() ? fs::path(a.plugin).stem().string() : a.impl;
  const fs::path out = a.out_dir.empty() ? fs::path("ropecheck-fuzz-" + label) : fs::path(a.out_dir);
  fs::create_directories(out / "corpus");
  // Each run's tally alone: an earlier run's files would be summed too.
  const fs::path tally_dir = out / "tally";
  fs::remove_all(tally_dir);
  fs::create_directories(tally_dir);
  const fs::path seeds = fs::path(source_dir()) / "fuzz/corpus/differential_fuzzer";
  std::vector<std::string> args = {fuzzer.string(),
                                   "-max_total_time=" + std::to_string(a.seconds),
                                   "-artifact_prefix=" + (out / "").string(),
                                   "-print_final_stats=1",
                                   (out / "corpus").string()};
  if (a.jobs > 1) {
    args.push_back("-jobs=" + std::to_string(a.jobs));
    args.push_back("-workers=" + std::to_string(a.jobs));
  }
  if (fs::exists(seeds)) args.push_back(seeds.string());
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
  std::string env_prefix;  // repeated in the reproduce line
  if (!a.impl.empty()) env_prefix += "ROPECHECK_FUZZ_IMPL=" + a.impl + " ";
  if (!a.plugin.empty()) env_prefix += "ROPECHECK_FUZZ_PLUGIN=" + std::filesystem::absolute(a.plugin).string() + " ";
  const std::string isolation = a.isolation ? a.isolation_mode : "none";
  if (!a.plugin.empty()) env_prefix += "ROPECHECK_FUZZ_ISOLATION=" + isolation + " ";
  if (!a.impl.empty()) env_store.push_back("ROPECHECK_FUZZ_IMPL=" + a.impl);
  if (!a.plugin.empty()) env_store.push_back("ROPECHECK_FUZZ_PLUGIN=" + std::filesystem::absolute(a.plugin).string());
  if (!a.plugin.empty()) env_store.push_back("ROPECHECK_FUZZ_ISOLATION=" + isolation);
  env_store.push_back("ROPECHECK_FUZZ_TALLY=" + fs::absolute(tally_dir).string());
  std::vector<char*> argv, envp;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::cerr << "ropecheck fuzz: " << label << " for " << a.seconds << " s, " << a.jobs << " job(s)"
            << (a.plugin.empty() ? std::string() : ", the plugin's kernels " + (a.isolation ? "isolated (" + a.isolation_mode + ")" : std::string("in process")))
            << "; corpus and findings in " << out.string() << "\n";
  const auto start = std::chrono::steady_clock::now();
  pid_t pid;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0) {
    std::cerr << "error: cannot start " << argv[0] << "\n";
    return 2;
  }
  const int status = wait_printing_rate(pid, tally_dir, a.rate_every, a.jobs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << coverage_summary(read_tallies(tally_dir), wall, a.jobs);
  std::vector<fs::path> findings;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("crash-", 0) == 0 || n.rfind("timeout-", 0) == 0 || n.rfind("oom-", 0) == 0 ||
        n.rfind("leak-", 0) == 0)
      findings.push_back(e.path());
  }
  if (findings.empty() && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::cout << "ropecheck fuzz: no finding against " << label << " in " << a.seconds << " s\n";
    return 0;
  }
  std::cout << "ropecheck fuzz: FAILURE against " << label << "\n";
  for (const auto& f : findings)
    std::cout << "  input: " << f.string() << "\n  reproduce: " << env_prefix << replay.string() << " "
              << f.string() << "\n";
  return 1;
}

}  // namespace ropecheck::cli
