// SPDX-License-Identifier: MIT
// Validation of an implementation's table before anything calls it.
#include "core/kernel/impl_validation.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "core/error_model/error_model.h"
#include "ropecheck/axes.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/policy.h"

namespace ropecheck {
namespace {

constexpr std::uint32_t kKnownFlags = ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE |
                                      ROPECHECK_CAP_COS_SIN_CACHE | ROPECHECK_CAP_INVERSE |
                                      ROPECHECK_CAP_PARTIAL_ROTARY | ROPECHECK_CAP_POS_INT32 |
                                      ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_NEGATIVE_POSITIONS |
                                      ROPECHECK_CAP_YARN_TRUNCATED_ONLY | ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR |
                                      ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN | ROPECHECK_CAP_SEQ_STRIDES |
                                      ROPECHECK_CAP_BATCH_INVARIANT | ROPECHECK_CAP_AXES_SECTIONS |
                                      ROPECHECK_CAP_AXES_INTERLEAVED | ROPECHECK_CAP_AXES_TABLE |
                                      ROPECHECK_CAP_AXIS_FREQUENCIES | ROPECHECK_CAP_KV_CACHE_WRITE |
                                      ROPECHECK_CAP_QK_NORM | ROPECHECK_CAP_CALLER_COS_SIN_CACHE |
                                      ROPECHECK_CAP_NO_YARN_MSCALE | ROPECHECK_CAP_MAY_DECLINE |
                                      ROPECHECK_CAP_QUANTIZED_OUTPUT;
// Storage dtypes the gate can run a kernel on: fp32, fp16, bf16.
constexpr std::uint32_t kStorageDtypes =
    (1u << ROPECHECK_DTYPE_F32) | (1u << ROPECHECK_DTYPE_F16) | (1u << ROPECHECK_DTYPE_BF16);

std::string bits(std::uint32_t v) { return "0x" + [&] {
  char b[16];
  std::snprintf(b, sizeof b, "%x", v);
  return std::string(b);
}(); }

// The struct_size rules of the minor versions (kernel_abi.h, "Versions").
std::string check_struct_size(const ropecheck_impl_t& t) {
  const std::size_t n = t.struct_size, v10 = ROPECHECK_IMPL_SIZE_1_0, v11 = ROPECHECK_IMPL_SIZE_1_1;
  const std::string sizes = std::to_string(v10) + " (ABI 1.0) or >= " + std::to_string(v11) + " (1.1)";
  if (n < v10 || (n > v10 && n < v11) || n > kMaxImplStructSize)
    return "struct_size: must be " + sizes + " and <= " + std::to_string(kMaxImplStructSize) + " (got " +
           std::to_string(n) + ")";
  if (n > sizeof(ropecheck_impl_t)) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&t);
    if (std::any_of(bytes + sizeof(ropecheck_impl_t), bytes + n, [](unsigned char b) { return b != 0; }))
      return "struct_size: " + std::to_string(n) + " bytes with members past this host's ABI 1." +
             std::to_string(ROPECHECK_ABI_VERSION_MINOR) + " table (" + std::to_string(sizeof(ropecheck_impl_t)) +
             " bytes) set: the kernel uses a newer ABI minor version than this ropecheck";
  }
  return {};
}

// The 1.1 members of a table that has them.
std::string check_1_1_members(const ropecheck_impl_t& t) {
  if (t.reserved0 != 0) return "reserved0: must be 0";
  const ropecheck_policy_ext_t& e = t.policy_ext;
  if (e.struct_size == 0) {
    const auto* b = reinterpret_cast<const unsigned char*>(&e);
    if (std::any_of(b, b + sizeof e, [](unsigned char x) { return x != 0; }))
      return "policy_ext.struct_size: is 0 (no extension) but fields are set; set it to "
             "sizeof(ropecheck_policy_ext_t) = " + std::to_string(sizeof e);
  }
  return {};
}

