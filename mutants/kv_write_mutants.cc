#include "mutants/kv_write_mutants.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <deque>
#include <mutex>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/kv_store.h"
#include "ropecheck/kv_write.h"

namespace ropecheck::mutant {
namespace {

struct KvKernel {
  Bug bug;
  const ropecheck_impl_t* rotation;
  ropecheck_caps_t caps;
};

ropecheck_apply_params_t without_write(const ropecheck_apply_params_t& p) {
  ropecheck_apply_params_t r = p;
  r.kv_write = nullptr;
  return r;
}

// An MLA write (ABI 1.5) as vLLM makes it (sat(x / scale) of the stored
// k_pe and kv_c, one scale), with an MLA row's bug.
ropecheck_status_t write_mla(const KvKernel& k, const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w,
                             char* err, std::size_t n) {
  const std::int64_t T = p.num_tokens;
  const int D = p.head_dim;
  const float s = w.k_scale[0];
  // The latent's first D channels rotated with k_pe's angles, for the row
  // that rotates the nope part too: kv_c handed to the rotation as a k of
  // one head.
  std::vector<float> latent(static_cast<std::size_t>(T * w.latent_dim));
  for (std::int64_t t = 0; t < T; ++t)
    for (int c = 0; c < w.latent_dim; ++c)
      latent[static_cast<std::size_t>(t * w.latent_dim + c)] = impl::load_f32(w.v, t * w.v_token_stride + c, p.dtype);
  if (k.bug == Bug::mla_latent_rotated && D <= w.latent_dim) {
    std::vector<float> part(static_cast<std::size_t>(T * D)), rotated(part.size()), q(part.size());
    for (std::int64_t t = 0; t < T; ++t)
      for (int c = 0; c < D; ++c) part[static_cast<std::size_t>(t * D + c)] = latent[static_cast<std::size_t>(t * w.latent_dim + c)];
    ropecheck_apply_params_t rp = without_write(p);
    rp.dtype = ROPECHECK_DTYPE_F32;
    rp.num_q_heads = 1;
    rp.q_in = part.data();
    rp.q_out = q.data();
    rp.k_in = part.data();
    rp.k_out = rotated.data();
    rp.q_token_stride = rp.k_token_stride = D;
    rp.q_head_stride = rp.k_head_stride = D;
    rp.seq_len = rp.q_seq_stride = rp.k_seq_stride = 0;
    if (auto st = k.rotation->apply(k.rotation->ctx, &rp, err, n)) return st;
    for (std::int64_t t = 0; t < T; ++t)
      for (int c = 0; c < D; ++c) latent[static_cast<std::size_t>(t * w.latent_dim + c)] = rotated[static_cast<std::size_t>(t * D + c)];
  }
  const std::int64_t seq = p.seq_len;
  void* latent_cache = w.cache_kind == ROPECHECK_KV_CACHE_MLA_JOINT ? w.k_cache : w.v_cache;
  for (std::int64_t t = 0; t < T; ++t) {
    const std::int64_t slot = w.slot_mapping[t];
    if (slot < 0) continue;
    const std::int64_t row = seq > 0 ? (t / seq) * p.k_seq_stride + (t % seq) * p.k_token_stride : t * p.k_token_stride;
    // [k_pe | kv_c] where the cache is [kv_c | k_pe]: the entry's order swapped.
    const bool swapped = k.bug == Bug::mla_entry_order_swapped && w.cache_kind == ROPECHECK_KV_CACHE_MLA_JOINT;
    for (int c = 0; c < D; ++c) {
      const std::int64_t at = swapped ? mla_latent_offset(w, slot, c) : mla_k_pe_offset(w, slot, c);
      impl::store_kv(w.k_cache, at, w.cache_dtype, impl::load_f32(p.k_out, row + c, p.dtype) / s, true);
    }
    for (int c = 0; c < w.latent_dim; ++c) {
      const std::int64_t at = swapped ? mla_latent_offset(w, slot, D + c) : mla_latent_offset(w, slot, c);
      impl::store_kv(latent_cache, at, w.cache_dtype, latent[static_cast<std::size_t>(t * w.latent_dim + c)] / s, true);
    }
  }
  return ROPECHECK_OK;
}

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const KvKernel& k = *static_cast<const KvKernel*>(ctx);
  if (auto s = impl::check_apply(k.caps, p, err, n)) return s;
  const ropecheck_kv_write_t* w = kv_write_of(*p);
  const std::int64_t T = p->num_tokens;
  const int H = p->num_kv_heads, D = p->head_dim;
  const std::int64_t seq = p->seq_len;
  const auto k_row = [&](std::int64_t t) {
    return seq > 0 ? (t / seq) * p->k_seq_stride + (t % seq) * p->k_token_stride : t * p->k_token_stride;
  };
  // The unrotated k, kept for the row that caches it.
  std::vector<float> k_before;
  if (w && k.bug == Bug::kv_unrotated_k_cached) {
    k_before.resize(static_cast<std::size_t>(T * H * D));
    for (std::int64_t t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h)
        for (int c = 0; c < D; ++c)
          k_before[static_cast<std::size_t>((t * H + h) * D + c)] =
              impl::load_f32(p->k_in, k_row(t) + h * p->k_head_stride + c, p->dtype);
  }
  // The padding tokens' q and k as given, for the row that never rotates them.
  const auto q_row = [&](std::int64_t t) {
    return seq > 0 ? (t / seq) * p->q_seq_stride + (t % seq) * p->q_token_stride : t * p->q_token_stride;
  };
  std::vector<float> q_kept, k_kept;
  const bool skips = w && k.bug == Bug::kv_padding_skips_rotation;
  if (skips)
    for (std::int64_t t = 0; t < T; ++t) {
      if (w->slot_mapping[t] >= 0) continue;
      for (int h = 0; h < p->num_q_heads; ++h)
        for (int c = 0; c < D; ++c) q_kept.push_back(impl::load_f32(p->q_in, q_row(t) + h * p->q_head_stride + c, p->dtype));
      for (int h = 0; h < H; ++h)
        for (int c = 0; c < D; ++c) k_kept.push_back(impl::load_f32(p->k_in, k_row(t) + h * p->k_head_stride + c, p->dtype));
    }
  ropecheck_apply_params_t rp = without_write(*p);
  // MLA's rope head with only its first half rotated (a partial rotary
  // factor of 0.5 meant for other layers applied to qk_rope_head_dim).
  if (w && kv_is_mla(*w) && k.bug == Bug::mla_rope_half_the_dims) rp.rotary_dim = p->rotary_dim / 2 / 2 * 2;
  if (auto s = k.rotation->apply(k.rotation->ctx, &rp, err, n)) return s;
  if (w == nullptr) return ROPECHECK_OK;
  if (kv_is_mla(*w)) return write_mla(k, *p, *w, err, n);
  if (skips) {
    std::size_t qi = 0, ki = 0;
    for (std::int64_t t = 0; t < T; ++t) {
      if (w->slot_mapping[t] >= 0) continue;
      for (int h = 0; h < p->num_q_heads; ++h)
        for (int c = 0; c < D; ++c) impl::store_f32(p->q_out, q_row(t) + h * p->q_head_stride + c, p->dtype, q_kept[qi++]);
      for (int h = 0; h < H; ++h)
        for (int c = 0; c < D; ++c) impl::store_f32(p->k_out, k_row(t) + h * p->k_head_stride + c, p->dtype, k_kept[ki++]);
    }
  }
  const std::int64_t slots = w->num_blocks * w->block_size;
  // The prefill path, for calls of more than 16 tokens whose slots ascend:
  // the tokens written as one run from the first one's slot, the holes
  // between a sequence's blocks ignored (never past the last slot: the n-th
  // ascending slot is at least the first + n).
  std::int64_t run_start = -1, previous = -1;
  bool ascending = k.bug == Bug::kv_contiguous_prefill_slots && T > 16;
  for (std::int64_t t = 0; t < T && ascending; ++t) {
    const std::int64_t s = w->slot_mapping[t];
    if (s < 0) continue;
    ascending = s > previous;
    if (run_start < 0) run_start = s;
    previous = s;
  }
  std::int64_t run = 0;
  for (std::int64_t t = 0; t < T; ++t) {
    std::int64_t slot = w->slot_mapping[t];
    if (slot < 0) {
      if (k.bug != Bug::kv_padding_writes_last_slot) continue;
      slot = ((slot % slots) + slots) % slots;  // Python's -1 % n: the last slot
    } else if (ascending) {
      slot = std::min(run_start + run++, slots - 1);
    }
    for (int h = 0; h < H; ++h) {
      float ks = kv_scale_of(w->k_scale, w->scale_kind, h), vs = kv_scale_of(w->v_scale, w->scale_kind, h);
      if (k.bug == Bug::kv_scales_swapped) std::swap(ks, vs);
      if (k.bug == Bug::kv_scale_ignored) ks = vs = 1.0f;
      const auto scaled = [&](float x, float s) { return k.bug == Bug::kv_scale_direction_flipped ? x * s : x / s; };
      for (int c = 0; c < D; ++c) {
        const std::int64_t at = kv_element_offset(*w, slot, h, c);
        if (!(k.bug == Bug::kv_pass_through_not_cached && c >= p->rotary_dim)) {
          const float kv = k.bug == Bug::kv_unrotated_k_cached
                               ? k_before[static_cast<std::size_t>((t * H + h) * D + c)]
                               : impl::load_f32(p->k_out, k_row(t) + h * p->k_head_stride + c, p->dtype);
          impl::store_kv(w->k_cache, at, w->cache_dtype, scaled(kv, ks), true);
        }
        if (w->v_cache) {
          const float v = impl::load_f32(w->v, t * w->v_token_stride + h * w->v_head_stride + c, p->dtype);
          impl::store_kv(w->v_cache, at, w->cache_dtype, scaled(v, vs), true);
        }
      }
    }
  }
  return ROPECHECK_OK;
}

}  // namespace

