// SPDX-License-Identifier: MIT
// The KV-cache write a case carries for a kernel granting it (ABI 1.4, MLA's 1.5), and the cache bytes it covers.
#include "core/cases/kv_write_case.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

#include "core/cases/buffers.h"
#include "core/cases/rng.h"
#include "ropecheck/float_compare.h"

namespace ropecheck {
namespace {

// The stream of the write's draws: the plain case's draws are untouched.
constexpr std::uint64_t kKvStream = 0x6b76'7772'6974'6531ull;  // "kvwrite1"

bool is_fp8(KvDtype d) { return d == KvDtype::kE4M3FN || d == KvDtype::kE5M2; }

// x as the storage dtype holds it (rounded to nearest on the way in).
double round_storage(double x, ropecheck_dtype_t t) {
  unsigned char b[8] = {};
  store_value(b, 0, t, x);
  return load_as_double(b, 0, t);
}

// The stream of the boundary values a write's v carries (make_kv_v).
constexpr std::uint64_t kEdgeStream = 0x6b76'6564'6765'7331ull;  // "kvedges1"

// A quarter of v's elements replaced by the cache dtype's boundaries, each
// scaled back by its head's v scale (v = edge * s when the kernel divides by
// s, edge / s when it multiplies) and stored in the storage dtype; an edge
// the storage dtype cannot hold (overflow, or nothing but zero) keeps the
// plain draw. Ties stay exact ties for a scale of 1 or a power of two.
void put_edges(const Case& c, const KvWriteCase& w, ByteBuffer* v) {
  Rng rng(w.v_seed ^ kEdgeStream);
  const std::int64_t per_token = static_cast<std::int64_t>(w.v_heads()) * w.v_channels();
  for (std::int64_t i = 0; i < c.tokens * per_token; ++i) {
    if (!rng.chance(0.25)) continue;
    const double edge = kv_cache_edge(rng, w.dtype);
    if (exactly_equal(edge, 0.0)) continue;
    const double s = w.v_scale_of(static_cast<int>((i % per_token) / w.v_channels()));
    const double x = w.direction == ROPECHECK_KV_SCALE_MULTIPLY ? edge / s : edge * s;
    const double stored = round_storage(x, c.dtype);
    if (std::isfinite(stored) && !exactly_equal(stored, 0.0)) store_value(v->data(), i, c.dtype, stored);
  }
}

// Distinct slots for `tokens` tokens among w's blocks, some padding (-1).
void draw_slots(Rng& rng, std::int64_t tokens, KvWriteCase& w) {
  const std::int64_t b = w.block_size;
  // Distinct slots from a shuffle of every slot (Fisher-Yates on the
  // suite's own generator); padding tokens only where a real one remains.
  std::vector<std::int64_t> all(static_cast<std::size_t>(w.num_blocks * b));
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.below(i)]);
  w.slots.assign(all.begin(), all.begin() + tokens);
  for (std::int64_t t = 0; t < tokens && tokens > 1; ++t)
    if (rng.chance(0.125)) w.slots[static_cast<std::size_t>(t)] = -1;
  if (std::all_of(w.slots.begin(), w.slots.end(), [](std::int64_t s) { return s < 0; })) w.slots[0] = all[0];
}