// The 1.4 grant KV_CACHE_WRITE and what it declares (kernel_abi.h,
// ropecheck_kv_policy_t); a table not granting it may set no kv_policy.
std::string check_kv_policy(const ropecheck_impl_t& raw, const ropecheck_impl_t& t) {
  const ropecheck_kv_policy_t& k = t.kv_policy;
  const auto* b = reinterpret_cast<const unsigned char*>(&k);
  const bool any = std::any_of(b, b + sizeof k, [](unsigned char x) { return x != 0; });
  if (!(t.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE)) {
    if (any) return "kv_policy: set, but caps.flags does not grant KV_CACHE_WRITE (bit 17)";
    return {};
  }
  if (t.abi_minor < 4 || raw.struct_size < ROPECHECK_IMPL_SIZE_1_4)
    return "caps.flags: KV_CACHE_WRITE (bit 17) needs abi_minor >= 4 and struct_size >= " +
           std::to_string(ROPECHECK_IMPL_SIZE_1_4) + " (ABI 1.4; got abi_minor " + std::to_string(t.abi_minor) +
           ", struct_size " + std::to_string(raw.struct_size) + ")";
  if (k.struct_size != sizeof k)
    return "kv_policy.struct_size: must be sizeof(ropecheck_kv_policy_t) = " + std::to_string(sizeof k) +
           " with KV_CACHE_WRITE (got " + std::to_string(k.struct_size) + ")";
  const std::uint32_t dtypes = (1u << ROPECHECK_KV_DTYPE_COUNT) - 1;
  if (k.cache_dtypes == 0 || (k.cache_dtypes & ~dtypes))
    return "kv_policy.cache_dtypes: must be a non-empty subset of " + bits(dtypes) + " (got " + bits(k.cache_dtypes) + ")";
  const std::uint32_t kinds = (1u << ROPECHECK_KV_SCALE_KIND_COUNT) - 1;
  if (k.scale_kinds == 0 || (k.scale_kinds & ~kinds))
    return "kv_policy.scale_kinds: must be a non-empty subset of " + bits(kinds) + " (got " + bits(k.scale_kinds) + ")";
  if (k.scale_direction > ROPECHECK_KV_SCALE_MULTIPLY)
    return "kv_policy.scale_direction: must be DIVIDE (0) or MULTIPLY (1) (got " + std::to_string(k.scale_direction) + ")";
  if (k.saturate > 1) return "kv_policy.saturate: must be 0 or 1 (got " + std::to_string(k.saturate) + ")";
  if (k.via_storage > 1) return "kv_policy.via_storage: must be 0 or 1 (got " + std::to_string(k.via_storage) + ")";
  return {};
}

// What 1.5 appends: the cache kinds of a KV write, the qk-norm's policy
// (with the grant QK_NORM), the position bound; a table of an older minor
// version (or one not granting) may set none of them.
std::string check_1_5_members(const ropecheck_impl_t& raw, const ropecheck_impl_t& t) {
  const bool is_1_5 = t.abi_minor >= 5 && raw.struct_size >= ROPECHECK_IMPL_SIZE_1_5;
  const std::string needs = " needs abi_minor >= 5 and struct_size >= " + std::to_string(ROPECHECK_IMPL_SIZE_1_5) +
                            " (ABI 1.5; got abi_minor " + std::to_string(t.abi_minor) + ", struct_size " +
                            std::to_string(raw.struct_size) + ")";
  if (t.reserved1 != 0) return "reserved1: must be 0";
  if (t.max_position != 0) {
    if (!is_1_5) return "max_position:" + needs;
    if (t.max_position < 1 || t.max_position > (std::int64_t{1} << 62))
      return "max_position: must be 0 (no bound) or in [1, 2^62] (got " + std::to_string(t.max_position) + ")";
  }
  if (t.kv_cache_kinds != 0) {
    if (!(t.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE))
      return "kv_cache_kinds: set, but caps.flags does not grant KV_CACHE_WRITE (bit 17)";
    if (!is_1_5) return "kv_cache_kinds:" + needs;
    const std::uint32_t kinds = (1u << ROPECHECK_KV_CACHE_KIND_COUNT) - 1;
    if (t.kv_cache_kinds & ~kinds)
      return "kv_cache_kinds: must be a subset of " + bits(kinds) + " (got " + bits(t.kv_cache_kinds) + ")";
    const std::uint32_t mla = (1u << ROPECHECK_KV_CACHE_MLA_JOINT) | (1u << ROPECHECK_KV_CACHE_MLA_SPLIT);
    if ((t.kv_cache_kinds & mla) && !(t.kv_policy.scale_kinds & (1u << ROPECHECK_KV_SCALE_PER_TENSOR)))
      return "kv_cache_kinds: an MLA write has one PER_TENSOR scale, which kv_policy.scale_kinds does not declare";
  }
  const ropecheck_norm_policy_t& q = t.norm_policy;
  const auto* b = reinterpret_cast<const unsigned char*>(&q);
  const bool any = std::any_of(b, b + sizeof q, [](unsigned char x) { return x != 0; });
  if (!(t.caps.flags & ROPECHECK_CAP_QK_NORM)) {
    if (any) return "norm_policy: set, but caps.flags does not grant QK_NORM (bit 18)";
    return {};
  }
  if (!is_1_5) return "caps.flags: QK_NORM (bit 18)" + needs;
  if (q.struct_size != sizeof q)
    return "norm_policy.struct_size: must be sizeof(ropecheck_norm_policy_t) = " + std::to_string(sizeof q) +
           " with QK_NORM (got " + std::to_string(q.struct_size) + ")";
  const std::uint32_t forms = (1u << ROPECHECK_NORM_WEIGHT_FORM_COUNT) - 1;
  if (q.weight_forms == 0 || (q.weight_forms & ~forms))
    return "norm_policy.weight_forms: must be a non-empty subset of " + bits(forms) + " (got " + bits(q.weight_forms) +
           ")";
  if (q.intermediate >= ROPECHECK_NORM_INTERMEDIATE_COUNT)
    return "norm_policy.intermediate: must be KEEP_F32 (0), ROUND_BEFORE_WEIGHT (1) or ROUND_AFTER_WEIGHT (2) (got " +
           std::to_string(q.intermediate) + ")";
  if (q.reserved != 0) return "norm_policy.reserved: must be 0";
  if (!(exactly_equal(q.rsqrt_max_ulp, 0.0) || (q.rsqrt_max_ulp >= 0.5 && q.rsqrt_max_ulp <= 16)))
    return "norm_policy.rsqrt_max_ulp: must be 0 (meaning 1) or in [0.5, 16] (got " + std::to_string(q.rsqrt_max_ulp) +
           ")";
  return {};
}

