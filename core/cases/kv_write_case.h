// SPDX-License-Identifier: MIT
// The KV-cache write (ABI 1.4) a kernel granting KV_CACHE_WRITE makes with a
// case: every case of a suite with a k carries one, derived from the case
// (its suite, seed and index, on a stream of its own, so the plain cases stay
// what they were) and drawn within what the kernel declares (its cache dtypes
// and scale kinds), so a fused kernel gets the suite's full count of cases.
// Paged as vLLM and FlashInfer page it: blocks of 1, 16 or 64 entries, NHD
// or HND, a slot per token scattered over more blocks than the tokens need
// (block boundaries crossed), about one token in eight a padding token
// (slot -1), fp8 scales from the engines' tests and ones that saturate.
// For a kernel declaring MLA's caches (ABI 1.5), a case shaped as MLA's
// decoupled rope part (one k head, k_pe, every channel rotated) may get an
// MLA write instead: a latent kv_c of 512 or 256 channels (DeepSeek's
// kv_lora_rank, and vLLM's test's other) stored beside k_pe in one entry
// or in a cache of its own.
#ifndef ROPECHECK_CORE_CASES_KV_WRITE_CASE_H_
#define ROPECHECK_CORE_CASES_KV_WRITE_CASE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/cases.h"
#include "core/cases/fork_private.h"
#include "core/cases/kv_cache_codes.h"
#include "core/error_model/cache_write_budget.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/kv_write.h"

namespace ropecheck {

struct KvWriteCase {
  ropecheck_kv_cache_kind_t kind = ROPECHECK_KV_CACHE_K_AND_V;
  int latent_dim = 0;  // MLA: kv_c's channels
  std::int64_t v_block_stride = 0, v_slot_stride = 0;  // MLA_SPLIT: the latent cache's strides
  KvDtype dtype = KvDtype::kF32;
  int block_size = 16;
  std::int64_t num_blocks = 1;
  bool hnd = false;  // [blocks, heads, block_size, head_dim]; else NHD
  ropecheck_kv_scale_kind_t scale_kind = ROPECHECK_KV_SCALE_PER_TENSOR;
  std::vector<std::int64_t> slots;      // per token; -1: padding
  std::vector<float> k_scale, v_scale;  // as the kernel reads them (1 or kv_heads each)
  // Strides in cache elements (kernel_abi.h, ropecheck_kv_write_t).
  std::int64_t block_stride = 0, slot_stride = 0, head_stride = 0;
  int kv_heads = 0, head_dim = 0;
  std::uint64_t v_seed = 0;
  // How the kernel applies the scales (they are drawn for it: a multiplying
  // kernel gets the reciprocals of the dequantization scales).
  ropecheck_kv_scale_direction_t direction = ROPECHECK_KV_SCALE_DIVIDE;
  // make_kv_v puts the cache dtype's boundaries into v (ties between two
  // codes, the largest finite value and past it, subnormal codes), scaled
  // by v's scale: a suite's write probes them (kv_write_case sets it); a
  // write fixed in advance (a golden vector's) keeps the plain draw.
  bool edges = false;

