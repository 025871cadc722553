// SPDX-License-Identifier: MIT
// `ropecheck golden export`: the definitions of golden/export/exporter.h.
#include "golden/export/exporter.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/io/atomic_file.h"
#include "core/isolation/interrupt.h"
#include "core/isolation/isolation.h"
#include "ropecheck/dtype.h"
#include "core/error_model/error_model.h"
#include "golden/catalog/catalog.h"
#include "core/parallel/ordered_parallel.h"
#include "core/io/sha256.h"
#include "core/kernel/kernel_call.h"
#include "core/judge/reference_result.h"
#include "reference/real.h"

#ifndef ROPECHECK_VERSION
#define ROPECHECK_VERSION "0"
#endif

namespace ropecheck::golden {
namespace fs = std::filesystem;
namespace {

// Staging and swap directories (<name>.partial-<pid>, <name>.old-<pid>)
// whose process is gone: an export killed with SIGKILL leaves them, and
// nothing else would ever remove them. A live pid keeps its directory (it
// may be another export running now).
void remove_stale_staging(const fs::path& parent, const std::string& name) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string n = e.path().filename().string();
    for (const std::string tag : {".partial-", ".old-"}) {
      const std::string prefix = name + tag;
      if (n.size() <= prefix.size() || n.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string pid = n.substr(prefix.size());
      if (pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) continue;
      const pid_t p = static_cast<pid_t>(std::stol(pid));
      if (p != ::getpid() && ::kill(p, 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
    }
  }
}

// The fused part a case has, and the capability a catalogue row must grant
// to run there: a plain case runs the rows a plain case can show
// (shown_mutants), a fused one only the rows granting its part's
// capability, each a group of its own (each shows a different bug).
enum class CasePart { kPlain, kKvWrite, kQkNorm, kCallerCache };
CasePart case_part(const GoldenCase& g) {
  return g.kv ? CasePart::kKvWrite : g.norm ? CasePart::kQkNorm : g.c.caller_cache_dtype ? CasePart::kCallerCache
                                                                                       : CasePart::kPlain;
}
std::uint32_t part_capability(CasePart p) {
  switch (p) {
    case CasePart::kKvWrite: return ROPECHECK_CAP_KV_CACHE_WRITE;
    case CasePart::kQkNorm: return ROPECHECK_CAP_QK_NORM;
    case CasePart::kCallerCache: return ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
    default: return 0;
  }
}

// A case's tensors with the inputs and exact result the mutants' runs are
// judged against.
struct BuiltCase {
  CaseTensors tensors;
  QkBuffers in;
  ReferenceResult ref;
  std::optional<QkBuffers> control;  // what the clean kernel wrote
};
BuiltCase build_case(const GoldenCase& g, const ropecheck_impl_t* control) {
  BuiltCase b;
  b.in = make_inputs(g.c);
  // A qk-norm case's inputs: every head scaled as its norm says (some near
  // eps's order).
  if (g.norm) b.in = inputs_for_norm(g.c, b.in, g.norm->norm);
  b.ref = compute_reference(g.c, b.in);
  b.tensors = derive_case_tensors(g.c, b.in, b.ref, "golden case " + std::to_string(g.id) + " (" + g.name + ")",
                                  {g.kv ? &*g.kv : nullptr, g.norm ? &*g.norm : nullptr});
  b.tensors.flags.insert(b.tensors.flags.end(), g.extra_flags.begin(), g.extra_flags.end());
  // The catalogue's clean kernel writes no cache, normalises nothing and
  // reads no caller's cache: a fused case has no control.
  if (control && case_part(g) == CasePart::kPlain && outside_capabilities(*control, g.c).empty()) {
    KernelRun run = call_kernel(*control, g.c, b.in);
    if (run.ok()) b.control = std::move(run.out);
  }
  return b;
}

std::string case_stem(int id) {
  char b[16];
  std::snprintf(b, sizeof b, "%04d", id);
  return b;
}

// The suite an export writes: a named one, or the cases of a model's config.
std::vector<GoldenCase> suite_of(const ExportOptions& o) {
  return !o.config ? build_golden_suite(o.suite)
                   : build_config_suite(*o.config, o.config_name,
                                        o.committed_size ? ConfigSuiteSize::kCommitted : ConfigSuiteSize::kFull);
}

// out's staging directory, made empty beside it (<name>.partial-<pid>),
// once out is known to be empty or a golden export.
fs::path start_staging(const fs::path& out, const fs::path& parent) {
  if (fs::exists(out) && !fs::is_empty(out) && !fs::exists(out / "manifest.json"))
    throw std::runtime_error(out.string() + ": exists and is not a golden export (no manifest.json); refusing to replace it");
  fs::create_directories(parent);
  remove_stale_staging(parent, out.filename().string());
  const fs::path staging = parent / (out.filename().string() + ".partial-" + std::to_string(::getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging / "cases");
  return staging;
}

// The staging directory and what has been written to it: each file's
// SHA256SUMS line, and the count of bytes.
struct Staging {
  fs::path dir;
  std::string sums;
  ExportSummary summary;

  // Writes `content` as the file `rel`, listed in SHA256SUMS and, given a
  // case entry, in its files.
  void emit(const std::string& rel, const std::string& content, CaseEntry* e) {
    write_file_atomically((dir / rel).string(), content);
    const std::string sha = sha256_hex(content);
    if (e) e->files.push_back({rel, sha, content.size()});
    sums += sha + "  " + rel + "\n";
    summary.bytes += content.size();
  }
};

// The manifest's fields before its cases. Version 4 only where a case
// needs it: an export without fused cases is the same bytes as before
// version 4 (golden/manifest/manifest.h).
Manifest manifest_head(const ExportOptions& o, const std::vector<GoldenCase>& suite) {
  Manifest m;
  m.generator = generator_version();
  m.reference_bits = ref::kRealBits;
  m.suite = !o.config ? o.suite : "config " + o.config_name;
  m.format = o.format;
  m.schema_version = kPlainManifestSchemaVersion;
  for (const GoldenCase& g : suite)
    if (g.kv) m.schema_version = std::max(m.schema_version, kKvManifestSchemaVersion);
  for (const GoldenCase& g : suite)
    if (g.norm || g.c.caller_cache_dtype) m.schema_version = kManifestSchemaVersion;
  return m;
}

// What every phase of an export reads: the suite, the worker threads, the
// caller's progress report, the files' format.
struct ExportRun {
  const std::vector<GoldenCase>& suite;
  int threads;
  const std::function<void(int done, int total)>& progress;
  Format format;
  int cases() const { return static_cast<int>(suite.size()); }
};

// Cases are independent: built on worker threads, held in order; progress
// counts them out of `total` (the cases and the catalogue's bug classes).
std::vector<BuiltCase> build_cases(const ExportRun& r, const ropecheck_impl_t* control, int total) {
  const int n = r.cases();
  std::vector<BuiltCase> built(static_cast<std::size_t>(n));
  ordered_parallel<BuiltCase>(
      n, r.threads,
      [&](int i) {
        if (interrupt_signal()) return BuiltCase{};  // dropped: consume stops
        return build_case(r.suite[static_cast<std::size_t>(i)], control);
      },
      [&](int i, BuiltCase b) {
        built[static_cast<std::size_t>(i)] = std::move(b);
        if (r.progress) r.progress(i + 1, total);
        return !interrupt_signal();
      });
  return built;
}

// The mutants in groups, one thread each: a bug class's rows in the
// catalogue's order, over every case that lacks an invalid or an
// acceptable output of the class yet (a case keeps the first of each). A
// row runs over all its cases in a row, so its isolated worker serves them
// all (a thread keeps a few workers: case by case, every call would fork
// one anew). On a fused case each row granting the KV-cache write is a
// group of its own (the fused rows are nearly all KvCacheWrite, and each
// shows a different bug), and only those run there; the same for the rows
// granting QK_NORM on a qk-norm case and CALLER_COS_SIN_CACHE on a case
// reading the caller's cache (case_part).
struct MutantGroups {
  std::vector<std::vector<MutantSource>> rows;
  std::vector<CasePart> part;  // the cases each group runs on
};
MutantGroups mutant_groups(const ExportOptions& o, const std::vector<GoldenCase>& suite,
                           const std::vector<MutantSource>& mutants) {
  MutantGroups g{by_bug_class(mutants), {}};
  g.part.assign(g.rows.size(), CasePart::kPlain);
  for (const CasePart part : {CasePart::kKvWrite, CasePart::kQkNorm, CasePart::kCallerCache}) {
    bool any = false;
    for (const GoldenCase& c : suite) any |= case_part(c) == part;
    if (!any || o.committed_size) continue;
    for (MutantSource x : rows_granting(o.mutants, part_capability(part))) {
      x.impl = isolate(x.impl, IsolationOptions{});
      g.rows.push_back({x});
      g.part.push_back(part);
    }
  }
  return g;
}

// Per case: a group's invalid and its acceptable output.
using Kept = std::vector<std::array<std::optional<Candidate>, 2>>;
Kept run_group(const ExportRun& r, std::span<const MutantSource> rows, CasePart part,
               const std::vector<BuiltCase>& built) {
  const int n = r.cases();
  Kept out(static_cast<std::size_t>(n));
  for (const MutantSource& x : rows)
    for (int i = 0; i < n && !interrupt_signal(); ++i) {
      auto& slot = out[static_cast<std::size_t>(i)];
      if (slot[0] && slot[1]) continue;
      const GoldenCase& g = r.suite[static_cast<std::size_t>(i)];
      if (part != case_part(g)) continue;
      const BuiltCase& b = built[static_cast<std::size_t>(i)];
      std::optional<Candidate> k =
          run_mutant(x, {g.c, b.in, b.ref, b.tensors.tensors, b.control ? &*b.control : nullptr,
                         {g.kv ? &*g.kv : nullptr, g.norm ? &*g.norm : nullptr}});
      if (!k) continue;
      auto& place = slot[k->entry.result == OutputResult::kInvalid ? 0 : 1];
      if (!place) place = std::move(k);
    }
  return out;
}

// Every group's outputs, the groups on worker threads; progress goes on
// from the cases built.
std::vector<Kept> run_groups(const ExportRun& r, const MutantGroups& groups, const std::vector<BuiltCase>& built) {
  const int n = r.cases(), nc = static_cast<int>(groups.rows.size());
  std::vector<Kept> runs(static_cast<std::size_t>(nc));
  if (interrupt_signal()) return runs;
  ordered_parallel<Kept>(
      nc, r.threads,
      [&](int j) {
        const auto at = static_cast<std::size_t>(j);
        return run_group(r, groups.rows[at], groups.part[at], built);
      },
      [&](int j, Kept k) {
        runs[static_cast<std::size_t>(j)] = std::move(k);
        if (r.progress) r.progress(n + j + 1, n + nc);
        return !interrupt_signal();
      });
  return runs;
}

// A case's manifest entry but its outputs and files.
CaseEntry case_entry(const GoldenCase& g, const CaseTensors& t) {
  CaseEntry e;
  e.id = g.id;
  e.name = g.name;
  e.comment = g.comment;
  e.model = g.model;
  e.flags = t.flags;
  e.config.freq = g.c.freq;
  e.config.shape = g.c.shape;
  e.config.layout = g.c.layout;
  e.axes = g.c.axes;
  e.dtype = g.c.dtype;
  e.direction = g.c.direction;
  e.tokens = g.c.tokens;
  e.q_heads = g.c.q_heads;
  e.kv_heads = g.c.kv_heads;
  e.attention_factor = t.attention_factor;
  e.kv_write = g.kv;
  e.qk_norm = g.norm;
  if (g.c.caller_cache_dtype) e.cos_sin_cache = golden_cos_sin_cache(g.c);
  return e;
}

// A case's file(s) in the export's format: cases/<id>.safetensors or
// .json, or a folder cases/<id>/ of one .npy per tensor.
void write_case_files(Staging& s, Format format, int id, const std::vector<Tensor>& tensors, CaseEntry* e) {
  const std::string stem = "cases/" + case_stem(id);
  switch (format) {
    case Format::kSafetensors:
      s.emit(stem + ".safetensors", write_safetensors(tensors), e);
      break;
    case Format::kJson:
      s.emit(stem + ".json", write_hex_json(tensors), e);
      break;
    case Format::kNpy:
      fs::create_directories(s.dir / stem);
      for (const Tensor& x : tensors) s.emit(stem + "/" + x.name + ".npy", write_npy(x), e);
      break;
  }
}

// Every case into the manifest and its files, in id order, each given the
// outputs the groups kept for it (a built case's memory goes once written).
void write_cases(const ExportRun& r, std::vector<BuiltCase>& built, std::vector<Kept>& runs, Staging& s,
                 Manifest* m) {
  for (int i = 0; i < r.cases() && !interrupt_signal(); ++i) {
    const GoldenCase& g = r.suite[static_cast<std::size_t>(i)];
    CaseTensors& t = built[static_cast<std::size_t>(i)].tensors;
    std::vector<std::optional<Candidate>> candidates;
    for (auto& k : runs)
      for (auto& c : k[static_cast<std::size_t>(i)]) candidates.push_back(std::move(c));
    std::vector<OutputEntry> outputs = keep_outputs(std::move(candidates), &t.tensors);
    CaseEntry e = case_entry(g, t);
    e.outputs = std::move(outputs);
    write_case_files(s, r.format, g.id, t.tensors, &e);
    m->cases.push_back(std::move(e));
    ++s.summary.cases;
    built[static_cast<std::size_t>(i)] = BuiltCase{};
  }
}

// Swaps the finished export into place.
void swap_into_place(const fs::path& staging, const fs::path& out, const fs::path& parent) {
  const fs::path old = parent / (out.filename().string() + ".old-" + std::to_string(::getpid()));
  if (fs::exists(out)) fs::rename(out, old);
  fs::rename(staging, out);
  fs::remove_all(old);
}

}  // namespace

std::string generator_version() { return std::string("ropecheck ") + ROPECHECK_VERSION; }

ExportSummary export_golden(const ExportOptions& o) {
  const std::vector<GoldenCase> suite = suite_of(o);
  if (o.out_dir.empty()) throw std::invalid_argument("--out: a directory is required");
  const fs::path out = fs::path(o.out_dir).lexically_normal();
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  Staging s{start_staging(out, parent), {}, {}};
  Manifest m = manifest_head(o, suite);
  // The mutants run isolated, as the gate runs a kernel it did not write:
  // some write out of bounds (k_rotated_with_q_heads under GQA).
  // The size committed beside the zoo stores no mutant outputs (ConfigSuiteSize).
  std::vector<MutantSource> mutants = o.committed_size ? std::vector<MutantSource>{} : shown_mutants(o.mutants);
  for (MutantSource& x : mutants) x.impl = isolate(x.impl, IsolationOptions{});
  const ropecheck_impl_t* control = o.control && !mutants.empty() ? isolate(o.control, IsolationOptions{}) : nullptr;
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const ExportRun run{suite, threads, o.progress, o.format};
  // Stopped by SIGINT / SIGTERM (or an error): the staging directory goes,
  // the previous export stays as it was.
  auto abandon = [&] {
    std::error_code ec;
    fs::remove_all(s.dir, ec);
  };
  try {
    std::vector<BuiltCase> built =
        build_cases(run, control, run.cases() + static_cast<int>(by_bug_class(mutants).size()));
    std::vector<Kept> runs = run_groups(run, mutant_groups(o, suite, mutants), built);
    write_cases(run, built, runs, s, &m);
  } catch (...) {
    abandon();
    throw;
  }
  if (interrupt_signal()) {
    abandon();
    throw std::runtime_error(std::string("golden export: interrupted by ") + interrupt_name() + "; " + out.string() +
                             " is as it was");
  }
  s.emit("manifest.json", manifest_to_json(m), nullptr);
  write_file_atomically((s.dir / "SHA256SUMS").string(), s.sums);
  swap_into_place(s.dir, out, parent);
  return s.summary;
}

}  // namespace ropecheck::golden