// What 1.6 appends: the cache dtypes of the grant CALLER_COS_SIN_CACHE,
// which a table of an older minor version (or one not granting) may not set.
std::string check_1_6_members(const ropecheck_impl_t& raw, const ropecheck_impl_t& t) {
  if (t.reserved2 != 0) return "reserved2: must be 0";
  const bool grants = (t.caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE) != 0;
  if (!grants) {
    if (t.cos_sin_cache_dtypes != 0)
      return "cos_sin_cache_dtypes: set, but caps.flags does not grant CALLER_COS_SIN_CACHE (bit 19)";
    return {};
  }
  if (t.abi_minor < 6 || raw.struct_size < ROPECHECK_IMPL_SIZE_1_6)
    return "caps.flags: CALLER_COS_SIN_CACHE (bit 19) needs abi_minor >= 6 and struct_size >= " +
           std::to_string(ROPECHECK_IMPL_SIZE_1_6) + " (ABI 1.6; got abi_minor " + std::to_string(t.abi_minor) +
           ", struct_size " + std::to_string(raw.struct_size) + ")";
  const std::uint32_t dtypes = kStorageDtypes | ROPECHECK_COS_SIN_CACHE_OF_STORAGE;
  if (t.cos_sin_cache_dtypes == 0 || (t.cos_sin_cache_dtypes & ~dtypes))
    return "cos_sin_cache_dtypes: must be a non-empty subset of f32|f16|bf16|OF_STORAGE = " + bits(dtypes) +
           " with CALLER_COS_SIN_CACHE (got " + bits(t.cos_sin_cache_dtypes) + ")";
  const std::uint32_t exclusive[][2] = {
      {ROPECHECK_CAP_COS_SIN_CACHE, 2}, {ROPECHECK_CAP_NEGATIVE_POSITIONS, 7}, {ROPECHECK_CAP_AXIS_FREQUENCIES, 16}};
  const char* why[] = {"a kernel reads the caller's cache or builds its own", "a cache row has no negative index",
                       "a cache holds the frequencies of rotary_dim"};
  for (std::size_t i = 0; i < std::size(exclusive); ++i)
    if (t.caps.flags & exclusive[i][0])
      return "caps.flags: CALLER_COS_SIN_CACHE (bit 19) cannot go with bit " + std::to_string(exclusive[i][1]) + " (" +
             why[i] + ")";
  return {};
}