  bool mla() const { return kind != ROPECHECK_KV_CACHE_K_AND_V; }
  std::int64_t cache_elements() const { return num_blocks * block_stride; }
  std::size_t cache_bytes() const { return static_cast<std::size_t>(cache_elements()) * kv_dtype_size(dtype); }
  // The v cache's bytes: the K cache's size for K_AND_V, the latent cache's
  // for MLA_SPLIT, none for MLA_JOINT (kv_c lives in the K cache's entries).
  std::size_t v_cache_bytes() const {
    if (kind == ROPECHECK_KV_CACHE_MLA_JOINT) return 0;
    if (kind == ROPECHECK_KV_CACHE_MLA_SPLIT)
      return static_cast<std::size_t>(num_blocks * v_block_stride) * kv_dtype_size(dtype);
    return cache_bytes();
  }
  // Element (slot, head, channel) of k's entry in the K cache (MLA: k_pe's).
  std::int64_t offset(std::int64_t slot, int head, int channel) const {
    if (mla()) return (slot / block_size) * block_stride + (slot % block_size) * slot_stride +
                      (kind == ROPECHECK_KV_CACHE_MLA_JOINT ? latent_dim : 0) + channel;
    return kv_element_offset(block_stride, slot_stride, head_stride, block_size, slot, head, channel);
  }
  // Element (slot, head, channel) of v's entry (MLA: kv_c's, head 0), in
  // the cache v_in_k_cache() names.
  std::int64_t v_offset(std::int64_t slot, int head, int channel) const {
    if (kind == ROPECHECK_KV_CACHE_MLA_JOINT) return (slot / block_size) * block_stride + (slot % block_size) * slot_stride + channel;
    if (kind == ROPECHECK_KV_CACHE_MLA_SPLIT) return (slot / block_size) * v_block_stride + (slot % block_size) * v_slot_stride + channel;
    return offset(slot, head, channel);
  }
  bool v_in_k_cache() const { return kind == ROPECHECK_KV_CACHE_MLA_JOINT; }
  int v_heads() const { return mla() ? 1 : kv_heads; }
  int v_channels() const { return mla() ? latent_dim : head_dim; }
  float k_scale_of(int head) const { return k_scale[k_scale.size() == 1 ? 0 : static_cast<std::size_t>(head)]; }
  float v_scale_of(int head) const { return v_scale[v_scale.size() == 1 ? 0 : static_cast<std::size_t>(head)]; }
  std::string describe() const;
  // What the gate's fused table groups writes by: the cache kind, dtype,
  // layout and scale kind ("K and V caches fp8_e4m3fn NHD, per-tensor scales").
  std::string form() const;
};

// The write a kernel declaring `policy` and the cache kinds `kinds` (ABI
// 1.5's kv_cache_kinds; 0 is K_AND_V alone) makes with case c; nullopt when
// the case has no k (kv_heads 0), is too large for a cache here (over
// kKvWriteMaxTokens tokens), or fits none of the kinds. A write of more
// tokens than the judge samples (core/judge/reference_result.h) is judged
// on the sampled tokens, the rest of both caches compared whole.
inline constexpr std::int64_t kKvWriteMaxTokens = std::int64_t{1} << 16;
std::optional<KvWriteCase> kv_write_case(const Case& c, const ropecheck_kv_policy_t& policy, std::uint32_t kinds = 0);

// Sets w's strides from its kind, layout (hnd), block_size, kv_heads,
// head_dim and latent_dim: dense caches, [blocks, block_size, heads,
// head_dim] (NHD) or [blocks, heads, block_size, head_dim] (HND); MLA's
// entries [kv_c | k_pe] (JOINT) or k_pe and kv_c in caches of their own
// (SPLIT), one head.
void lay_out_kv_write(KvWriteCase* w);

// "" when a kernel declaring `policy` and the cache kinds `kinds` (0:
// K_AND_V alone) takes the write w, whose scales are meant for `direction`
// (a write fixed in advance, as a golden vector's is); else why not: the
// cache dtype, scale kind or cache kind undeclared, or the other direction
// (the same numbers would mean their reciprocals).
std::string kv_write_outside_declared(const ropecheck_kv_policy_t& policy, std::uint32_t kinds, const KvWriteCase& w,
                                      ropecheck_kv_scale_direction_t direction);

// The buffers a write hands the kernel: the caches (v_cache nullptr for
// MLA_JOINT), v dense ([tokens, v_heads, v_channels]), the slot mapping and
// the scales.
struct KvWriteBuffers {
  void* k_cache = nullptr;
  void* v_cache = nullptr;
  const void* v = nullptr;
  const std::int64_t* slots = nullptr;
  const float* k_scale = nullptr;
  const float* v_scale = nullptr;
};

// The write as the ABI hands it (kernel_abi.h, ropecheck_kv_write_t): w's
// fields and strides, and the buffers given.
ropecheck_kv_write_t abi_kv_write(const KvWriteCase& w, const KvWriteBuffers& b);

// The v a write stores: [tokens, kv_heads, head_dim] dense (MLA: kv_c,
// [tokens, latent_dim]), values of the case's storage dtype drawn as the
// case's inputs are; with w.edges, a quarter of them the cache dtype's
// boundaries (kv_cache_edge) scaled as the write scales them.
ByteBuffer make_kv_v(const Case& c, const KvWriteCase& w);

// The policy of E9 a table declares for a cache of dtype d.
CacheWritePolicy cache_write_policy(const ropecheck_kv_policy_t& p, KvDtype d);

// Per byte of the K cache (which = 0) or the V cache (1): whether a written
// entry covers it (MLA_JOINT: the K cache's entries hold kv_c too).
std::vector<bool> written_bytes(const KvWriteCase& w, int which);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_KV_WRITE_CASE_H_
