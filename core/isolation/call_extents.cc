// SPDX-License-Identifier: MIT
// The bytes one apply call reads and writes, planned as guarded copies and patched into the params' copy.
#include "core/isolation/call_extents.h"

#include "ropecheck/dtype.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/qk_norm.h"

namespace ropecheck {

std::int64_t extent(const ropecheck_apply_params_t& p, bool q) {
  const std::int64_t heads = q ? p.num_q_heads : p.num_kv_heads;
  const std::int64_t ts = q ? p.q_token_stride : p.k_token_stride, hs = q ? p.q_head_stride : p.k_head_stride;
  const bool batched = p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 && p.seq_len > 0;
  const std::int64_t ss = !batched ? 0 : q ? p.q_seq_stride : p.k_seq_stride;
  const std::int64_t per_seq = batched ? p.seq_len : p.num_tokens;
  const std::int64_t seqs = batched ? p.num_tokens / p.seq_len : 1;
  if (p.num_tokens <= 0 || heads <= 0 || p.head_dim <= 0 || ts < 0 || hs < 0 || ss < 0) return 0;
  return (seqs - 1) * ss + (per_seq - 1) * ts + (heads - 1) * hs + p.head_dim;
}

bool multi_axis(const ropecheck_apply_params_t& p) {
  return p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_3 && p.num_axes != 0;
}

std::int64_t position_ids(const ropecheck_apply_params_t& p) {
  if (!multi_axis(p)) return p.num_tokens;
  if (p.num_axes < 0 || p.num_axes > ROPECHECK_MAX_AXES || p.position_axis_stride < p.num_tokens ||
      p.position_axis_stride > (std::int64_t{1} << 34))
    return -1;
  return p.position_axis_stride * (p.num_axes - 1) + p.num_tokens;
}

std::size_t cos_sin_dtype_size(std::uint32_t dtype) {
  return dtype < ROPECHECK_DTYPE_COUNT ? dtype_size(static_cast<ropecheck_dtype_t>(dtype)) : 4;
}

FreqCopies plan_freq(GuardedCopies& b, const ropecheck_freq_spec_t* f, int rotary_dim,
                     const ropecheck_freq_spec_t* patched) {
  FreqCopies c;
  if (!f) return c;
  const std::size_t n = static_cast<std::size_t>(rotary_dim / 2) * sizeof(double);
  if (f->short_factor) c.short_factor = b.plan("freq.short_factor", f->short_factor, n, true);
  if (f->long_factor) c.long_factor = b.plan("freq.long_factor", f->long_factor, n, true);
  if (f->inv_freq) c.inv_freq = b.plan("freq.inv_freq", f->inv_freq, n, true);
  c.spec = b.plan("freq", patched, sizeof *patched, true);
  return c;
}

const ropecheck_freq_spec_t* patch_freq(const GuardedCopies& b, const FreqCopies& c, const ropecheck_freq_spec_t* f,
                                        ropecheck_freq_spec_t* patched) {
  if (!f) return nullptr;
  *patched = *f;
  const auto at = [&](int i) { return reinterpret_cast<const double*>(b.data(i)); };
  if (c.short_factor >= 0) patched->short_factor = at(c.short_factor);
  if (c.long_factor >= 0) patched->long_factor = at(c.long_factor);
  if (c.inv_freq >= 0) patched->inv_freq = at(c.inv_freq);
  return reinterpret_cast<const ropecheck_freq_spec_t*>(b.data(c.spec));
}

namespace {

// Elements from a cache's first to its last: the K cache (MLA: the joint
// latent cache, or k_pe's), then v's cache (MLA_SPLIT: kv_c's).
std::int64_t kv_cache_extent(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w) {
  const std::int64_t blocks = (w.num_blocks - 1) * w.block_stride + (w.block_size - 1) * w.slot_stride;
  switch (w.cache_kind) {
    case ROPECHECK_KV_CACHE_MLA_JOINT: return blocks + w.latent_dim + p.head_dim;
    case ROPECHECK_KV_CACHE_MLA_SPLIT: return blocks + p.head_dim;
    default: return blocks + (static_cast<std::int64_t>(p.num_kv_heads) - 1) * w.head_stride + p.head_dim;
  }
}
std::int64_t kv_v_cache_extent(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w) {
  if (w.cache_kind == ROPECHECK_KV_CACHE_MLA_SPLIT)
    return (w.num_blocks - 1) * w.v_block_stride + (w.block_size - 1) * w.v_slot_stride + w.latent_dim;
  return kv_cache_extent(p, w);
}

// v's elements (MLA: kv_c's, latent_dim per token).
std::int64_t kv_v_extent(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w) {
  if (w.cache_kind != ROPECHECK_KV_CACHE_K_AND_V) return (p.num_tokens - 1) * w.v_token_stride + w.latent_dim;
  return (p.num_tokens - 1) * w.v_token_stride + (static_cast<std::int64_t>(p.num_kv_heads) - 1) * w.v_head_stride +
         p.head_dim;
}

}  // namespace

std::string kv_write_insane(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w) {
  // The ABI's own rules (ropecheck/kv_write.h, the check kernels make), then
  // what copying needs: extents isolation can map.
  if (const char* why = kv_write_error(w, p.num_tokens, p.num_kv_heads, p.head_dim, p.rotary_dim)) return why;
  constexpr std::int64_t kMax = std::int64_t{1} << 34;
  if (w.num_blocks > kMax || w.block_size > (1 << 20) || w.block_stride > kMax || w.slot_stride > kMax ||
      w.head_stride > kMax || w.v_token_stride > kMax || w.v_head_stride > kMax || w.v_token_stride < 0 ||
      w.v_head_stride < 0 || w.v_block_stride > kMax || w.v_slot_stride > kMax || kv_cache_extent(p, w) > kMax ||
      kv_v_cache_extent(p, w) > kMax)
    return "kv_write extents";
  return {};
}

KvCopies plan_kv_write(GuardedCopies& b, const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w,
                       const ropecheck_kv_write_t* patched) {
  KvCopies c;
  const std::size_t cs = kv_dtype_size(w.cache_dtype);
  c.cache_bytes = static_cast<std::size_t>(kv_cache_extent(p, w)) * cs;
  c.k_cache = b.plan("kv_write.k_cache", w.k_cache, c.cache_bytes, false);
  if (w.v_cache) {
    c.v_cache_bytes = static_cast<std::size_t>(kv_v_cache_extent(p, w)) * cs;
    c.v_cache = b.plan("kv_write.v_cache", w.v_cache, c.v_cache_bytes, false);
  }
  if (w.v)
    c.v = b.plan("kv_write.v", w.v, static_cast<std::size_t>(kv_v_extent(p, w)) * cos_sin_dtype_size(p.dtype), true);
  c.slots = b.plan("kv_write.slot_mapping", w.slot_mapping, static_cast<std::size_t>(p.num_tokens) * 8, true);
  const std::size_t scales = w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? static_cast<std::size_t>(p.num_kv_heads) : 1;
  c.k_scale = b.plan("kv_write.k_scale", w.k_scale, scales * 4, true);
  c.v_scale = b.plan("kv_write.v_scale", w.v_scale, scales * 4, true);
  c.spec = b.plan("kv_write", patched, sizeof *patched, true);
  return c;
}

const ropecheck_kv_write_t* patch_kv_write(const GuardedCopies& b, const KvCopies& c, const ropecheck_kv_write_t& w,
                                           ropecheck_kv_write_t* patched) {
  *patched = w;
  patched->k_cache = b.data(c.k_cache);
  patched->v_cache = c.v_cache >= 0 ? b.data(c.v_cache) : nullptr;
  patched->v = c.v >= 0 ? b.data(c.v) : nullptr;
  patched->slot_mapping = reinterpret_cast<const std::int64_t*>(b.data(c.slots));
  patched->k_scale = reinterpret_cast<const float*>(b.data(c.k_scale));
  patched->v_scale = reinterpret_cast<const float*>(b.data(c.v_scale));
  return reinterpret_cast<const ropecheck_kv_write_t*>(b.data(c.spec));
}

std::string qk_norm_insane(const ropecheck_apply_params_t& p, const ropecheck_qk_norm_t& n) {
  if (const char* why = qk_norm_error(n, p.num_kv_heads)) return why;
  return {};
}

QkNormCopies plan_qk_norm(GuardedCopies& b, const ropecheck_apply_params_t& p, const ropecheck_qk_norm_t& n,
                          const ropecheck_qk_norm_t* patched) {
  QkNormCopies c;
  const std::size_t bytes = static_cast<std::size_t>(p.head_dim) * cos_sin_dtype_size(p.dtype);
  c.q_weight = b.plan("qk_norm.q_weight", n.q_weight, bytes, true);
  if (n.k_weight) c.k_weight = b.plan("qk_norm.k_weight", n.k_weight, bytes, true);
  c.spec = b.plan("qk_norm", patched, sizeof *patched, true);
  return c;
}

const ropecheck_qk_norm_t* patch_qk_norm(const GuardedCopies& b, const QkNormCopies& c, const ropecheck_qk_norm_t& n,
                                         ropecheck_qk_norm_t* patched) {
  *patched = n;
  patched->q_weight = b.data(c.q_weight);
  patched->k_weight = c.k_weight >= 0 ? b.data(c.k_weight) : nullptr;
  return reinterpret_cast<const ropecheck_qk_norm_t*>(b.data(c.spec));
}

}  // namespace ropecheck