// The scale kind and each head's (or the tensor's) k and v scales.
void draw_scales(Rng& rng, const ropecheck_kv_policy_t& policy, KvWriteCase& w) {
  // Scale kind among the declared ones; values: 1 for the 16-bit and fp32
  // caches (kernel_abi.h), for fp8 the dequantization scales of vLLM's
  // fused-cache test (k 0.7, v 1.3), 2^-4, and 0.01 (x / 0.01 saturates
  // e4m3fn from |x| > 4.48). A multiplying kernel gets their reciprocals.
  const bool per_head_ok = policy.scale_kinds & (1u << ROPECHECK_KV_SCALE_PER_HEAD);
  const bool per_tensor_ok = policy.scale_kinds & (1u << ROPECHECK_KV_SCALE_PER_TENSOR);
  w.scale_kind = per_head_ok && (!per_tensor_ok || rng.chance(0.5)) ? ROPECHECK_KV_SCALE_PER_HEAD
                                                                     : ROPECHECK_KV_SCALE_PER_TENSOR;
  const std::size_t n = w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? static_cast<std::size_t>(w.kv_heads) : 1;
  static constexpr float kDequant[] = {0.7f, 1.3f, 0.0625f, 0.01f, 1.0f};
  for (std::size_t i = 0; i < n; ++i) {
    float ks = 1, vs = 1;
    if (is_fp8(w.dtype)) {
      ks = rng.pick(kDequant);
      vs = rng.pick(kDequant);
      if (policy.scale_direction == ROPECHECK_KV_SCALE_MULTIPLY) {
        ks = 1.0f / ks;
        vs = 1.0f / vs;
      }
    }
    w.k_scale.push_back(ks);
    w.v_scale.push_back(vs);
  }
}

}  // namespace

std::optional<KvWriteCase> kv_write_case(const Case& c, const ropecheck_kv_policy_t& policy, std::uint32_t kinds) {
  if (kinds == 0) kinds = 1u << ROPECHECK_KV_CACHE_K_AND_V;
  // MLA's rope part: k_pe is one head, every channel rotated.
  // An MLA write has one per-tensor scale (kernel_abi.h): a kernel declaring
  // per-head scales alone gets none (never a scale kind it did not declare:
  // core/test/declared_cases_test.cc).
  const bool mla_shaped = c.kv_heads == 1 && c.shape.rotary_dim == c.shape.head_dim &&
                          (policy.scale_kinds & (1u << ROPECHECK_KV_SCALE_PER_TENSOR));
  const std::uint32_t mla_kinds = (1u << ROPECHECK_KV_CACHE_MLA_JOINT) | (1u << ROPECHECK_KV_CACHE_MLA_SPLIT);
  if (!(kinds & (1u << ROPECHECK_KV_CACHE_K_AND_V)) && !(mla_shaped && (kinds & mla_kinds))) return std::nullopt;
  if (c.kv_heads == 0 || c.tokens > kKvWriteMaxTokens || policy.cache_dtypes == 0) return std::nullopt;
  Rng rng(c.seed ^ (static_cast<std::uint64_t>(c.suite) << 56), kKvStream + static_cast<std::uint64_t>(c.index));
  KvWriteCase w;
  std::vector<KvDtype> dtypes;
  for (int d = 0; d < kKvDtypeCount; ++d)
    if (policy.cache_dtypes & (1u << d)) dtypes.push_back(static_cast<KvDtype>(d));
  // Cycle through the declared dtypes with the index, so a suite covers each.
  w.dtype = dtypes[static_cast<std::size_t>(c.index) % dtypes.size()];
  static constexpr int kBlockSizes[] = {1, 16, 64};
  w.block_size = rng.pick(kBlockSizes);
  w.hnd = rng.chance(0.5);
  w.kv_heads = c.kv_heads;
  w.head_dim = c.shape.head_dim;
  // Enough blocks for every token and a few more, so slots are scattered.
  const std::int64_t needed = (c.tokens + w.block_size - 1) / w.block_size;
  w.num_blocks = needed + rng.range(1, 3);
  draw_slots(rng, c.tokens, w);
  draw_scales(rng, policy, w);
  w.v_seed = rng.bits();
  w.direction = static_cast<ropecheck_kv_scale_direction_t>(policy.scale_direction);
  w.edges = true;
  // MLA (ABI 1.5): drawn after every draw above, so a K_AND_V write is what
  // it was. Among the declared kinds the case fits.
  if (mla_shaped && (kinds & mla_kinds)) {
    std::vector<ropecheck_kv_cache_kind_t> fits;
    for (int k = 0; k < ROPECHECK_KV_CACHE_KIND_COUNT; ++k)
      if (kinds & (1u << k)) fits.push_back(static_cast<ropecheck_kv_cache_kind_t>(k));
    w.kind = fits[static_cast<std::size_t>(rng.below(fits.size()))];
  }
  if (w.mla()) {
    static constexpr int kLatent[] = {512, 256};
    w.latent_dim = rng.pick(kLatent);
    w.hnd = false;
    // One scale for the whole entry (vLLM's concat_and_cache_mla `scale`).
    w.scale_kind = ROPECHECK_KV_SCALE_PER_TENSOR;
    w.k_scale.resize(1);
    w.v_scale.assign(1, w.k_scale[0]);
  }
  lay_out_kv_write(&w);
  return w;
}