bool is_kv_write_bug(Bug bug) {
  switch (bug) {
    case Bug::kv_padding_writes_last_slot:
    case Bug::kv_scales_swapped:
    case Bug::kv_scale_direction_flipped:
    case Bug::kv_scale_ignored:
    case Bug::kv_pass_through_not_cached:
    case Bug::kv_unrotated_k_cached:
    case Bug::kv_padding_skips_rotation:
    case Bug::kv_contiguous_prefill_slots:
    case Bug::mla_rope_half_the_dims:
    case Bug::mla_latent_rotated:
    case Bug::mla_entry_order_swapped: return true;
    default: return false;
  }
}

bool is_mla_bug(Bug bug) {
  return bug == Bug::mla_rope_half_the_dims || bug == Bug::mla_latent_rotated || bug == Bug::mla_entry_order_swapped;
}

ropecheck_impl_t kv_write_mutant_table(const BugInfo& info, const ropecheck_impl_t* rotation) {
  static std::deque<KvKernel> kernels;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  // The control's capabilities (without negative positions and multi-axis:
  // kept to what the fused kernels here take) with the write granted.
  ropecheck_caps_t caps = impl::standard_caps(impl::kBothLayouts, ROPECHECK_CAP_KV_CACHE_WRITE);
  KvKernel& k = kernels.emplace_back(KvKernel{info.bug, rotation, caps});
  ropecheck_impl_t t = impl::kernel_table(info.name, info.description, caps, policy_of(*rotation), apply, nullptr,
                                          nullptr, &k);
  t.kv_policy = ropecheck_kv_policy_t{sizeof(ropecheck_kv_policy_t), (1u << ROPECHECK_KV_DTYPE_COUNT) - 1u,
                                      (1u << ROPECHECK_KV_SCALE_KIND_COUNT) - 1u, ROPECHECK_KV_SCALE_DIVIDE, 1u, 1u};
  // The MLA rows write MLA's caches alone (ABI 1.5), so every write they
  // make shows their bug.
  if (is_mla_bug(info.bug))
    t.kv_cache_kinds = (1u << ROPECHECK_KV_CACHE_MLA_JOINT) | (1u << ROPECHECK_KV_CACHE_MLA_SPLIT);
  return t;
}

}  // namespace ropecheck::mutant
