// SPDX-License-Identifier: MIT
// The definitions of python/module/kv_cache_bridge.h.
#include "python/module/kv_cache_bridge.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "ropecheck/dtype.h"
#include "ropecheck/kv_write.h"

namespace ropecheck::python {
namespace {

const char* kCacheDtypeNames[] = {"f32", "f16", "bf16", "fp8_e4m3fn", "fp8_e5m2"};

bool nhd(const ropecheck_kv_write_t& w, std::int64_t heads, std::int64_t d) {
  return w.head_stride == d && w.slot_stride == heads * d && w.block_stride == w.block_size * heads * d;
}
bool hnd(const ropecheck_kv_write_t& w, std::int64_t heads, std::int64_t d) {
  return w.slot_stride == d && w.head_stride == w.block_size * d && w.block_stride == w.block_size * heads * d;
}

// The host array of a cache: its numpy dtype and shape.
py::dtype host_cache_dtype(std::uint32_t d) {
  switch (d) {
    case ROPECHECK_KV_F16: return py::dtype("float16");
    case ROPECHECK_KV_F32:
    case ROPECHECK_KV_BF16: return py::dtype("float32");  // bf16 widened, as q and k are
    default: return py::dtype("uint8");                      // fp8 codes
  }
}

std::vector<py::ssize_t> cache_shape(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w) {
  if (nhd(w, p.num_kv_heads, p.head_dim)) return {w.num_blocks, w.block_size, p.num_kv_heads, p.head_dim};
  return {w.num_blocks, p.num_kv_heads, w.block_size, p.head_dim};
}

// The cache's bytes as its host array.
py::array cache_array(const void* bytes, const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w) {
  py::array a(host_cache_dtype(w.cache_dtype), cache_shape(p, w));
  const std::int64_t n = w.num_blocks * w.block_stride;
  if (w.cache_dtype == ROPECHECK_KV_BF16) {
    auto* out = static_cast<float*>(a.mutable_data());
    for (std::int64_t i = 0; i < n; ++i) {
      std::uint16_t b;
      std::memcpy(&b, static_cast<const unsigned char*>(bytes) + 2 * i, 2);
      out[i] = bf16_to_f32(b);
    }
  } else {
    std::memcpy(a.mutable_data(), bytes, static_cast<std::size_t>(n) * kv_dtype_size(w.cache_dtype));
  }
  return a;
}

// The storage handed over for a cache dtype: bf16 becomes torch.bfloat16.
ropecheck_dtype_t handed_as(std::uint32_t d) { return d == ROPECHECK_KV_BF16 ? ROPECHECK_DTYPE_BF16 : ROPECHECK_DTYPE_F32; }

py::array scales_array(const float* s, std::int64_t n) {
  py::array_t<float> a(n);
  std::memcpy(a.mutable_data(), s, static_cast<std::size_t>(n) * sizeof(float));
  return a;
}

}  // namespace

std::string kv_door_refusal(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w) {
  if (kv_is_mla(w)) return "kv_write.cache_kind: the Python door hands over K and V caches only (no MLA)";
  if (!nhd(w, p.num_kv_heads, p.head_dim) && !hnd(w, p.num_kv_heads, p.head_dim))
    return "kv_write strides: the Python door hands over dense NHD or HND caches only";
  if (w.cache_dtype >= ROPECHECK_KV_DTYPE_COUNT) return "kv_write.cache_dtype: unknown";
  return {};
}

KvHandOff hand_over(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w, const ArrayKind& kind) {
  KvHandOff h;
  KvCacheCall& c = h.call;
  const auto dtype = static_cast<ropecheck_dtype_t>(p.dtype);
  const StridedView v{w.v, nullptr, p.num_tokens, p.num_kv_heads, p.head_dim, w.v_token_stride, w.v_head_stride, dtype};
  h.v = dense_copy(v);
  c.v = to_kernel_array(dense_copy(v), dtype, kind);
  const ropecheck_dtype_t as = handed_as(w.cache_dtype);
  c.k_cache = to_kernel_array(cache_array(w.k_cache, p, w), as, kind);
  c.v_cache = w.v_cache ? to_kernel_array(cache_array(w.v_cache, p, w), as, kind) : py::none();
  py::array_t<std::int64_t> slots(p.num_tokens);
  std::memcpy(slots.mutable_data(), w.slot_mapping, static_cast<std::size_t>(p.num_tokens) * 8);
  h.slots = slots;
  const py::array handed = py::module_::import("numpy").attr("array")(slots, py::arg("copy") = true);
  c.slot_mapping = to_kernel_array(handed, ROPECHECK_DTYPE_F32, kind);
  const std::int64_t scales = w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? p.num_kv_heads : 1;
  h.k_scale = scales_array(w.k_scale, scales);
  h.v_scale = scales_array(w.v_scale, scales);
  c.k_scale = to_kernel_array(scales_array(w.k_scale, scales), ROPECHECK_DTYPE_F32, kind);
  c.v_scale = to_kernel_array(scales_array(w.v_scale, scales), ROPECHECK_DTYPE_F32, kind);
  c.cache_dtype = kCacheDtypeNames[w.cache_dtype];
  c.layout = nhd(w, p.num_kv_heads, p.head_dim) ? "NHD" : "HND";
  c.scale_kind = w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? "per_head" : "per_tensor";
  c.num_blocks = w.num_blocks;
  c.block_size = w.block_size;
  return h;
}

std::string changed_kv_input(const KvHandOff& h, const ropecheck_apply_params_t& p, const ArrayKind& kind) {
  const auto dtype = static_cast<ropecheck_dtype_t>(p.dtype);
  if (!same_bits(to_host_copy(h.call.v, dtype, kind), h.v)) return "kv.v";
  if (!same_bits(to_host_copy(h.call.slot_mapping, ROPECHECK_DTYPE_F32, kind), h.slots)) return "kv.slot_mapping";
  if (!same_bits(to_host_copy(h.call.k_scale, ROPECHECK_DTYPE_F32, kind), h.k_scale)) return "kv.k_scale";
  if (!same_bits(to_host_copy(h.call.v_scale, ROPECHECK_DTYPE_F32, kind), h.v_scale)) return "kv.v_scale";
  return {};
}

void take_back_caches(const KvHandOff& h, const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w,
                      const ArrayKind& kind) {
  const std::int64_t n = w.num_blocks * w.block_stride;
  for (int which = 0; which < 2; ++which) {
    void* dst = which == 0 ? w.k_cache : w.v_cache;
    if (dst == nullptr) continue;
    const py::array a = to_host_copy(which == 0 ? h.call.k_cache : h.call.v_cache, handed_as(w.cache_dtype), kind);
    const py::dtype want = host_cache_dtype(w.cache_dtype);
    const std::vector<py::ssize_t> shape = cache_shape(p, w);
    bool ok = a.dtype().is(want) && a.ndim() == 4;
    for (py::ssize_t i = 0; ok && i < 4; ++i) ok = a.shape(i) == shape[static_cast<std::size_t>(i)];
    if (!ok)
      throw KernelContractError(std::string("kv.") + (which == 0 ? "k_cache" : "v_cache") +
                                " came back with another shape or dtype: write into it in place");
    if (w.cache_dtype == ROPECHECK_KV_BF16) {
      // A float32 holding a bf16 value (what was handed over, and what a
      // kernel that rounds writes) is its code exactly, NaN payloads
      // included; anything else rounds to nearest even.
      const auto* in = static_cast<const float*>(a.data());
      for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, &in[i], 4);
        const std::uint16_t b = (bits & 0xffffu) == 0 ? static_cast<std::uint16_t>(bits >> 16) : f32_to_bf16(in[i]);
        std::memcpy(static_cast<unsigned char*>(dst) + 2 * i, &b, 2);
      }
    } else {
      std::memcpy(dst, a.data(), static_cast<std::size_t>(n) * kv_dtype_size(w.cache_dtype));
    }
  }
}

}  // namespace ropecheck::python
