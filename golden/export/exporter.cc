// SPDX-License-Identifier: MIT
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
#include <stdexcept>
#include <thread>

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
                                  g.kv ? &*g.kv : nullptr, g.norm ? &*g.norm : nullptr);
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

}  // namespace

std::string generator_version() { return std::string("ropecheck ") + ROPECHECK_VERSION; }


ExportSummary export_golden(const ExportOptions& o) {
  const std::vector<GoldenCase> suite =
      !o.config ? build_golden_suite(o.suite)
                : build_config_suite(*o.config, o.config_name,
                                     o.committed_size ? ConfigSuiteSize::kCommitted : ConfigSuiteSize::kFull);
  if (o.out_dir.empty()) throw std::invalid_argument("--out: a directory is required");
  const fs::path out = fs::path(o.out_dir).lexically_normal();
  if (fs::exists(out) && !fs::is_empty(out) && !fs::exists(out / "manifest.json"))
    throw std::runtime_error(out.string() + ": exists and is not a golden export (no manifest.json); refusing to replace it");
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  fs::create_directories(parent);
  remove_stale_staging(parent, out.filename().string());
  const fs::path staging = parent / (out.filename().string() + ".partial-" + std::to_string(::getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging / "cases");

  Manifest m;
  m.generator = generator_version();
  m.reference_bits = ref::kRealBits;
  m.suite = !o.config ? o.suite : "config " + o.config_name;
  m.format = o.format;
  // Version 4 only where a case needs it: an export without fused cases is
  // the same bytes as before version 4 (golden/manifest/manifest.h).
  m.schema_version = kPlainManifestSchemaVersion;
  for (const GoldenCase& g : suite)
    if (g.kv) m.schema_version = std::max(m.schema_version, kKvManifestSchemaVersion);
  for (const GoldenCase& g : suite)
    if (g.norm || g.c.caller_cache_dtype) m.schema_version = kManifestSchemaVersion;
  ExportSummary summary;
  std::string sums;
  auto emit = [&](const std::string& rel, const std::string& content, CaseEntry* e) {
    write_file_atomically((staging / rel).string(), content);
    const std::string sha = sha256_hex(content);
    if (e) e->files.push_back({rel, sha, content.size()});
    sums += sha + "  " + rel + "\n";
    summary.bytes += content.size();
  };
  // The mutants run isolated, as the gate runs a kernel it did not write:
  // some write out of bounds (k_rotated_with_q_heads under GQA).
  // The size committed beside the zoo stores no mutant outputs (ConfigSuiteSize).
  std::vector<MutantSource> mutants = o.committed_size ? std::vector<MutantSource>{} : shown_mutants(o.mutants);
  for (MutantSource& x : mutants) x.impl = isolate(x.impl, IsolationOptions{});
  const ropecheck_impl_t* control = o.control && !mutants.empty() ? isolate(o.control, IsolationOptions{}) : nullptr;
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int n = static_cast<int>(suite.size());
  // Stopped by SIGINT / SIGTERM (or an error): the staging directory goes,
  // the previous export stays as it was.
  auto abandon = [&] {
    std::error_code ec;
    fs::remove_all(staging, ec);
  };
  try {
    // Cases are independent: built on worker threads, held in order.
    std::vector<BuiltCase> built(static_cast<std::size_t>(n));
    ordered_parallel<BuiltCase>(
        n, threads,
        [&](int i) {
          if (interrupt_signal()) return BuiltCase{};  // dropped: consume stops
          return build_case(suite[static_cast<std::size_t>(i)], control);
        },
        [&](int i, BuiltCase b) {
          built[static_cast<std::size_t>(i)] = std::move(b);
          if (o.progress) o.progress(i + 1, n + static_cast<int>(by_bug_class(mutants).size()));
          return !interrupt_signal();
        });
    // Then the mutants, a bug class on one thread: its rows in the
    // catalogue's order, each over every case that lacks an invalid or an
    // acceptable output of the class yet (a case keeps the first of each).
    // A row runs over all its cases in a row, so its isolated worker serves
    // them all (a thread keeps a few workers: case by case, every call would
    // fork one anew). On a fused case each row granting the KV-cache write
    // is a group of its own (the fused rows are nearly all KvCacheWrite, and
    // each shows a different bug), and only those run there; the same for
    // the rows granting QK_NORM on a qk-norm case and CALLER_COS_SIN_CACHE
    // on a case reading the caller's cache (case_part).
    std::vector<std::vector<MutantSource>> classes = by_bug_class(mutants);
    std::vector<CasePart> group_part(classes.size(), CasePart::kPlain);
    for (const CasePart part : {CasePart::kKvWrite, CasePart::kQkNorm, CasePart::kCallerCache}) {
      bool any = false;
      for (const GoldenCase& g : suite) any |= case_part(g) == part;
      if (!any || o.committed_size) continue;
      for (MutantSource x : rows_granting(o.mutants, part_capability(part))) {
        x.impl = isolate(x.impl, IsolationOptions{});
        classes.push_back({x});
        group_part.push_back(part);
      }
    }
    const int nc = static_cast<int>(classes.size());
    // Per class and case: its invalid and its acceptable output.
    using Kept = std::vector<std::array<std::optional<Candidate>, 2>>;
    std::vector<Kept> runs(static_cast<std::size_t>(nc));
    if (!interrupt_signal())
      ordered_parallel<Kept>(
          nc, threads,
          [&](int j) {
            Kept r(static_cast<std::size_t>(n));
            const CasePart part = group_part[static_cast<std::size_t>(j)];
            for (const MutantSource& x : classes[static_cast<std::size_t>(j)])
              for (int i = 0; i < n && !interrupt_signal(); ++i) {
                auto& slot = r[static_cast<std::size_t>(i)];
                if (slot[0] && slot[1]) continue;
                const GoldenCase& g = suite[static_cast<std::size_t>(i)];
                if (part != case_part(g)) continue;
                const BuiltCase& b = built[static_cast<std::size_t>(i)];
                std::optional<Candidate> k =
                    run_mutant(x, g.c, b.in, b.ref, b.tensors.tensors, b.control ? &*b.control : nullptr,
                               g.kv ? &*g.kv : nullptr, g.norm ? &*g.norm : nullptr);
                if (!k) continue;
                auto& place = slot[k->entry.result == OutputResult::kInvalid ? 0 : 1];
                if (!place) place = std::move(k);
              }
            return r;
          },
          [&](int j, Kept r) {
            runs[static_cast<std::size_t>(j)] = std::move(r);
            if (o.progress) o.progress(n + j + 1, n + nc);
            return !interrupt_signal();
          });
    for (int i = 0; i < n && !interrupt_signal(); ++i) {
      const GoldenCase& g = suite[static_cast<std::size_t>(i)];
      CaseTensors& t = built[static_cast<std::size_t>(i)].tensors;
      std::vector<std::optional<Candidate>> candidates;
      for (auto& r : runs)
        for (auto& k : r[static_cast<std::size_t>(i)]) candidates.push_back(std::move(k));
      CaseEntry e;
      e.outputs = keep_outputs(std::move(candidates), &t.tensors);
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
      const std::string stem = "cases/" + case_stem(g.id);
      switch (o.format) {
        case Format::kSafetensors:
          emit(stem + ".safetensors", write_safetensors(t.tensors), &e);
          break;
        case Format::kJson:
          emit(stem + ".json", write_hex_json(t.tensors), &e);
          break;
        case Format::kNpy:
          fs::create_directories(staging / stem);
          for (const Tensor& x : t.tensors) emit(stem + "/" + x.name + ".npy", write_npy(x), &e);
          break;
      }
      m.cases.push_back(std::move(e));
      ++summary.cases;
      built[static_cast<std::size_t>(i)] = BuiltCase{};  // written: its memory goes
    }
  } catch (...) {
    abandon();
    throw;
  }
  if (interrupt_signal()) {
    abandon();
    throw std::runtime_error(std::string("golden export: interrupted by ") + interrupt_name() + "; " + out.string() +
                             " is as it was");
  }
  emit("manifest.json", manifest_to_json(m), nullptr);
  write_file_atomically((staging / "SHA256SUMS").string(), sums);

  // Swap the finished export into place.
  const fs::path old = parent / (out.filename().string() + ".old-" + std::to_string(::getpid()));
  if (fs::exists(out)) fs::rename(out, old);
  fs::rename(staging, out);
  fs::remove_all(old);
  return summary;
}

}  // namespace ropecheck::golden