void lay_out_kv_write(KvWriteCase* w) {
  const std::int64_t d = w->head_dim, h = w->kv_heads, b = w->block_size;
  w->v_block_stride = w->v_slot_stride = 0;
  if (w->mla()) {
    w->head_stride = 0;
    if (w->kind == ROPECHECK_KV_CACHE_MLA_JOINT) {
      w->slot_stride = w->latent_dim + d;
    } else {
      w->slot_stride = d;
      w->v_slot_stride = w->latent_dim;
      w->v_block_stride = b * w->latent_dim;
    }
    w->block_stride = b * w->slot_stride;
    return;
  }
  if (w->hnd) {
    w->slot_stride = d;
    w->head_stride = b * d;
  } else {
    w->head_stride = d;
    w->slot_stride = h * d;
  }
  w->block_stride = b * h * d;
}

std::string kv_write_outside_declared(const ropecheck_kv_policy_t& policy, std::uint32_t kinds, const KvWriteCase& w,
                                      ropecheck_kv_scale_direction_t direction) {
  if (kinds == 0) kinds = 1u << ROPECHECK_KV_CACHE_K_AND_V;
  if (!(policy.cache_dtypes & (1u << static_cast<int>(w.dtype))))
    return std::string("kv write: cache dtype ") + kv_dtype_name(w.dtype) + " not declared";
  if (!(policy.scale_kinds & (1u << w.scale_kind)))
    return std::string("kv write: ") + (w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? "per-head" : "per-tensor") +
           " scales not declared";
  if (!(kinds & (1u << w.kind))) return "kv write: cache kind not declared (kv_cache_kinds)";
  if (policy.scale_direction != static_cast<std::uint32_t>(direction))
    return std::string("kv write: scales meant to ") + (direction == ROPECHECK_KV_SCALE_MULTIPLY ? "multiply" : "divide") +
           ", the kernel declares the other direction";
  return {};
}

ropecheck_kv_write_t abi_kv_write(const KvWriteCase& w, const KvWriteBuffers& b) {
  ropecheck_kv_write_t kw{};
  kw.struct_size = sizeof kw;
  kw.cache_dtype = static_cast<std::uint32_t>(w.dtype);
  kw.num_blocks = w.num_blocks;
  kw.block_size = w.block_size;
  kw.scale_kind = w.scale_kind;
  kw.block_stride = w.block_stride;
  kw.slot_stride = w.slot_stride;
  kw.head_stride = w.head_stride;
  kw.k_cache = b.k_cache;
  kw.v_cache = b.v_cache;
  kw.v = b.v;
  kw.v_token_stride = static_cast<std::int64_t>(w.v_heads()) * w.v_channels();
  kw.v_head_stride = w.mla() ? 0 : w.head_dim;
  kw.cache_kind = w.kind;
  kw.latent_dim = w.latent_dim;
  kw.v_block_stride = w.v_block_stride;
  kw.v_slot_stride = w.v_slot_stride;
  kw.slot_mapping = b.slots;
  kw.k_scale = b.k_scale;
  kw.v_scale = b.v_scale;
  return kw;
}

