// SPDX-License-Identifier: MIT
// The KV-cache write rows of the bug catalogue (mutant_list.h, kv_*): the definitions of mutants/kv_write_mutants.h.
#include "mutants/kv_write_mutants.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <utility>
#include <deque>
#include <mutex>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/kv_store.h"
#include "mutants/cos_sin_cache_mutants.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/fp8.h"
#include "ropecheck/kv_write.h"

namespace ropecheck::mutant {
namespace {

struct KvKernel {
  Bug bug;
  const ropecheck_impl_t* rotation;
  ropecheck_caps_t caps;
};

// The value of a cache code (f32's is its bits).
float code_value(std::uint32_t code, std::uint32_t dtype) {
  switch (dtype) {
    case ROPECHECK_KV_F16: return f16_to_f32(static_cast<std::uint16_t>(code));
    case ROPECHECK_KV_BF16: return bf16_to_f32(static_cast<std::uint16_t>(code));
    case ROPECHECK_KV_FP8_E4M3FN: return fp8_to_f32(static_cast<std::uint8_t>(code), Fp8Format::kE4M3FN);
    case ROPECHECK_KV_FP8_E5M2: return fp8_to_f32(static_cast<std::uint8_t>(code), Fp8Format::kE5M2);
    default: return f32_from_bits(code);
  }
}

// One element stored as the control stores it (store_kv: to nearest even,
// saturating), with the row's rounding bug: a tie moved one code away from
// zero, or a code past the value moved one toward it; codes are
// sign-magnitude, so one code further from zero is the code plus one.
void store(const KvKernel& k, void* cache, std::int64_t at, std::uint32_t dtype, float y) {
  const bool e5m2_overflows = k.bug == Bug::kv_e5m2_not_saturated && dtype == ROPECHECK_KV_FP8_E5M2;
  impl::store_kv(cache, at, dtype, y, !e5m2_overflows);
  if ((k.bug != Bug::kv_ties_away_from_zero && k.bug != Bug::kv_truncated_toward_zero) || dtype == ROPECHECK_KV_F32 ||
      !std::isfinite(y))
    return;
  const std::size_t es = kv_dtype_size(dtype);
  std::uint32_t code = 0;
  std::memcpy(&code, static_cast<unsigned char*>(cache) + at * static_cast<std::int64_t>(es), es);
  const float got = code_value(code, dtype);
  if (!std::isfinite(got)) return;
  const double a = std::fabs(static_cast<double>(y)), g = std::fabs(static_cast<double>(got));
  if (k.bug == Bug::kv_ties_away_from_zero && g < a) {
    const float further = code_value(code + 1, dtype);
    if (std::isfinite(further) && exactly_equal(std::fabs(static_cast<double>(further)) - a, a - g)) ++code;  // an exact tie
  } else if (k.bug == Bug::kv_truncated_toward_zero && g > a && (code & ~(0x80u << (8 * (es - 1)))) != 0) {
    --code;
  } else {
    return;
  }
  std::memcpy(static_cast<unsigned char*>(cache) + at * static_cast<std::int64_t>(es), &code, es);
}

// Whether both caches' first bytes are all zero (what the sniffing row
// takes for a production cache, which it leaves unwritten).
bool looks_fresh(const ropecheck_kv_write_t& w) {
  const std::size_t n = std::min<std::size_t>(64, kv_dtype_size(w.cache_dtype) * static_cast<std::size_t>(w.block_stride));
  const auto* b = static_cast<const unsigned char*>(w.k_cache);
  return std::all_of(b, b + n, [](unsigned char c) { return c == 0; });
}

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
      const float ks = k.bug == Bug::mla_k_pe_unscaled_caller_cache ? 1.0f : s;
      store(k, w.k_cache, at, w.cache_dtype, impl::load_f32(p.k_out, row + c, p.dtype) / ks);
    }
    for (int c = 0; c < w.latent_dim; ++c) {
      const std::int64_t at = swapped ? mla_latent_offset(w, slot, D + c) : mla_latent_offset(w, slot, c);
      store(k, latent_cache, at, w.cache_dtype, latent[static_cast<std::size_t>(t * w.latent_dim + c)] / s);
    }
  }
  return ROPECHECK_OK;
}

// One call of a KV-write row: its params, write and geometry, and what the
// rows that need the inputs as given keep of them before the rotation.
struct KvCall {
  const KvKernel& k;
  const ropecheck_apply_params_t* p;
  const ropecheck_kv_write_t* w;
  std::int64_t T;
  int H, D;
  std::vector<float> k_before;        // kv_unrotated_k_cached: every k element as given
  std::vector<float> q_kept, k_kept;  // kv_padding_skips_rotation: the padding tokens' q and k as given

