// SPDX-License-Identifier: MIT
// kv_golden.h's part for the manifest: a case's KV-cache write as JSON
// (kvWrite, schema 4), written and read back with every field checked
// against the case (FormatError naming the field).
#include <string>

#include "core/config/json_reader.h"
#include "golden/fused/kv_golden.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/names.h"

namespace ropecheck::golden {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

const char* kind_name(ropecheck_kv_cache_kind_t k) {
  switch (k) {
    case ROPECHECK_KV_CACHE_MLA_JOINT: return "mla_joint";
    case ROPECHECK_KV_CACHE_MLA_SPLIT: return "mla_split";
    default: return "k_and_v";
  }
}

}  // namespace

ordered_json kv_write_to_json(const GoldenKv& kv) {
  const KvWriteCase& w = kv.spec;
  return {{"cacheKind", kind_name(w.kind)},
          {"cacheDtype", kv_dtype_name(w.dtype)},
          {"layout", w.mla() ? "mla" : w.hnd ? "HND" : "NHD"},
          {"numBlocks", w.num_blocks},
          {"blockSize", w.block_size},
          {"latentDim", w.latent_dim},
          {"blockStride", w.block_stride},
          {"slotStride", w.slot_stride},
          {"headStride", w.head_stride},
          {"vBlockStride", w.v_block_stride},
          {"vSlotStride", w.v_slot_stride},
          {"scaleKind", w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? "per_head" : "per_tensor"},
          {"scaleDirection", kv.direction == ROPECHECK_KV_SCALE_MULTIPLY ? "multiply" : "divide"},
          {"saturate", kv.saturate},
          {"viaStorage", kv.via_storage}};
}

GoldenKv parse_kv_write(const json& j, const Case& c, const std::string& file, const std::string& path) {
  if (!j.is_object()) bad(file, path, "must be an object");
  const JsonReader r(j, path + ".");
  GoldenKv kv;
  KvWriteCase& w = kv.spec;
  const std::string kind = r.string("cacheKind");
  bool known = false;
  for (int k = 0; k < ROPECHECK_KV_CACHE_KIND_COUNT; ++k)
    if (kind == kind_name(static_cast<ropecheck_kv_cache_kind_t>(k)))
      w.kind = static_cast<ropecheck_kv_cache_kind_t>(k), known = true;
  if (!known) bad(file, path + ".cacheKind", "must be k_and_v, mla_joint or mla_split");
  const std::string dtype = r.string("cacheDtype");
  known = false;
  for (int d = 0; d < kKvDtypeCount; ++d)
    if (dtype == kv_dtype_name(static_cast<KvDtype>(d))) w.dtype = static_cast<KvDtype>(d), known = true;
  if (!known) bad(file, path + ".cacheDtype", "must be f32, f16, bf16, fp8_e4m3fn or fp8_e5m2");
  const std::string layout = r.string("layout");
  if (w.mla() ? layout != "mla" : layout != "NHD" && layout != "HND")
    bad(file, path + ".layout", w.mla() ? "must be mla for an MLA cache" : "must be NHD or HND");
  w.hnd = layout == "HND";
  w.num_blocks = r.integer("numBlocks", 1, 1 << 20);
  w.block_size = static_cast<int>(r.integer("blockSize", 1, 1 << 12));
  w.latent_dim = static_cast<int>(r.integer("latentDim", 0, 65536));
  if (w.mla() != (w.latent_dim > 0)) bad(file, path + ".latentDim", "must be >= 1 for an MLA cache and 0 otherwise");
  w.kv_heads = c.kv_heads;
  w.head_dim = c.shape.head_dim;
  if (w.mla() && (c.kv_heads != 1 || c.shape.rotary_dim != c.shape.head_dim))
    bad(file, path + ".cacheKind", "an MLA cache needs one k head (k_pe) with rotary_dim == head_dim");
  if (w.num_blocks * w.block_size < c.tokens)
    bad(file, path + ".numBlocks", "fewer slots than tokens");
  lay_out_kv_write(&w);
  const std::pair<const char*, std::int64_t> strides[] = {{"blockStride", w.block_stride}, {"slotStride", w.slot_stride},
                                                          {"headStride", w.head_stride}, {"vBlockStride", w.v_block_stride},
                                                          {"vSlotStride", w.v_slot_stride}};
  for (const auto& [key, want] : strides)
    if (r.integer(key, 0, std::int64_t{1} << 40) != want)
      bad(file, path + "." + key, "must be " + std::to_string(want) + ", the dense " + layout + " layout's");
  const std::string sk = r.string("scaleKind");
  if (sk != "per_tensor" && sk != "per_head") bad(file, path + ".scaleKind", "must be per_tensor or per_head");
  w.scale_kind = sk == "per_head" ? ROPECHECK_KV_SCALE_PER_HEAD : ROPECHECK_KV_SCALE_PER_TENSOR;
  if (w.mla() && w.scale_kind != ROPECHECK_KV_SCALE_PER_TENSOR)
    bad(file, path + ".scaleKind", "an MLA cache has one per_tensor scale");
  const std::string dir = r.string("scaleDirection");
  if (dir != "divide" && dir != "multiply") bad(file, path + ".scaleDirection", "must be divide or multiply");
  kv.direction = dir == "multiply" ? ROPECHECK_KV_SCALE_MULTIPLY : ROPECHECK_KV_SCALE_DIVIDE;
  kv.saturate = r.boolean("saturate");
  kv.via_storage = r.boolean("viaStorage");
  return kv;
}

}  // namespace ropecheck::golden
