// SPDX-License-Identifier: MIT
// The definitions of fuzz/differential/tally.h.
#include "fuzz/differential/tally.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/cases/axis_cases.h"
#include "core/error_model/cache_write_budget.h"
#include "core/judge/judge.h"
#include "ropecheck/names.h"

namespace ropecheck::fuzz {
namespace {

constexpr const char* kFusedNames[kFusedFormCount] = {"none", "kv_write", "kv_write_mla_joint",
                                                      "kv_write_mla_split", "qk_norm_w", "qk_norm_1+w"};
constexpr const char* kAxisNames[] = {"1d", "mrope_sections", "mrope_interleaved", "mrope_text",
                                      "axial_2d", "axes_3d", "axes_table"};

int axis_slot(const Case& c) {
  if (!c.axes.multi()) return 0;
  const std::string name = axis_family_name(c);
  for (int i = 1; i < 7; ++i)
    if (name == kAxisNames[i]) return i;
  return 0;
}

}  // namespace

Tally::Tally(const std::vector<const ropecheck_impl_t*>& impls)
    : judged_(impls.size()), skipped_(impls.size()), start_(std::chrono::steady_clock::now()), last_write_(start_) {
  for (const ropecheck_impl_t* impl : impls) kernels_.emplace_back(impl->name);
  if (const char* dir = std::getenv("ROPECHECK_FUZZ_TALLY"); dir && *dir)
    path_ = std::string(dir) + "/tally-" + std::to_string(::getpid()) + ".txt";
}

void Tally::judged(int kernel, const Case& c, const CallForm& f) {
  ++judged_[static_cast<std::size_t>(kernel)];
  ++schemes_[static_cast<std::size_t>(c.freq.scheme) % schemes_.size()];
  ++dtypes_[static_cast<std::size_t>(c.dtype) % dtypes_.size()];
  ++layouts_[static_cast<std::size_t>(c.layout) % layouts_.size()];
  ++memory_[static_cast<std::size_t>(c.memory)];
  ++fused_[static_cast<std::size_t>(f.fused)];
  if (f.kv_cache_dtype >= 0) ++kv_dtypes_[static_cast<std::size_t>(f.kv_cache_dtype) % kv_dtypes_.size()];
  if (f.caller_cache_dtype >= 0) ++caller_cache_[static_cast<std::size_t>(f.caller_cache_dtype) % caller_cache_.size()];
  own_cache_ += f.own_cache;
  ++position_bins_[static_cast<std::size_t>(position_bin(c.max_abs_position()))];
  bool negative = false;
  for (const std::int64_t p : c.positions) negative |= p < 0;
  negative_ += negative;
  ++(c.position_type == ROPECHECK_INDEX_INT32 ? int32_ids_ : int64_ids_);
  ++axes_[static_cast<std::size_t>(axis_slot(c))];
  ++direction_[c.direction == ROPECHECK_DIRECTION_INVERSE ? 1 : 0];
  ++placement_[c.in_place ? 0 : 1];
  partial_ += c.shape.rotary_dim < c.shape.head_dim;
  batched_ += c.batch_seq_len() > 0;
  raw_ += f.raw_bits;
}

void Tally::skipped(int kernel, const std::string& why) {
  ++skipped_[static_cast<std::size_t>(kernel)];
  // The reason up to its first detail, one word for the file's format.
  std::string key = why.substr(0, why.find_first_of("(,:"));
  while (!key.empty() && key.back() == ' ') key.pop_back();
  for (char& ch : key)
    if (ch == ' ') ch = '_';
  for (auto& [k, n] : skipped_for_)
    if (k == key) {
      ++n;
      return;
    }
  skipped_for_.emplace_back(key, 1);
}

void Tally::executed() {
  ++executions_;
  // The clock every 16 executions: `ropecheck fuzz`'s progress lines read
  // the file, and a KV-write kernel runs only a few hundred a second.
  if (path_.empty() || executions_ % 16 != 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_write_ < std::chrono::seconds(1)) return;
  last_write_ = now;
  write();
}

cli::FuzzTally Tally::as_tally() const {
  cli::FuzzTally t;
  t.executions = executions_;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  for (std::size_t k = 0; k < kernels_.size(); ++k) t.add("judged", kernels_[k], judged_[k]);
  for (std::size_t k = 0; k < kernels_.size(); ++k) t.add("skipped", kernels_[k], skipped_[k]);
  for (const auto& [why, n] : skipped_for_) t.add("skipped_for", why, n);
  for (std::size_t i = 0; i < schemes_.size(); ++i)
    t.add("families", scheme_name(static_cast<ropecheck_scheme_t>(i)), schemes_[i]);
  for (std::size_t i = 0; i < dtypes_.size(); ++i) t.add("dtypes", dtype_name(static_cast<ropecheck_dtype_t>(i)), dtypes_[i]);
  for (std::size_t i = 0; i < layouts_.size(); ++i)
    t.add("layouts", layout_name(static_cast<ropecheck_layout_t>(i)), layouts_[i]);
  for (std::size_t i = 0; i < memory_.size(); ++i)
    t.add("memory", memory_layout_name(static_cast<MemoryLayout>(i)), memory_[i]);
  for (std::size_t i = 0; i < fused_.size(); ++i) t.add("fused", kFusedNames[i], fused_[i]);
  for (std::size_t i = 0; i < kv_dtypes_.size(); ++i)
    t.add("kv_cache", kv_dtype_name(static_cast<KvDtype>(i)), kv_dtypes_[i]);
  for (std::size_t i = 0; i < caller_cache_.size(); ++i)
    t.add("cos_sin_cache", "caller_" + std::string(dtype_name(static_cast<ropecheck_dtype_t>(i))), caller_cache_[i]);
  t.add("cos_sin_cache", "own", own_cache_);
  for (std::size_t i = 0; i < position_bins_.size(); ++i)
    t.add("positions", position_bin_name(static_cast<int>(i)), position_bins_[i]);
  t.add("positions", "negative", negative_);
  t.add("positions", "int32_ids", int32_ids_);
  t.add("positions", "int64_ids", int64_ids_);
  for (std::size_t i = 0; i < axes_.size(); ++i) t.add("axes", kAxisNames[i], axes_[i]);
  t.add("shapes", "forward", direction_[0]);
  t.add("shapes", "inverse", direction_[1]);
  t.add("shapes", "in_place", placement_[0]);
  t.add("shapes", "out_of_place", placement_[1]);
  t.add("shapes", "partial_rotary", partial_);
  t.add("shapes", "batched", batched_);
  t.add("inputs", "raw_bits", raw_);
  return t;
}

void Tally::write() const {
  if (path_.empty()) return;
  // A whole file or none: written beside, then renamed over the last one.
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << cli::tally_text(as_tally());
    if (!f) return;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path_, ec);
}

}  // namespace ropecheck::fuzz
