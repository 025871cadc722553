// SPDX-License-Identifier: MIT
// The definitions of golden/fused/kv_golden.h.
#include "golden/fused/kv_golden.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include "core/cases/rng.h"
#include "core/config/json_reader.h"
#include "core/error_model/cache_write_budget.h"
#include "core/judge/kv_cache_judge.h"
#include "golden/catalog/catalog.h"
#include "golden/formats/storage_dtype.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/kv_write.h"

namespace ropecheck::golden {
namespace {


bool is_fp8(KvDtype d) { return d == KvDtype::kE4M3FN || d == KvDtype::kE5M2; }

TensorDtype cache_tensor_dtype(KvDtype d) {
  switch (d) {
    case KvDtype::kF16: return TensorDtype::kF16;
    case KvDtype::kBF16: return TensorDtype::kBF16;
    case KvDtype::kF32: return TensorDtype::kF32;
    default: return TensorDtype::kU8;
  }
}

// The shape of cache `which` (0: K, 1: V) in cache elements.
std::vector<std::int64_t> cache_shape(const KvWriteCase& w, int which) {
  const std::int64_t nb = w.num_blocks, bs = w.block_size;
  switch (w.kind) {
    case ROPECHECK_KV_CACHE_MLA_JOINT: return {nb, bs, w.latent_dim + w.head_dim};
    case ROPECHECK_KV_CACHE_MLA_SPLIT: return {nb, bs, which == 0 ? w.head_dim : w.latent_dim};
    default:
      return w.hnd ? std::vector<std::int64_t>{nb, w.kv_heads, bs, w.head_dim}
                   : std::vector<std::int64_t>{nb, bs, w.kv_heads, w.head_dim};
  }
}

Tensor f32_tensor(std::string name, const std::vector<float>& v) {
  Tensor t{std::move(name), TensorDtype::kF32, {static_cast<std::int64_t>(v.size())}, {}};
  t.bytes.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

const Tensor& need(const std::vector<Tensor>& ts, const std::string& name, TensorDtype dtype,
                   const std::vector<std::int64_t>& shape, const std::string& where) {
  for (const Tensor& t : ts) {
    if (t.name != name) continue;
    if (t.dtype != dtype || t.shape != shape)
      throw FormatError(where, "tensor '" + name + "'",
                        std::string("must be ") + tensor_dtype_name(dtype) + " with the shape the manifest's kvWrite implies");
    return t;
  }
  throw FormatError(where, "tensor '" + name + "'", "missing (a case with a kvWrite holds it)");
}

void put_code(ByteBuffer& cache, std::int64_t i, std::uint32_t code, KvDtype d) {
  std::memcpy(cache.data() + static_cast<std::size_t>(i) * kv_dtype_size(d), &code, kv_dtype_size(d));
}

// A code's raw value from a cache tensor's bytes.
std::uint32_t code_at(const Tensor& t, std::int64_t i, std::size_t es) {
  std::uint32_t code = 0;
  std::memcpy(&code, t.bytes.data() + static_cast<std::size_t>(i) * es, es);
  return code;
}

// A NaN of a 16- or 32-bit cache dtype (fp8's codes are kept exactly by
// every format, a NaN's payload is not).
bool wide_nan(std::uint32_t code, KvDtype d) {
  return !is_fp8(d) && std::isnan(cache_code_value(code, d));
}

// The code a correct kernel's exact value gives: the reference's double of
// the exact value, scaled in double, rounded to nearest even. When the
// exact value is not a value of the storage dtype (a rotated channel at a
// nonzero angle or attention factor), the double is within 2^-52 (relative)
// of the exact scaled value; the code is certified only when every value
// within 2^-50 of it rounds to the same code. An exact input divided by an
// fp32 scale is correctly rounded to double, and a rounding to at most 24
// bits after it is innocuous (Figueroa, "When is double rounding
// innocuous?", SIGNUM 1995: a quotient of p-bit numbers rounded to 2p + 2
// bits or more, then to p).
std::uint32_t expected_code(const KvCacheElement& e, bool inexact, const GoldenKv& kv, const std::string& label) {
  const double x = e.budget.center;
  const KvDtype d = kv.spec.dtype;
  const std::uint32_t code = round_to_cache_code(x, d, kv.saturate);
  if (inexact && std::isfinite(x)) {
    const double m = std::fabs(x) * 0x1p-50;
    if (round_to_cache_code(x - m, d, kv.saturate) != code || round_to_cache_code(x + m, d, kv.saturate) != code)
      throw std::logic_error(label + ": the expected code of k[token " + std::to_string(e.token) + ", head " +
                             std::to_string(e.head) + ", channel " + std::to_string(e.channel) +
                             "] lies within the reference double's error of a rounding boundary of " +
                             kv_dtype_name(d) + "; the suite must not contain such a case");
  }
  return code;
}

}  // namespace

ropecheck_kv_policy_t GoldenKv::policy() const {
  ropecheck_kv_policy_t p{};
  p.struct_size = sizeof p;
  p.cache_dtypes = 1u << static_cast<int>(spec.dtype);
  p.scale_kinds = 1u << spec.scale_kind;
  p.scale_direction = static_cast<std::uint32_t>(direction);
  p.saturate = saturate ? 1u : 0u;
  p.via_storage = via_storage ? 1u : 0u;
  return p;
}

KvRun GoldenKv::run() const {
  KvRun r;
  r.spec = spec;
  r.v = v;
  r.k_initial = r.k_cache = k_cache_before;
  r.v_initial = r.v_cache = v_cache_before;
  return r;
}

void fill_golden_kv(const Case& c, std::uint64_t seed, GoldenKv* kv) {
  kv->v = make_kv_v(c, kv->spec);
  Rng rng(seed, 0x6b76'6361'6368'6531ull);  // "kvcache1": a stream of its own
  const KvDtype d = kv->spec.dtype;
  const std::size_t es = kv_dtype_size(d);
  auto fill = [&](std::size_t bytes) {
    ByteBuffer b(bytes);
    for (std::size_t i = 0; i < bytes / es; ++i) {
      std::uint32_t code = 0;
      do code = static_cast<std::uint32_t>(rng.bits() & ((es == 4) ? 0xffffffffull : (1ull << (8 * es)) - 1));
      while (!std::isfinite(cache_code_value(code, d)));
      std::memcpy(b.data() + i * es, &code, es);
    }
    return b;
  };
  kv->k_cache_before = fill(kv->spec.cache_bytes());
  kv->v_cache_before = fill(kv->spec.v_cache_bytes());
}

Tensor cache_tensor(std::string name, const GoldenKv& kv, int which, const ByteBuffer& bytes) {
  Tensor t{std::move(name), cache_tensor_dtype(kv.spec.dtype), cache_shape(kv.spec, which), {}};
  t.bytes.assign(bytes.begin(), bytes.end());
  return t;
}

std::vector<Tensor> kv_case_tensors(const Case& c, const QkBuffers& in, const ReferenceResult& ref, const GoldenKv& kv,
                                    const std::string& label) {
  const KvWriteCase& w = kv.spec;
  const CacheWritePolicy policy = cache_write_policy(kv.policy(), w.dtype);
  std::vector<Tensor> out;
  const std::int64_t T = c.tokens;
  const int H = w.kv_heads, D = w.head_dim, VH = w.v_heads(), VC = w.v_channels();
  out.push_back(Tensor{"v", storage_tensor_dtype(c.dtype), {T, VH, VC}, {kv.v.begin(), kv.v.end()}});
  out.push_back(i64_tensor("slot_mapping", {T}, w.slots));
  out.push_back(f32_tensor("k_scale", w.k_scale));
  out.push_back(f32_tensor("v_scale", w.v_scale));
  out.push_back(cache_tensor("k_cache_before", kv, 0, kv.k_cache_before));
  if (kv.has_v_cache()) out.push_back(cache_tensor("v_cache_before", kv, 1, kv.v_cache_before));

  const auto budgets = budget_policies();
  std::vector<std::vector<KvCacheElement>> per_policy;
  for (const BudgetPolicy& bp : budgets)
    per_policy.push_back(kv_cache_elements({.c = c, .in = in, .ref = ref},
                                           case_error_model(bp.policy, c, ref.attention_factor), policy, w, kv.v));
  // The caches a correct kernel leaves: before, with every written
  // element's code; each element's place.
  ByteBuffer k_exp = kv.k_cache_before, v_exp = kv.v_cache_before;
  std::vector<std::int64_t> k_index(static_cast<std::size_t>(T * H * D), -1),
      v_index(static_cast<std::size_t>(T * VH * VC), -1);
  std::vector<std::int64_t> v_lo(v_index.size(), 0), v_hi(v_index.size(), 0);
  const auto k_at = [&](const KvCacheElement& e) { return static_cast<std::size_t>((e.token * H + e.head) * D + e.channel); };
  const auto v_at = [&](const KvCacheElement& e) { return static_cast<std::size_t>((e.token * VH + e.head) * VC + e.channel); };
  for (const KvCacheElement& e : per_policy.front()) {
    const bool inexact = e.k && e.channel < c.shape.rotary_dim &&
                         !(c.position(e.token, 0) == 0 && exactly_equal(ref.attention_factor, 1.0));
    put_code(e.in_k_cache ? k_exp : v_exp, e.offset, expected_code(e, inexact, kv, label), w.dtype);
    if (e.k) {
      k_index[k_at(e)] = e.offset;
    } else {
      v_index[v_at(e)] = e.offset;
      v_lo[v_at(e)] = e.budget.lo;
      v_hi[v_at(e)] = e.budget.hi;
    }
  }
  for (std::int64_t t = 0; t < T; ++t) {
    if (w.slots[static_cast<std::size_t>(t)] < 0) continue;
    for (std::size_t i = static_cast<std::size_t>(t * H * D); i < static_cast<std::size_t>((t + 1) * H * D); ++i)
      if (k_index[i] < 0) throw std::logic_error(label + ": token " + std::to_string(t) + " has a k element no write covers (a sampled case?)");
  }
  out.push_back(cache_tensor("k_cache_expected", kv, 0, k_exp));
  if (kv.has_v_cache()) out.push_back(cache_tensor("v_cache_expected", kv, 1, v_exp));
  out.push_back(i64_tensor("k_cache_index", {T, H, D}, k_index));
  out.push_back(i64_tensor("v_cache_index", {T, VH, VC}, v_index));
  for (std::size_t p = 0; p < budgets.size(); ++p) {
    std::vector<std::int64_t> lo(k_index.size(), 0), hi(k_index.size(), 0);
    for (const KvCacheElement& e : per_policy[p])
      if (e.k) {
        lo[k_at(e)] = e.budget.lo;
        hi[k_at(e)] = e.budget.hi;
      }
    out.push_back(i64_tensor(std::string("k_cache_lo_") + budgets[p].name, {T, H, D}, lo));
    out.push_back(i64_tensor(std::string("k_cache_hi_") + budgets[p].name, {T, H, D}, hi));
  }
  out.push_back(i64_tensor("v_cache_lo", {T, VH, VC}, v_lo));
  out.push_back(i64_tensor("v_cache_hi", {T, VH, VC}, v_hi));
  return out;
}

std::vector<std::string> kv_flags(const Case& c, const QkBuffers& in, const ReferenceResult& ref, const GoldenKv& kv) {
  const KvWriteCase& w = kv.spec;
  std::vector<std::string> f{"KvCacheWrite"};
  std::vector<std::int64_t> real;
  for (std::int64_t s : w.slots)
    if (s >= 0) real.push_back(s);
  if (real.size() < w.slots.size()) f.push_back("KvPaddingSlot");
  if (!w.mla() && w.hnd) f.push_back("KvLayoutHND");
  if (w.block_size == 1) f.push_back("KvBlockSize1");
  // The prefill path the catalogue's contiguous-slots row takes: over 16
  // tokens, slots ascending, not one contiguous run.
  if (c.tokens > 16 && std::is_sorted(real.begin(), real.end()) &&
      std::adjacent_find(real.begin(), real.end(), [](std::int64_t a, std::int64_t b) { return a == b; }) == real.end() &&
      !real.empty() && real.back() - real.front() + 1 > static_cast<std::int64_t>(real.size()))
    f.push_back("KvAscendingSlots");
  if (is_fp8(w.dtype)) f.push_back("KvCacheFp8");
  if (w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD) f.push_back("KvPerHeadScales");
  if (kv.direction == ROPECHECK_KV_SCALE_MULTIPLY) f.push_back("KvScaleMultiply");
  if (kv.saturate && is_fp8(w.dtype)) {
    const double top = cache_code_value(round_to_cache_code(HUGE_VAL, w.dtype, true), w.dtype);
    const std::vector<KvCacheElement> es = kv_cache_elements(
        {.c = c, .in = in, .ref = ref}, case_error_model(budget_policies().front().policy, c, ref.attention_factor),
        cache_write_policy(kv.policy(), w.dtype), w, kv.v);
    for (const KvCacheElement& e : es)
      if (std::fabs(e.budget.center) > top) {
        f.push_back("KvSaturating");
        break;
      }
  }
  if (!w.mla() && c.shape.rotary_dim < c.shape.head_dim) f.push_back("KvPassThroughCached");
  if (w.kind == ROPECHECK_KV_CACHE_MLA_JOINT) f.push_back("MlaJointCache");
  if (w.kind == ROPECHECK_KV_CACHE_MLA_SPLIT) f.push_back("MlaSplitCache");
  return f;
}

GoldenKv read_golden_kv(const GoldenKv& declared, const Case& c, const std::vector<Tensor>& ts,
                        const std::string& where) {
  GoldenKv kv = declared;
  KvWriteCase& w = kv.spec;
  const std::int64_t T = c.tokens;
  const Tensor& slots = need(ts, "slot_mapping", TensorDtype::kI64, {T}, where);
  w.slots.clear();
  std::set<std::int64_t> seen;
  for (std::int64_t t = 0; t < T; ++t) {
    const std::int64_t s = slots.int_value(t);
    w.slots.push_back(s < 0 ? -1 : s);
    if (s >= 0 && !seen.insert(s).second)
      throw FormatError(where, "tensor 'slot_mapping' element " + std::to_string(t),
                        "slot " + std::to_string(s) + " repeats an earlier token's: each token writes its own slot");
  }
  const std::int64_t n = w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? w.kv_heads : 1;
  for (const char* name : {"k_scale", "v_scale"}) {
    const Tensor& s = need(ts, name, TensorDtype::kF32, {n}, where);
    std::vector<float>& into = name[0] == 'k' ? w.k_scale : w.v_scale;
    into.clear();
    for (std::int64_t i = 0; i < n; ++i) into.push_back(static_cast<float>(s.value(i)));
  }
  const Tensor& v = need(ts, "v", storage_tensor_dtype(c.dtype), {T, w.v_heads(), w.v_channels()}, where);
  kv.v.assign(v.bytes.begin(), v.bytes.end());
  const TensorDtype cd = cache_tensor_dtype(w.dtype);
  const Tensor& kb = need(ts, "k_cache_before", cd, cache_shape(w, 0), where);
  kv.k_cache_before.assign(kb.bytes.begin(), kb.bytes.end());
  kv.v_cache_before.clear();
  if (kv.has_v_cache()) {
    const Tensor& vb = need(ts, "v_cache_before", cd, cache_shape(w, 1), where);
    kv.v_cache_before.assign(vb.bytes.begin(), vb.bytes.end());
  }
  // The write as the ABI hands it: what kernel_abi.h calls valid.
  const ropecheck_kv_write_t a =
      abi_kv_write(w, {kv.k_cache_before.data(), kv.has_v_cache() ? kv.v_cache_before.data() : nullptr, kv.v.data(),
                       w.slots.data(), w.k_scale.data(), w.v_scale.data()});
  if (const char* err = kv_write_error(a, T, c.kv_heads, c.shape.head_dim, c.shape.rotary_dim))
    throw FormatError(where, "kvWrite", err);
  return kv;
}

CacheMeasure cache_measure(const std::vector<Tensor>& ts, const GoldenKv& kv, const CacheNames& names,
                           const std::string& policy, const std::string& where) {
  const std::string& k_cache = names.k_cache;
  const std::string& v_cache = names.v_cache;
  const KvWriteCase& w = kv.spec;
  const KvDtype d = w.dtype;
  const std::size_t es = kv_dtype_size(d);
  const TensorDtype cd = cache_tensor_dtype(d);
  std::vector<const Tensor*> out{&need(ts, k_cache, cd, cache_shape(w, 0), where)};
  std::vector<const Tensor*> before{&need(ts, "k_cache_before", cd, cache_shape(w, 0), where)};
  if (kv.has_v_cache()) {
    out.push_back(&need(ts, v_cache, cd, cache_shape(w, 1), where));
    before.push_back(&need(ts, "v_cache_before", cd, cache_shape(w, 1), where));
  }
  const std::int64_t tokens = static_cast<std::int64_t>(w.slots.size());
  const std::vector<std::int64_t> kshape{tokens, w.kv_heads, w.head_dim}, vshape{tokens, w.v_heads(), w.v_channels()};
  const Tensor& k_index = need(ts, "k_cache_index", TensorDtype::kI64, kshape, where);
  const Tensor& lo = need(ts, "k_cache_lo_" + policy, TensorDtype::kI64, kshape, where);
  const Tensor& hi = need(ts, "k_cache_hi_" + policy, TensorDtype::kI64, kshape, where);
  const Tensor& v_index = need(ts, "v_cache_index", TensorDtype::kI64, vshape, where);
  const Tensor& v_lo = need(ts, "v_cache_lo", TensorDtype::kI64, vshape, where);
  const Tensor& v_hi = need(ts, "v_cache_hi", TensorDtype::kI64, vshape, where);
  CacheMeasure m;
  std::vector<std::vector<bool>> written;
  for (const Tensor* t : out) written.emplace_back(static_cast<std::size_t>(t->elements()), false);
  auto judge = [&](const Tensor& index, const Tensor& l, const Tensor& h, int cache) {
    for (std::int64_t i = 0; i < index.elements(); ++i) {
      const std::int64_t at = index.int_value(i);
      if (at < 0) continue;
      if (at >= out[static_cast<std::size_t>(cache)]->elements())
        throw FormatError(where, "tensor '" + index.name + "' element " + std::to_string(i), "lies past the cache");
      written[static_cast<std::size_t>(cache)][static_cast<std::size_t>(at)] = true;
      const std::uint32_t code = code_at(*out[static_cast<std::size_t>(cache)], at, es);
      const std::int64_t o = code_ordinal(code, d), a = l.int_value(i), b = h.int_value(i);
      const double steps = wide_nan(code, d) ? HUGE_VAL : static_cast<double>(o < a ? a - o : o > b ? o - b : 0);
      m.steps = std::max(m.steps, steps);
    }
  };
  judge(k_index, lo, hi, 0);
  judge(v_index, v_lo, v_hi, w.v_in_k_cache() ? 0 : 1);
  for (std::size_t c = 0; c < out.size(); ++c)
    for (std::int64_t i = 0; i < out[c]->elements(); ++i)
      if (!written[c][static_cast<std::size_t>(i)] &&
          std::memcmp(out[c]->bytes.data() + i * es, before[c]->bytes.data() + i * es, es) != 0)
        m.steps = HUGE_VAL;
  m.within = exactly_equal(m.steps, 0.0);
  return m;
}

}  // namespace ropecheck::golden