// What 1.7 appends: the frequency form and subnormal handling
// (policy_ext2, whose fields the error model checks with the rest of the
// policy), and the flags NO_YARN_MSCALE and MAY_DECLINE; a table of an
// older minor version may set none of them.
std::string check_1_7_members(const ropecheck_impl_t& raw, const ropecheck_impl_t& t) {
  const bool is_1_7 = t.abi_minor >= 7 && raw.struct_size >= ROPECHECK_IMPL_SIZE_1_7;
  const std::string needs = " needs abi_minor >= 7 and struct_size >= " + std::to_string(ROPECHECK_IMPL_SIZE_1_7) +
                            " (ABI 1.7; got abi_minor " + std::to_string(t.abi_minor) + ", struct_size " +
                            std::to_string(raw.struct_size) + ")";
  for (const auto& [bit, name] : {std::pair{ROPECHECK_CAP_NO_YARN_MSCALE, "NO_YARN_MSCALE (bit 20)"},
                                  std::pair{ROPECHECK_CAP_MAY_DECLINE, "MAY_DECLINE (bit 21)"}})
    if ((t.caps.flags & bit) && !is_1_7) return std::string("caps.flags: ") + name + needs;
  if (raw.struct_size < ROPECHECK_IMPL_SIZE_1_7) return {};
  const ropecheck_policy_ext2_t& e = raw.policy_ext2;
  if (e.struct_size == 0) {
    const auto* b = reinterpret_cast<const unsigned char*>(&e);
    if (std::any_of(b, b + sizeof e, [](unsigned char x) { return x != 0; }))
      return "policy_ext2.struct_size: is 0 (no extension) but fields are set; set it to "
             "sizeof(ropecheck_policy_ext2_t) = " + std::to_string(sizeof e);
    return {};
  }
  if (!is_1_7) return "policy_ext2:" + needs;
  return {};
}

// What 1.8 appends: the quantized output's policy, with the grant
// QUANTIZED_OUTPUT; a table of an older minor version (or one not
// granting) may set neither.
std::string check_1_8_members(const ropecheck_impl_t& raw, const ropecheck_impl_t& t) {
  const ropecheck_quant_policy_t& q = t.quant_policy;
  if (!(t.caps.flags & ROPECHECK_CAP_QUANTIZED_OUTPUT)) {
    const auto* b = reinterpret_cast<const unsigned char*>(&q);
    if (std::any_of(b, b + sizeof q, [](unsigned char x) { return x != 0; }))
      return "quant_policy: set, but caps.flags does not grant QUANTIZED_OUTPUT (bit 22)";
    return {};
  }
  if (t.abi_minor < 8 || raw.struct_size < ROPECHECK_IMPL_SIZE_1_8)
    return "caps.flags: QUANTIZED_OUTPUT (bit 22) needs abi_minor >= 8 and struct_size >= " +
           std::to_string(ROPECHECK_IMPL_SIZE_1_8) + " (ABI 1.8; got abi_minor " + std::to_string(t.abi_minor) +
           ", struct_size " + std::to_string(raw.struct_size) + ")";
  if (q.struct_size != sizeof q)
    return "quant_policy.struct_size: must be sizeof(ropecheck_quant_policy_t) = " + std::to_string(sizeof q) +
           " (got " + std::to_string(q.struct_size) + ")";
  const std::uint32_t fp8 = (1u << ROPECHECK_KV_FP8_E4M3FN) | (1u << ROPECHECK_KV_FP8_E5M2);
  if (q.dtypes == 0 || (q.dtypes & ~fp8))
    return "quant_policy.dtypes: must be a non-empty subset of fp8_e4m3fn|fp8_e5m2 = " + bits(fp8) + " (got " +
           bits(q.dtypes) + ")";
  if (q.scale_direction > ROPECHECK_KV_SCALE_MULTIPLY)
    return "quant_policy.scale_direction: must be DIVIDE (0) or MULTIPLY (1) (got " +
           std::to_string(q.scale_direction) + ")";
  if (q.saturate > 1) return "quant_policy.saturate: must be 0 or 1 (got " + std::to_string(q.saturate) + ")";
  if (q.k_output >= ROPECHECK_QUANT_K_COUNT)
    return "quant_policy.k_output: must be STORAGE (0), QUANTIZED (1) or NOT_RETURNED (2) (got " +
           std::to_string(q.k_output) + ")";
  if (q.k_output == ROPECHECK_QUANT_K_NOT_RETURNED && !(t.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE))
    return "quant_policy.k_output: NOT_RETURNED needs KV_CACHE_WRITE (bit 17): k must go somewhere";
  if (q.reserved != 0) return "quant_policy.reserved: must be 0";
  if (!(t.caps.flags & ROPECHECK_CAP_OUT_OF_PLACE))
    return "caps.flags: QUANTIZED_OUTPUT (bit 22) needs OUT_OF_PLACE (fp8 codes cannot overwrite the input)";
  return {};
}

}  // namespace

