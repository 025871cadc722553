// SPDX-License-Identifier: MIT
// `ropecheck bench`: the definitions of cli/bench_command.h.
#include "cli/bench_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "cli/build_paths.h"
#include "cli/command_error.h"
#include "cli/common_options.h"
#include "cli/config_option.h"
#include "core/config/config.h"
#include "core/config/model_rope.h"
#include "core/io/atomic_file.h"
#include "core/io/file_read.h"
#include "core/isolation/interrupt.h"
#include "ropecheck/names.h"
#include "speed/bench_compare.h"
#include "speed/bench_html.h"
#include "speed/bench_json.h"
#include "speed/bench_run.h"
#include "speed/bench_table.h"
#include "speed/machine_info.h"

namespace ropecheck::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kDefaultModel[] = "llama-3.1-8b";

// A zoo family's config.json (golden/zoo), read as --config reads any.
speed::BenchModel read_model(const std::string& name, const std::string& path) {
  return speed::bench_model(name, read_model_rope_file(path));
}

// A bench report is a few MB at most.
speed::BenchReport read_bench_file(const std::string& path) {
  ReadLimits limits;
  limits.max_bytes = std::size_t{1} << 30;
  limits.regular_only = true;
  return speed::bench_from_json(read_file_bounded(path, limits));
}

int run_compare(const BenchArgs& a) {
  speed::BenchReport r[2];
  for (int i = 0; i < 2; ++i) {
    const std::string& path = a.compare_files[static_cast<std::size_t>(i)];
    r[i] = naming_source(path, [&] { return read_bench_file(path); });
  }
  const speed::Comparison c = speed::compare_bench(r[0], r[1]);
  speed::print_comparison(c, r[0], r[1], std::cout);
  return c.regressed() ? 1 : 0;
}

}  // namespace

CLI::App* add_bench_command(CLI::App& app, BenchArgs& a) {
  auto* bench = app.add_subcommand(
      "bench", "Time kernels on a model's prefill and decode shapes against memcpy and the in-place pass of the "
               "same run, their outputs judged (docs/GUIDE.md)");
  add_selection_options(bench, a.selection);
  bench->add_option("--model", a.models,
                    std::string("A zoo family whose shapes to time (repeatable; see `ropecheck zoo`; default ") +
                        kDefaultModel + " unless --config)");
  bench->add_option("--config", a.configs, "A model's config.json whose shapes to time (repeatable)")
      ->check(non_empty_path());
  bench->add_option("--step", a.steps, "prefill | decode (repeatable; default both)")
      ->check(CLI::IsMember({"prefill", "decode"}));
  bench->add_option("--prefill-tokens", a.prefill_tokens, "Tokens of the prefill step (one sequence)")
      ->check(integer_in(1, 1 << 20))
      ->capture_default_str();
  bench->add_option("--decode-tokens", a.decode_tokens, "Sequences of one token in the decode step")
      ->check(integer_in(1, 1 << 20))
      ->capture_default_str();
  bench->add_option("--dtype", a.dtypes, "Only these storage dtypes (f32, f16, bf16; default: every one declared)")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}));
  bench->add_option("--layout", a.layouts, "Only these layouts (half_split, interleaved; default: every one declared)")
      ->check(CLI::IsMember({"half_split", "interleaved"}));
  bench->add_option("--threads", a.threads, "Thread counts to time at (num_threads of each call; e.g. 1,2)")
      ->delimiter(',')
      ->check(integer_in(1, 256))
      ->capture_default_str();
  bench->add_option("--repetitions", a.repetitions, "Timed calls of the kernel and of each baseline per row")
      ->check(integer_in(2, 100000))
      ->capture_default_str();
  bench->add_option("--judge", a.judged,
                    "Kernel calls judged per row: 0 (the default) every timed one, else a random sample of that many")
      ->check(integer_in(0, 100000))
      ->capture_default_str();
  bench->add_flag("--cold", a.cold, "Flush every line of the call's buffers from the caches before each call");
  bench->add_option("--seed", a.seed,
                    "Seed of the inputs and of the order of the calls (an unsigned 64-bit integer, or 'random')")
      ->capture_default_str();
  bench->add_option("--json", a.json, "Also write the report as JSON (what `bench compare` reads)")
      ->check(non_empty_path());
  bench->add_option("--report", a.html,
                    "Also write a self-contained HTML report: the failures first, GB/s and the ratio to each baseline "
                    "per shape, sortable, and the ratio to the in-place pass plotted")
      ->check(non_empty_path());
  bench->add_flag("--quiet", a.quiet, "No progress lines");
  a.compare = bench->add_subcommand(
      "compare", "Compare two --json reports: a row whose ratio to its run's in-place pass dropped by more than the "
                 "measured noise is a regression (exit 1)");
  a.compare->add_option("reports", a.compare_files, "A.json B.json (B is judged against A)")
      ->required()
      ->expected(2)
      ->check(non_empty_path());
  return bench;
}

