// The KV-cache write (ABI 1.4) a kernel granting KV_CACHE_WRITE makes with a
// case: every case of a suite with a k carries one, derived from the case
// (its suite, seed and index, on a stream of its own, so the plain cases stay
// what they were) and drawn within what the kernel declares (its cache dtypes
// and scale kinds), so a fused kernel gets the suite's full count of cases.
// Paged as vLLM and FlashInfer page it: blocks of 1, 16 or 64 entries, NHD
// or HND, a slot per token scattered over more blocks than the tokens need
// (block boundaries crossed), about one token in eight a padding token
// (slot -1), fp8 scales from the engines' tests and ones that saturate.
#ifndef ROPECHECK_CORE_CASES_KV_WRITE_CASE_H_
#define ROPECHECK_CORE_CASES_KV_WRITE_CASE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/cases.h"
#include "core/cases/fork_private.h"
#include "core/error_model/cache_write_budget.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/kv_write.h"

namespace ropecheck {

struct KvWriteCase {
  CacheDtype dtype = CacheDtype::kF32;
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

  std::int64_t cache_elements() const { return num_blocks * block_stride; }
  std::size_t cache_bytes() const { return static_cast<std::size_t>(cache_elements()) * cache_dtype_size(dtype); }
  // Element (slot, head, channel) of a cache.
  std::int64_t offset(std::int64_t slot, int head, int channel) const {
    return kv_element_offset(block_stride, slot_stride, head_stride, block_size, slot, head, channel);
  }
  float k_scale_of(int head) const { return k_scale[k_scale.size() == 1 ? 0 : static_cast<std::size_t>(head)]; }
  float v_scale_of(int head) const { return v_scale[v_scale.size() == 1 ? 0 : static_cast<std::size_t>(head)]; }
  std::string describe() const;
};

// The write a kernel declaring `policy` makes with case c; nullopt when the
// case has no k (kv_heads 0) or is too large for a cache here (over
// kKvWriteMaxTokens tokens).
inline constexpr std::int64_t kKvWriteMaxTokens = 4096;
std::optional<KvWriteCase> kv_write_case(const Case& c, const ropecheck_kv_policy_t& policy);

// The v a write stores: [tokens, kv_heads, head_dim] dense, values of the
// case's storage dtype drawn as the case's inputs are.
ByteBuffer make_kv_v(const Case& c, const KvWriteCase& w);

// The policy of E9 a table declares for a cache of dtype d.
CacheWritePolicy cache_write_policy(const ropecheck_kv_policy_t& p, CacheDtype d);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_KV_WRITE_CASE_H_
