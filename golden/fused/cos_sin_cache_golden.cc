// SPDX-License-Identifier: MIT
// The definitions of golden/fused/cos_sin_cache_golden.h.
#include "golden/fused/cos_sin_cache_golden.h"

#include <stdexcept>

#include "core/config/json_reader.h"
#include "core/kernel/caller_cos_sin_cache.h"
#include "golden/formats/storage_dtype.h"
#include "ropecheck/names.h"

namespace ropecheck::golden {

GoldenCosSinCache golden_cos_sin_cache(const Case& c) {
  if (!c.caller_cache_dtype) throw std::logic_error("golden_cos_sin_cache: the case fixes no cache dtype");
  return {*c.caller_cache_dtype, c.max_abs_position() + 1};
}

Tensor cos_sin_cache_tensor(const Case& c) {
  const GoldenCosSinCache g = golden_cos_sin_cache(c);
  // The kernel call's own builder (a fresh one: this thread's is the call's).
  CallerCosSinCache cache;
  cache.build(c, g.dtype, g.rows);
  const auto* b = static_cast<const unsigned char*>(cache.data());
  return Tensor{"cos_sin_cache", storage_tensor_dtype(g.dtype), {g.rows, c.shape.rotary_dim},
                {b, b + cache.size_bytes()}};
}

std::vector<std::string> cos_sin_cache_flags(const Case& c) {
  std::vector<std::string> f{"CallerCosSinCache"};
  if (c.caller_cache_dtype && *c.caller_cache_dtype != ROPECHECK_DTYPE_F32) f.push_back("CallerCacheInActivationDtype");
  return f;
}

nlohmann::ordered_json cos_sin_cache_to_json(const GoldenCosSinCache& g) {
  return {{"dtype", dtype_name(g.dtype)}, {"rows", g.rows}};
}

GoldenCosSinCache parse_cos_sin_cache(const nlohmann::json& j, ropecheck_dtype_t case_dtype, const std::string& file,
                                      const std::string& path) {
  if (!j.is_object()) bad(file, path, "must be an object");
  const JsonReader r(j, path + ".");
  GoldenCosSinCache g;
  const std::string d = r.string("dtype");
  if (!parse_dtype(d, &g.dtype) || g.dtype == ROPECHECK_DTYPE_F64 ||
      (g.dtype != ROPECHECK_DTYPE_F32 && g.dtype != case_dtype))
    bad(file, path + ".dtype", std::string("must be f32 or the case dtype ") + std::string(dtype_name(case_dtype)));
  g.rows = r.integer("rows", 1, std::int64_t{1} << 24);
  return g;
}

}  // namespace ropecheck::golden