std::string validate_bench_args(const BenchArgs& a) {
  if (*a.compare) return {};
  if (a.seed != "random" &&
      (a.seed.empty() || a.seed.size() > 20 || a.seed.find_first_not_of("0123456789") != std::string::npos))
    return "--seed: must be an unsigned 64-bit integer or 'random' (got '" + a.seed + "')";
  if (a.selection.names.empty() && a.selection.plugins.empty())
    return "--impl or --plugin: name the kernel(s) to time (`ropecheck list` lists the built-in ones)";
  if (a.selection.isolation && a.selection.isolation_mode == "fork")
    return "--isolation fork: bench times calls in a persistent worker (--isolation worker), never in a child per "
           "call";
  if (a.cold && !can_flush_caches()) return "--cold: this build cannot flush cache lines on this CPU architecture";
  return {};
}

namespace {

// --model's zoo families and --config's files, or the default family.
std::vector<speed::BenchModel> bench_models(const BenchArgs& a) {
  std::vector<speed::BenchModel> models;
  const fs::path zoo = fs::path(source_dir()) / "golden" / "zoo";
  for (const std::string& name : a.models) {
    const fs::path path = zoo / (name + ".json");
    if (name.find('/') != std::string::npos || !fs::is_regular_file(path))
      throw std::runtime_error("--model: no zoo family '" + name + "' (see `ropecheck zoo`)");
    models.push_back(naming_source("--model " + name, [&] { return read_model(name, path.string()); }));
  }
  // --config as `check` and `golden export` read it (cli/config_option.h): the same message on refusal
  // and the same account of what was read.
  for (const std::string& path : a.configs) models.push_back(speed::bench_model(path, read_config_option(path, std::cerr)));
  if (models.empty()) models.push_back(read_model(kDefaultModel, (zoo / kDefaultModel).string() + ".json"));
  return models;
}

// The options' bits of dtypes (or layouts) named, each parsed by `parse`.
template <class T, class Parse>
std::uint32_t named_bits(const std::vector<std::string>& names, std::uint32_t all, Parse parse) {
  if (names.empty()) return all;
  std::uint32_t bits = 0;
  for (const std::string& n : names) {
    T t{};
    if (parse(n, &t)) bits |= 1u << t;
  }
  return bits;
}

speed::BenchOptions bench_options(const BenchArgs& a) {
  speed::BenchOptions o;
  o.models = bench_models(a);
  const bool prefill = a.steps.empty() || std::find(a.steps.begin(), a.steps.end(), "prefill") != a.steps.end();
  const bool decode = a.steps.empty() || std::find(a.steps.begin(), a.steps.end(), "decode") != a.steps.end();
  if (prefill) o.shapes.push_back({speed::Step::kPrefill, a.prefill_tokens});
  if (decode) o.shapes.push_back({speed::Step::kDecode, a.decode_tokens});
  o.dtypes = named_bits<ropecheck_dtype_t>(a.dtypes, o.dtypes, parse_dtype);
  o.layouts = named_bits<ropecheck_layout_t>(a.layouts, o.layouts, parse_layout);
  o.threads = a.threads;
  o.repetitions = a.repetitions;
  o.judged = a.judged;
  o.caches = a.cold ? CacheState::kCold : CacheState::kWarm;
  o.seed = a.seed == "random" ? (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()
                              : std::stoull(a.seed);
  o.isolated = a.selection.isolation;
  o.isolation.timeout_seconds = a.selection.timeout_seconds;
  o.isolation.memory_limit_gib = a.selection.memory_limit_gib;
  if (!a.quiet)
    o.progress = [](const speed::BenchRow& row) {
      std::cerr << "  " << row.name() << ": ";
      if (row.status == speed::RowStatus::kTimed)
        std::cerr << std::fixed << std::setprecision(1) << row.kernel.gbps() << " GB/s (" << std::setprecision(2)
                  << row.ratio_to(row.rmw) << "x the in-place pass)\n" << std::defaultfloat;
      else
        std::cerr << speed::row_status_name(row.status) << "\n";
    };
  return o;
}

speed::BenchReport timed_run(const std::vector<const ropecheck_impl_t*>& impls, const speed::BenchOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const std::string load_before = speed::load_averages();
  speed::BenchReport r = speed::run_bench(impls, o);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.machine = speed::machine_description();
  r.date = speed::utc_date_time();
  r.load_before = load_before;
  r.load_after = speed::load_averages();
  return r;
}

}  // namespace

int run_bench_command(const BenchArgs& a) {
  if (*a.compare) return run_compare(a);
  install_interrupt_handlers();
  if (const std::string bad = validate_bench_args(a); !bad.empty()) {
    std::cerr << "error: " << bad << "\n";
    return 2;
  }
  const speed::BenchOptions o = bench_options(a);
  const std::vector<const ropecheck_impl_t*> impls = select_impls(a.selection).impls;
  std::cerr << "ropecheck bench: " << impls.size() << " implementation(s), " << o.models.size() << " model(s), "
            << o.repetitions << " timed calls per series, caches " << cache_state_name(o.caches) << ", seed "
            << o.seed << (o.isolated ? "" : ", NOT isolated (--no-isolation: threads a call leaves are not seen)")
            << "\n";
  const speed::BenchReport r = timed_run(impls, o);
  speed::print_bench(r, std::cout);
  if (!a.json.empty()) write_file_atomically(a.json, speed::bench_to_json(r));
  if (!a.html.empty()) {
    std::ostringstream html;
    speed::write_bench_html(r, html);
    write_file_atomically(a.html, html.str());
  }
  if (!r.interrupted.empty()) return interrupted_exit_code();
  return r.passed() ? 0 : 1;
}

}  // namespace ropecheck::cli