ByteBuffer make_kv_v(const Case& c, const KvWriteCase& w) {
  // The same v for every call of a case (a fused kernel's every property
  // calls it on the case, each call drawing v again was 3% of a quick
  // gate): the last one drawn on this thread, copied. What it depends on:
  // the seed, the storage dtype and size, and, with edges, the cache dtype,
  // the direction and the v scales.
  struct Key {
    std::uint64_t seed = 0;
    ropecheck_dtype_t dtype = ROPECHECK_DTYPE_F32;
    std::int64_t n = -1;
    bool edges = false;
    KvDtype cache = KvDtype::kF32;
    ropecheck_kv_scale_direction_t direction = ROPECHECK_KV_SCALE_DIVIDE;
    std::vector<float> v_scale;
    bool operator==(const Key&) const = default;
  };
  struct Last {
    Key key;
    ByteBuffer v;
  };
  thread_local Last last;
  const std::size_t es = dtype_size(c.dtype);
  const std::int64_t n = c.tokens * w.v_heads() * w.v_channels();
  Key key{w.v_seed, c.dtype, n, w.edges, w.dtype, w.direction, w.edges ? w.v_scale : std::vector<float>{}};
  if (!(last.key == key)) {
    last.key = Key{};
    last.v.resize(static_cast<std::size_t>(n) * es);
    Rng rng(w.v_seed);
    for (std::int64_t i = 0; i < n; ++i) store_value(last.v.data(), i, c.dtype, draw_input(rng, c.dtype));
    if (w.edges) put_edges(c, w, &last.v);
    last.key = std::move(key);
  }
  return last.v;
}

CacheWritePolicy cache_write_policy(const ropecheck_kv_policy_t& p, KvDtype d) {
  CacheWritePolicy r;
  r.cache = d;
  r.direction = p.scale_direction == ROPECHECK_KV_SCALE_MULTIPLY ? ScaleDirection::kMultiply : ScaleDirection::kDivide;
  r.saturate = p.saturate != 0;
  r.via_storage = p.via_storage != 0;
  return r;
}

std::string KvWriteCase::form() const {
  const char* k = kind == ROPECHECK_KV_CACHE_MLA_JOINT   ? "MLA joint cache kv_c+k_pe"
                  : kind == ROPECHECK_KV_CACHE_MLA_SPLIT ? "MLA split caches kv_c, k_pe"
                                                         : "K and V caches";
  return std::string(k) + " " + kv_dtype_name(dtype) + " " + (hnd ? "HND" : "NHD") + ", " +
         (scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? "per-head" : "per-tensor") + " scales";
}

std::string KvWriteCase::describe() const {
  std::ostringstream os;
  std::int64_t padding = std::count(slots.begin(), slots.end(), std::int64_t{-1});
  if (mla())
    os << (kind == ROPECHECK_KV_CACHE_MLA_JOINT ? "MLA latent cache [kv_c " : "MLA caches kv_c ") << latent_dim
       << (kind == ROPECHECK_KV_CACHE_MLA_JOINT ? " | k_pe], " : " and k_pe, ");
  os << "kv cache " << kv_dtype_name(dtype) << " " << (hnd ? "HND" : "NHD") << ", " << num_blocks
     << " blocks of " << block_size << ", " << padding << " padding token(s), "
     << (scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? "per-head" : "per-tensor") << " scales k " << k_scale[0]
     << " v " << v_scale[0];
  return os.str();
}

std::vector<bool> written_bytes(const KvWriteCase& w, int which) {
  const std::size_t es = kv_dtype_size(w.dtype);
  std::vector<bool> out(which == 0 ? w.cache_bytes() : w.v_cache_bytes(), false);
  const auto mark = [&](std::int64_t element, int channels) {
    const auto at = static_cast<std::size_t>(element) * es;
    for (std::size_t b = 0; b < static_cast<std::size_t>(channels) * es; ++b) out[at + b] = true;
  };
  for (std::int64_t slot : w.slots) {
    if (slot < 0) continue;
    for (int h = 0; h < w.kv_heads; ++h) {
      if (which == 0) mark(w.offset(slot, h, 0), w.head_dim);
      if ((which == 0) == w.v_in_k_cache() && h < w.v_heads()) mark(w.v_offset(slot, h, 0), w.v_channels());
    }
  }
  return out;
}

}  // namespace ropecheck