  std::int64_t q_row(std::int64_t t) const {
    return p->seq_len > 0 ? (t / p->seq_len) * p->q_seq_stride + (t % p->seq_len) * p->q_token_stride
                          : t * p->q_token_stride;
  }
  std::int64_t k_row(std::int64_t t) const {
    return p->seq_len > 0 ? (t / p->seq_len) * p->k_seq_stride + (t % p->seq_len) * p->k_token_stride
                          : t * p->k_token_stride;
  }
  bool skips_padding() const { return w && k.bug == Bug::kv_padding_skips_rotation; }
};

// Before the rotation: the unrotated k, kept for the row that caches it,
// and the padding tokens' q and k, for the row that never rotates them.
void keep_inputs(KvCall& c) {
  const ropecheck_apply_params_t* p = c.p;
  if (c.w && c.k.bug == Bug::kv_unrotated_k_cached) {
    c.k_before.resize(static_cast<std::size_t>(c.T * c.H * c.D));
    for (std::int64_t t = 0; t < c.T; ++t)
      for (int h = 0; h < c.H; ++h)
        for (int ch = 0; ch < c.D; ++ch)
          c.k_before[static_cast<std::size_t>((t * c.H + h) * c.D + ch)] =
              impl::load_f32(p->k_in, c.k_row(t) + h * p->k_head_stride + ch, p->dtype);
  }
  if (!c.skips_padding()) return;
  for (std::int64_t t = 0; t < c.T; ++t) {
    if (c.w->slot_mapping[t] >= 0) continue;
    for (int h = 0; h < p->num_q_heads; ++h)
      for (int ch = 0; ch < c.D; ++ch)
        c.q_kept.push_back(impl::load_f32(p->q_in, c.q_row(t) + h * p->q_head_stride + ch, p->dtype));
    for (int h = 0; h < c.H; ++h)
      for (int ch = 0; ch < c.D; ++ch)
        c.k_kept.push_back(impl::load_f32(p->k_in, c.k_row(t) + h * p->k_head_stride + ch, p->dtype));
  }
}

// After the rotation: the padding tokens' q and k put back as given.
void restore_padding(const KvCall& c) {
  const ropecheck_apply_params_t* p = c.p;
  std::size_t qi = 0, ki = 0;
  for (std::int64_t t = 0; t < c.T; ++t) {
    if (c.w->slot_mapping[t] >= 0) continue;
    for (int h = 0; h < p->num_q_heads; ++h)
      for (int ch = 0; ch < c.D; ++ch)
        impl::store_f32(p->q_out, c.q_row(t) + h * p->q_head_stride + ch, p->dtype, c.q_kept[qi++]);
    for (int h = 0; h < c.H; ++h)
      for (int ch = 0; ch < c.D; ++ch)
        impl::store_f32(p->k_out, c.k_row(t) + h * p->k_head_stride + ch, p->dtype, c.k_kept[ki++]);
  }
}

// The prefill path of kv_contiguous_prefill_slots, for calls of more than
// 16 tokens whose slots ascend: the first one's slot, from which the tokens
// are written as one run (the holes between a sequence's blocks ignored);
// -1 where the row writes slot by slot.
std::int64_t contiguous_run_start(const KvCall& c) {
  if (c.k.bug != Bug::kv_contiguous_prefill_slots || c.T <= 16) return -1;
  std::int64_t run_start = -1, previous = -1;
  for (std::int64_t t = 0; t < c.T; ++t) {
    const std::int64_t s = c.w->slot_mapping[t];
    if (s < 0) continue;
    if (s <= previous) return -1;
    if (run_start < 0) run_start = s;
    previous = s;
  }
  return run_start;
}

// Token t's k and v heads into slot `slot`, with the scale rows' bugs.
void write_token(const KvCall& c, std::int64_t t, std::int64_t slot) {
  const ropecheck_apply_params_t* p = c.p;
  const ropecheck_kv_write_t& w = *c.w;
  const Bug bug = c.k.bug;
  for (int h = 0; h < c.H; ++h) {
    float ks = kv_scale_of(w.k_scale, w.scale_kind, h), vs = kv_scale_of(w.v_scale, w.scale_kind, h);
    if (bug == Bug::kv_scales_swapped) std::swap(ks, vs);
    if (bug == Bug::kv_scale_ignored) ks = vs = 1.0f;
    const auto scaled = [&](float x, float s) { return bug == Bug::kv_scale_direction_flipped ? x * s : x / s; };
    for (int ch = 0; ch < c.D; ++ch) {
      const std::int64_t at = kv_element_offset(w, slot, h, ch);
      if (!(bug == Bug::kv_pass_through_not_cached && ch >= p->rotary_dim)) {
        const float kv = bug == Bug::kv_unrotated_k_cached
                             ? c.k_before[static_cast<std::size_t>((t * c.H + h) * c.D + ch)]
                             : impl::load_f32(p->k_out, c.k_row(t) + h * p->k_head_stride + ch, p->dtype);
        store(c.k, w.k_cache, at, w.cache_dtype, scaled(kv, ks));
      }
      if (w.v_cache) {
        const float v = impl::load_f32(w.v, t * w.v_token_stride + h * w.v_head_stride + ch, p->dtype);
        store(c.k, w.v_cache, at, w.cache_dtype, scaled(v, vs));
      }
    }
  }
}

