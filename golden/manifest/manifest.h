// SPDX-License-Identifier: MIT
// manifest.json of a golden export: what every case is (id, config, shapes,
// flags, why it exists, its position axes, its outputs other than the exact
// one, its KV-cache write) and which files hold it, with the SHA-256 and
// size of each; golden/schema/ropecheck_golden_manifest_v5.schema.json is
// its JSON Schema (v1: exports written before multi-axis cases, v2: before
// the outputs, v3: without fused cases, v4: KV-cache writes only).
// Readers verify every file against the manifest before parsing it, and the
// manifest against SHA256SUMS (the `sha256sum -c` list of all files).
#ifndef ROPECHECK_GOLDEN_MANIFEST_MANIFEST_H_
#define ROPECHECK_GOLDEN_MANIFEST_MANIFEST_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/config.h"
#include "golden/fused/cos_sin_cache_golden.h"
#include "golden/outputs/outputs.h"
#include "golden/fused/qk_norm_golden.h"
#include "golden/formats/storage_dtype.h"
#include "golden/formats/tensor_file.h"
#include "reference/axis_spec.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::golden {

// Version 2 (ABI 1.3, multi-axis RoPE): a case may carry "axes", and then
// its positions tensor is [num_axes, tokens] and a pair_axis tensor is
// written. Version 3 (issue #36): every case lists its "outputs" other than
// the exact one, the bug catalogue's invalid and acceptable outputs
// (golden/outputs/outputs.h), and the manifest defines their "bugClasses". Version 4
// (issue #32, fused cases): a case may carry "kvWrite", the KV-cache write
// it makes (golden/fused/kv_golden.h), its files then hold the caches before and
// after and their admissible codes, and its outputs name the caches a
// mutant left. An export is written in version 4 when it holds a fused
// case and in version 3 otherwise (the same bytes as before version 4);
// every version from kOldestManifestSchemaVersion on is read (a version 1
// file has no axes, a version 1 or 2 file no outputs, a version 1 to 3 file
// no kvWrite), a newer one is refused naming the versions this reader
// knows. Version 5 (issue #32, the fused inputs): a case may carry "qkNorm"
// (golden/fused/qk_norm_golden.h: the norm's weights in its files, its expected
// values the normalised ones rotated) or "cosSinCache" (the caller's cache,
// golden/fused/cos_sin_cache_golden.h); an export holding either is written in
// version 5, one with only KV-cache writes in version 4 (as before).
inline constexpr int kManifestSchemaVersion = 5;
inline constexpr int kKvManifestSchemaVersion = 4;     // an export whose fused cases are KV-cache writes only
inline constexpr int kPlainManifestSchemaVersion = 3;  // an export without fused cases
inline constexpr int kOldestManifestSchemaVersion = 1;
// The q and k elements of a qk-norm case at most (tokens * (qHeads +
// kvHeads) * head_dim): each one's exact norm is computed when it is read.
inline constexpr std::int64_t kMaxQkNormElements = std::int64_t{1} << 20;
// "ropecheck_golden_manifest_v<version>.schema.json"
std::string manifest_schema_name(int version);

enum class Format { kSafetensors, kNpy, kJson };
const char* format_name(Format f);
bool parse_format(std::string_view s, Format* out);

struct FileEntry {
  std::string path;  // relative to the export directory
  std::string sha256;
  std::uint64_t bytes = 0;
};

struct CaseEntry {
  int id = 0;
  std::string name, comment, model;
  std::vector<std::string> flags;
  RopeConfig config;  // layout always set
  ref::AxisSpec axes;  // num_axes 0: 1D (no "axes" in the manifest)
  ropecheck_dtype_t dtype = ROPECHECK_DTYPE_F32;
  ropecheck_direction_t direction = ROPECHECK_DIRECTION_FORWARD;
  std::int64_t tokens = 0;
  int q_heads = 0, kv_heads = 0;
  double attention_factor = 1;
  std::vector<FileEntry> files;
  std::vector<OutputEntry> outputs;  // schema 3: invalid and acceptable outputs
  // Schema 4: the case's KV-cache write as the manifest states it (layout
  // and declared arithmetic; slots, scales, v and caches are in its files).
  std::optional<GoldenKv> kv_write;
  // Schema 5: the case's qk-norm (its weights are in its files) or the
  // caller's cos/sin cache it reads (the cache is in its files).
  std::optional<GoldenNorm> qk_norm;
  std::optional<GoldenCosSinCache> cos_sin_cache;
};

struct Manifest {
  int schema_version = kManifestSchemaVersion;  // as read (written back unchanged)
  std::string generator;
  int reference_bits = 0;
  std::string suite;
  Format format = Format::kSafetensors;
  std::vector<CaseEntry> cases;
};

std::string manifest_to_json(const Manifest& m);
// Validates every field; throws FormatError naming "manifest.json" and the
// JSON path of the offending field.
Manifest parse_manifest(std::string_view json, const std::string& file);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_MANIFEST_MANIFEST_H_
