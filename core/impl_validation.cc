#include "core/impl_validation.h"

#include <cstring>

#include "core/error_model.h"

namespace ropecheck {
namespace {

constexpr std::uint32_t kKnownFlags = ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE |
                                      ROPECHECK_CAP_COS_SIN_CACHE | ROPECHECK_CAP_INVERSE |
                                      ROPECHECK_CAP_PARTIAL_ROTARY | ROPECHECK_CAP_POS_INT32 |
                                      ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_NEGATIVE_POSITIONS;
// Storage dtypes the gate can run a kernel on: fp32, fp16, bf16.
constexpr std::uint32_t kStorageDtypes =
    (1u << ROPECHECK_DTYPE_F32) | (1u << ROPECHECK_DTYPE_F16) | (1u << ROPECHECK_DTYPE_BF16);

std::string bits(std::uint32_t v) { return "0x" + [&] {
  char b[16];
  std::snprintf(b, sizeof b, "%x", v);
  return std::string(b);
}(); }

}  // namespace

std::string validate_impl_table(const ropecheck_impl_t* t) {
  if (t == nullptr) return "table: is null";
  if (t->struct_size < sizeof(ropecheck_impl_t))
    return "struct_size: must be >= " + std::to_string(sizeof(ropecheck_impl_t)) + " (got " +
           std::to_string(t->struct_size) + ")";
  if (t->abi_version != ROPECHECK_ABI_VERSION)
    return "abi_version: this host speaks version " + std::to_string(ROPECHECK_ABI_VERSION) + " (got " +
           std::to_string(t->abi_version) + ")";
  if (t->name == nullptr) return "name: is null";
  const std::size_t n = strnlen(t->name, kMaxImplNameLength + 1);
  if (n == 0 || n > kMaxImplNameLength)
    return "name: must have 1 to " + std::to_string(kMaxImplNameLength) + " characters";
  for (std::size_t i = 0; i < n; ++i) {
    const char ch = t->name[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'))
      return "name: must match [a-z0-9_]+ (character " + std::to_string(i) + " is not)";
  }
  if (t->description == nullptr) return "description: is null";
  if (strnlen(t->description, kMaxImplDescriptionLength + 1) > kMaxImplDescriptionLength)
    return "description: must have at most " + std::to_string(kMaxImplDescriptionLength) + " characters";
  if (t->apply == nullptr) return "apply: is null";
  const ropecheck_caps_t& c = t->caps;
  if (c.struct_size < sizeof(ropecheck_caps_t))
    return "caps.struct_size: must be >= " + std::to_string(sizeof(ropecheck_caps_t)) + " (got " +
           std::to_string(c.struct_size) + ")";
  const std::uint32_t layouts = (1u << ROPECHECK_LAYOUT_COUNT) - 1;
  if (c.layouts == 0 || (c.layouts & ~layouts)) return "caps.layouts: must be a non-empty subset of " + bits(layouts) + " (got " + bits(c.layouts) + ")";
  if (c.dtypes == 0 || (c.dtypes & ~kStorageDtypes))
    return "caps.dtypes: must be a non-empty subset of f32|f16|bf16 = " + bits(kStorageDtypes) + " (got " + bits(c.dtypes) + ")";
  const std::uint32_t schemes = (1u << ROPECHECK_SCHEME_COUNT) - 1;
  if (c.schemes == 0 || (c.schemes & ~schemes)) return "caps.schemes: must be a non-empty subset of " + bits(schemes) + " (got " + bits(c.schemes) + ")";
  if (c.max_head_dim < 2 || c.max_head_dim > 4096)
    return "caps.max_head_dim: must be in [2, 4096] (got " + std::to_string(c.max_head_dim) + ")";
  if (c.flags & ~kKnownFlags) return "caps.flags: unknown bits " + bits(c.flags & ~kKnownFlags);
  if (!(c.flags & (ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE)))
    return "caps.flags: must allow in-place or out-of-place";
  if (!(c.flags & (ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_POS_INT64)))
    return "caps.flags: must accept int32 or int64 positions";
  if ((c.flags & ROPECHECK_CAP_COS_SIN_CACHE) && t->build_cache == nullptr)
    return "build_cache: required by caps.flags COS_SIN_CACHE";
  if ((c.flags & ROPECHECK_CAP_COS_SIN_CACHE) && (c.flags & ROPECHECK_CAP_NEGATIVE_POSITIONS))
    return "caps.flags: NEGATIVE_POSITIONS cannot go with COS_SIN_CACHE (a cache row has no negative index)";
  if (std::string why = ErrorModel::check_policy(t->policy); !why.empty()) return why;
  return {};
}

}  // namespace ropecheck