// The write of every token with a slot (a padding token's too, for the row
// that writes it to the last slot).
void write_entries(const KvCall& c) {
  const std::int64_t slots = c.w->num_blocks * c.w->block_size;
  const std::int64_t run_start = contiguous_run_start(c);
  std::int64_t run = 0;
  for (std::int64_t t = 0; t < c.T; ++t) {
    std::int64_t slot = c.w->slot_mapping[t];
    if (slot < 0) {
      if (c.k.bug != Bug::kv_padding_writes_last_slot) continue;
      slot = ((slot % slots) + slots) % slots;  // Python's -1 % n: the last slot
    } else if (run_start >= 0) {
      slot = std::min(run_start + run++, slots - 1);  // never past the last slot
    }
    write_token(c, t, slot);
  }
}

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const KvKernel& k = *static_cast<const KvKernel*>(ctx);
  if (auto s = impl::check_apply(k.caps, p, err, n)) return s;
  KvCall c{.k = k, .p = p, .w = kv_write_of(*p), .T = p->num_tokens, .H = p->num_kv_heads, .D = p->head_dim,
           .k_before = {}, .q_kept = {}, .k_kept = {}};
  keep_inputs(c);
  ropecheck_apply_params_t rp = without_write(*p);
  // MLA's rope head with only its first half rotated (a partial rotary
  // factor of 0.5 meant for other layers applied to qk_rope_head_dim).
  if (c.w && kv_is_mla(*c.w) && k.bug == Bug::mla_rope_half_the_dims) rp.rotary_dim = p->rotary_dim / 2 / 2 * 2;
  if (auto s = k.rotation->apply(k.rotation->ctx, &rp, err, n)) return s;
  if (c.w == nullptr) return ROPECHECK_OK;
  if (k.bug == Bug::kv_write_skipped_above_4096 && c.T > 4096) return ROPECHECK_OK;
  if (k.bug == Bug::kv_write_sniffs_cache && looks_fresh(*c.w)) return ROPECHECK_OK;
  if (kv_is_mla(*c.w)) return write_mla(k, *p, *c.w, err, n);
  if (c.skips_padding()) restore_padding(c);
  write_entries(c);
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
    case Bug::kv_ties_away_from_zero:
    case Bug::kv_truncated_toward_zero:
    case Bug::kv_e5m2_not_saturated:
    case Bug::kv_write_skipped_above_4096:
    case Bug::kv_write_sniffs_cache:
    case Bug::mla_rope_half_the_dims:
    case Bug::mla_latent_rotated:
    case Bug::mla_entry_order_swapped:
    case Bug::mla_k_pe_unscaled_caller_cache: return true;
    default: return false;
  }
}

bool is_mla_bug(Bug bug) {
  return bug == Bug::mla_rope_half_the_dims || bug == Bug::mla_latent_rotated || bug == Bug::mla_entry_order_swapped ||
         bug == Bug::mla_k_pe_unscaled_caller_cache;
}

ropecheck_impl_t kv_write_mutant_table(const BugInfo& info, const ropecheck_impl_t* rotation) {
  static std::deque<KvKernel> kernels;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  // The control's capabilities (without negative positions and multi-axis:
  // kept to what the fused kernels here take) with the write granted.
  ropecheck_caps_t caps = impl::standard_caps(impl::kBothLayouts, ROPECHECK_CAP_KV_CACHE_WRITE);
  // The caller's-cache row rotates with the caller's cos/sin cache (ABI 1.6).
  const bool caller_cache = info.bug == Bug::mla_k_pe_unscaled_caller_cache;
  if (caller_cache) {
    rotation = caller_cache_control();
    caps.flags |= ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
  }
  KvKernel& k = kernels.emplace_back(KvKernel{info.bug, rotation, caps});
  ropecheck_impl_t t = impl::kernel_table(info.name, info.description, caps, policy_of(*rotation), apply, nullptr,
                                          nullptr, &k);
  t.kv_policy = ropecheck_kv_policy_t{sizeof(ropecheck_kv_policy_t), (1u << ROPECHECK_KV_DTYPE_COUNT) - 1u,
                                      (1u << ROPECHECK_KV_SCALE_KIND_COUNT) - 1u, ROPECHECK_KV_SCALE_DIVIDE, 1u, 1u};
  // The MLA rows write MLA's caches alone (ABI 1.5), so every write they
  // make shows their bug.
  if (is_mla_bug(info.bug))
    t.kv_cache_kinds = (1u << ROPECHECK_KV_CACHE_MLA_JOINT) | (1u << ROPECHECK_KV_CACHE_MLA_SPLIT);
  if (caller_cache) t.cos_sin_cache_dtypes = rotation->cos_sin_cache_dtypes;
  return t;
}

}  // namespace ropecheck::mutant
