// SPDX-License-Identifier: MIT
// A fused golden case's KV-cache write (ABI 1.4; MLA's caches, 1.5) in an
// export (manifest schema 4): the write the case makes, fixed by its suite
// (cache kind, dtype, layout, blocks, slot mapping with padding tokens,
// scales and the direction they are meant for, saturation, via_storage),
// the caches before the call, and what follows from them: the caches a
// correct kernel leaves, exactly rounded, each written element's place and
// its admissible codes per exported policy (E9, judged in the cache's code
// space as the gate judges it: core/judge/kv_cache_judge.h), and the
// measure of an output's caches under a policy.
//
// manifest.json, per fused case:
//   "kvWrite": {"cacheKind": "k_and_v", "cacheDtype": "fp8_e4m3fn",
//               "layout": "NHD", "numBlocks": 2, "blockSize": 16,
//               "latentDim": 0, "blockStride": 256, "slotStride": 16,
//               "headStride": 8, "vBlockStride": 0, "vSlotStride": 0,
//               "scaleKind": "per_tensor", "scaleDirection": "divide",
//               "saturate": true, "viaStorage": true}
#ifndef ROPECHECK_GOLDEN_FUSED_KV_GOLDEN_H_
#define ROPECHECK_GOLDEN_FUSED_KV_GOLDEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/kv_write_case.h"
#include "core/judge/reference_result.h"
#include "core/kernel/kernel_call.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {

struct GoldenKv {
  KvWriteCase spec;  // read from a manifest: without slots and scales (tensors hold them)
  // The direction spec's scales are meant for, and the rest of the declared
  // arithmetic the exported budgets assume (ropecheck_kv_policy_t's).
  ropecheck_kv_scale_direction_t direction = ROPECHECK_KV_SCALE_DIVIDE;
  bool saturate = true, via_storage = true;
  // The v given and both caches' bytes before the call (v_cache_before
  // empty for MLA_JOINT).
  ByteBuffer v, k_cache_before, v_cache_before;

  // What a kernel making exactly this write declares (one cache dtype, one
  // scale kind).
  ropecheck_kv_policy_t policy() const;
  // As call_kernel takes it (kv_given).
  KvRun run() const;
  bool has_v_cache() const { return spec.kind != ROPECHECK_KV_CACHE_MLA_JOINT; }
};

// Sets v (make_kv_v, from spec.v_seed) and the caches before the call:
// random finite codes of the cache dtype drawn from `seed` (finite, so the
// hex JSON format holds them exactly; distinct from what a write stores, so
// an entry written where nothing should be shows).
void fill_golden_kv(const Case& c, std::uint64_t seed, GoldenKv* kv);

// The tensors of a fused case that the write adds, inputs first (v,
// slot_mapping, k_scale, v_scale, k_cache_before, v_cache_before), then
// what follows from them (k_cache_expected, v_cache_expected, k_cache_index,
// v_cache_index, k_cache_lo_<policy> / k_cache_hi_<policy> per exported
// policy, v_cache_lo / v_cache_hi). Throws std::logic_error (naming
// `label`) when an expected code cannot be certified from the reference's
// double (within its rounding of a boundary of the cache's grid).
std::vector<Tensor> kv_case_tensors(const Case& c, const QkBuffers& in, const ReferenceResult& ref, const GoldenKv& kv,
                                    const std::string& label);

// The flags (golden/catalog/catalog.h, fused_flag_catalog) the write implies: every
// one derived from it, so the manifest claims none the case lacks.
std::vector<std::string> kv_flags(const Case& c, const QkBuffers& in, const ReferenceResult& ref, const GoldenKv& kv);

// The manifest's "kvWrite" of a case, and back: validated for the case (its
// tokens, kv heads, head_dim, rotary_dim), the strides those of its layout;
// FormatError naming `file` and the JSON path otherwise.
nlohmann::ordered_json kv_write_to_json(const GoldenKv& kv);
GoldenKv parse_kv_write(const nlohmann::json& j, const Case& c, const std::string& file, const std::string& path);

// A fused case's write from its manifest entry (`declared`) and its files'
// tensors (slot_mapping, scales, v, caches before), each checked for dtype
// and shape, the write as kernel_abi.h defines a valid one (kv_write_error),
// slots distinct; FormatError naming the tensor otherwise.
GoldenKv read_golden_kv(const GoldenKv& declared, const Case& c, const std::vector<Tensor>& ts,
                        const std::string& where);

// One of a case's caches (which: 0 the K cache, 1 the V cache) as a tensor:
// the cache dtype's codes (u8 for fp8, else f32 / f16 / bf16) in the
// layout's shape.
Tensor cache_tensor(std::string name, const GoldenKv& kv, int which, const ByteBuffer& bytes);

// The names of an output's cache tensors in a case's files (v_cache "" for
// MLA_JOINT).
struct CacheNames {
  std::string k_cache, v_cache;
};
// An output's caches (tensors names.k_cache, names.v_cache) under one
// policy: the most codes any written element lies outside its
// admissible codes (<w>_cache_lo_<policy> .. hi, as ordinals:
// core/error_model/cache_write_budget.h), infinity when a byte no entry
// covers differs from the cache before or a 16- or 32-bit cache holds a NaN
// where an entry is written (its payload is not kept by every format);
// within when that is 0.
struct CacheMeasure {
  double steps = 0;
  bool within = true;
};
CacheMeasure cache_measure(const std::vector<Tensor>& ts, const GoldenKv& kv, const CacheNames& names,
                           const std::string& policy, const std::string& where);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_FUSED_KV_GOLDEN_H_