ropecheck_impl_t host_table(const ropecheck_impl_t& t) {
  ropecheck_impl_t h{};
  std::memcpy(&h, &t, std::min<std::size_t>(t.struct_size, sizeof h));
  h.struct_size = sizeof h;
  if (h.policy_ext.struct_size == 0) h.policy_ext = policy_ext_defaults();
  if (h.policy_ext2.struct_size == 0) h.policy_ext2 = policy_ext2_defaults();
  return h;
}

std::string validate_impl_table(const ropecheck_impl_t* raw) {
  if (raw == nullptr) return "table: is null";
  if (std::string bad = check_struct_size(*raw); !bad.empty()) return bad;
  if (raw->struct_size >= ROPECHECK_IMPL_SIZE_1_1)
    if (std::string bad = check_1_1_members(*raw); !bad.empty()) return bad;
  const ropecheck_impl_t host = host_table(*raw);
  const ropecheck_impl_t* t = &host;
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
  // The grants of 1.2: an older table's bits 11 and 12 are not promises it
  // knew it made.
  if ((c.flags & ROPECHECK_CAP_SEQ_STRIDES) && t->abi_minor < 2)
    return "caps.flags: SEQ_STRIDES (bit 11) needs abi_minor >= 2 (ABI 1.2; got " + std::to_string(t->abi_minor) + ")";
  if ((c.flags & ROPECHECK_CAP_BATCH_INVARIANT) && t->abi_minor < 2)
    return "caps.flags: BATCH_INVARIANT (bit 12) needs abi_minor >= 2 (ABI 1.2; got " + std::to_string(t->abi_minor) +
           ")";
  // The grants of 1.3 (multi-axis positions).
  for (const auto& [bit, name] : {std::pair{ROPECHECK_CAP_AXES_SECTIONS, "AXES_SECTIONS (bit 13)"},
                                  std::pair{ROPECHECK_CAP_AXES_INTERLEAVED, "AXES_INTERLEAVED (bit 14)"},
                                  std::pair{ROPECHECK_CAP_AXES_TABLE, "AXES_TABLE (bit 15)"},
                                  std::pair{ROPECHECK_CAP_AXIS_FREQUENCIES, "AXIS_FREQUENCIES (bit 16)"}})
    if ((c.flags & bit) && t->abi_minor < 3)
      return std::string("caps.flags: ") + name + " needs abi_minor >= 3 (ABI 1.3; got " +
             std::to_string(t->abi_minor) + ")";
  if (std::string bad = check_kv_policy(*raw, *t); !bad.empty()) return bad;
  if (std::string bad = check_1_5_members(*raw, *t); !bad.empty()) return bad;
  if (std::string bad = check_1_6_members(*raw, *t); !bad.empty()) return bad;
  if (std::string bad = check_1_7_members(*raw, *t); !bad.empty()) return bad;
  if (std::string bad = check_1_8_members(*raw, *t); !bad.empty()) return bad;
  if ((c.flags & ROPECHECK_CAP_AXIS_FREQUENCIES) &&
      !(c.flags & kAxisAssignmentCaps))
    return "caps.flags: AXIS_FREQUENCIES needs one of AXES_SECTIONS, AXES_INTERLEAVED, AXES_TABLE";
  if ((c.flags & ROPECHECK_CAP_AXIS_FREQUENCIES) && (c.flags & ROPECHECK_CAP_COS_SIN_CACHE))
    return "caps.flags: AXIS_FREQUENCIES cannot go with COS_SIN_CACHE (a cache holds the frequencies of rotary_dim)";
  if (!(c.flags & (ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE)))
    return "caps.flags: must allow in-place or out-of-place";
  if (!(c.flags & (ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_POS_INT64)))
    return "caps.flags: must accept int32 or int64 positions";
  if ((c.flags & ROPECHECK_CAP_COS_SIN_CACHE) && t->build_cache == nullptr)
    return "build_cache: required by caps.flags COS_SIN_CACHE";
  if ((c.flags & ROPECHECK_CAP_COS_SIN_CACHE) && (c.flags & ROPECHECK_CAP_NEGATIVE_POSITIONS))
    return "caps.flags: NEGATIVE_POSITIONS cannot go with COS_SIN_CACHE (a cache row has no negative index)";
  if (std::string why = ErrorModel::check_policy(policy_of(*t), &t->caps); !why.empty()) return why;
  return {};
}

}  // namespace ropecheck
