// SPDX-License-Identifier: MIT
// The table rules of ABI minor versions (kernel_abi.h, "Versions"): a 1.0
// table is read up to its struct_size and means its 1.0 policy, sizes between
// the versions are refused, a newer table's unknown tail must be zero, and
// bad 1.1 declarations are refused naming the field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <utility>

#include "core/kernel/impl_validation.h"
#include "ropecheck/policy.h"

namespace ropecheck {
namespace {

ropecheck_status_t stub(void*, const ropecheck_apply_params_t*, char*, std::size_t) { return ROPECHECK_OK; }

ropecheck_impl_t table() {
  ropecheck_impl_t t{};
  t.struct_size = sizeof t;
  t.abi_version = ROPECHECK_ABI_VERSION;
  t.name = "t";
  t.description = "";
  t.caps = ropecheck_caps_t{sizeof(ropecheck_caps_t), 3, 1u << ROPECHECK_DTYPE_F32, 1, 128,
                            ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_POS_INT64};
  t.policy = libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32);
  t.apply = stub;
  t.abi_minor = ROPECHECK_ABI_VERSION_MINOR;
  t.policy_ext = policy_ext_defaults();
  t.policy_ext2 = policy_ext2_defaults();
  return t;
}

TEST(ImplValidation, A10TableIsReadOnlyUpToItsSize) {
  // The 1.0 bytes alone in an allocation of exactly that size (the debug
  // preset's AddressSanitizer sees any read past it).
  ropecheck_impl_t full = table();
  full.struct_size = ROPECHECK_IMPL_SIZE_1_0;
  std::unique_ptr<unsigned char[]> bytes(new unsigned char[ROPECHECK_IMPL_SIZE_1_0]);
  std::memcpy(bytes.get(), &full, ROPECHECK_IMPL_SIZE_1_0);
  const auto* old = reinterpret_cast<const ropecheck_impl_t*>(bytes.get());
  EXPECT_EQ(validate_impl_table(old), "");
  const ropecheck_impl_t h = host_table(*old);
  EXPECT_EQ(h.struct_size, sizeof(ropecheck_impl_t));
  EXPECT_EQ(h.abi_minor, 0u);
  const ropecheck_policy_ext_t defaults = policy_ext_defaults();
  EXPECT_EQ(std::memcmp(&h.policy_ext, &defaults, sizeof defaults), 0);
}

TEST(ImplValidation, SizesBetweenVersionsAndUnknownTailsAreRefused) {
  alignas(ropecheck_impl_t) unsigned char buffer[sizeof(ropecheck_impl_t) + 64] = {};
  ropecheck_impl_t t = table();
  t.struct_size = ROPECHECK_IMPL_SIZE_1_0 + 8;
  std::memcpy(buffer, &t, sizeof t);
  auto* raw = reinterpret_cast<ropecheck_impl_t*>(buffer);
  EXPECT_EQ(validate_impl_table(raw).rfind("struct_size: must be", 0), 0u) << validate_impl_table(raw);
  raw->struct_size = sizeof(ropecheck_impl_t) + 64;  // a newer minor version, nothing set past 1.1
  EXPECT_EQ(validate_impl_table(raw), "");
  buffer[sizeof(ropecheck_impl_t) + 17] = 1;  // a member this host does not know, set
  EXPECT_NE(validate_impl_table(raw).find("newer ABI minor version"), std::string::npos);
}

TEST(ImplValidation, AZeroExtensionMeansTheDefaultsAndAHalfSetOneIsRefused) {
  ropecheck_impl_t t = table();
  std::memset(&t.policy_ext, 0, sizeof t.policy_ext);  // a 1.0 source rebuilt against 1.1
  EXPECT_EQ(validate_impl_table(&t), "");
  EXPECT_EQ(host_table(t).policy_ext.struct_size, sizeof(ropecheck_policy_ext_t));
  t.policy_ext.rotation_form = ROPECHECK_ROTATION_FMA;
  EXPECT_EQ(validate_impl_table(&t).rfind("policy_ext.struct_size", 0), 0u);
}

TEST(ImplValidation, BadDeclarationsNameTheirField) {
  ropecheck_impl_t t = table();
  t.policy.math_dtype = ROPECHECK_DTYPE_BF16;  // a bf16 policy on an fp32-only table
  EXPECT_EQ(validate_impl_table(&t).rfind("policy.math_dtype", 0), 0u) << validate_impl_table(&t);
  t = table();
  t.policy.cache_dtype = 9;  // unknown dtype
  EXPECT_EQ(validate_impl_table(&t).rfind("policy.cache_dtype", 0), 0u);
  t = table();
  t.policy.sincos = ROPECHECK_SINCOS_FAST;  // without its bound
  EXPECT_EQ(validate_impl_table(&t).rfind("policy.sincos_max_abs_error", 0), 0u);
  t = table();
  t.caps.flags |= 1u << 23;  // past 1.8's last bit
  EXPECT_EQ(validate_impl_table(&t).rfind("caps.flags: unknown bits", 0), 0u);
  t = table();
  t.caps.flags |= ROPECHECK_CAP_YARN_TRUNCATED_ONLY | ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR |
                  ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN;
  EXPECT_EQ(validate_impl_table(&t), "");
}

namespace ropecheck {
namespace {

// SEQ_STRIDES and BATCH_INVARIANT (1.2) grant: a table of minor 2 may set it; an
// older table that sets bit 11 did not know what it promised and is refused.
TEST(ImplValidation, TheSeqStridesGrantNeedsMinorTwo) {
  ropecheck_impl_t t = table();
  t.caps.flags |= ROPECHECK_CAP_SEQ_STRIDES;
  EXPECT_EQ(validate_impl_table(&t), "");
  t.abi_minor = 1;
  EXPECT_EQ(validate_impl_table(&t), "caps.flags: SEQ_STRIDES (bit 11) needs abi_minor >= 2 (ABI 1.2; got 1)");
  t = table();
  t.abi_minor = 1;
  t.caps.flags |= ROPECHECK_CAP_BATCH_INVARIANT;
  EXPECT_EQ(validate_impl_table(&t), "caps.flags: BATCH_INVARIANT (bit 12) needs abi_minor >= 2 (ABI 1.2; got 1)");
}

TEST(ImplValidation, TheMultiAxisGrantsNeedABI13AndNoCacheForPerAxisFrequencies) {
  ropecheck_impl_t t = table();
  t.caps.flags |= ROPECHECK_CAP_AXES_SECTIONS | ROPECHECK_CAP_AXES_INTERLEAVED | ROPECHECK_CAP_AXIS_FREQUENCIES;
  EXPECT_EQ(validate_impl_table(&t), "");
  t.abi_minor = 2;
  EXPECT_EQ(validate_impl_table(&t), "caps.flags: AXES_SECTIONS (bit 13) needs abi_minor >= 3 (ABI 1.3; got 2)");
  t = table();
  t.caps.flags |= ROPECHECK_CAP_AXIS_FREQUENCIES;
  EXPECT_EQ(validate_impl_table(&t),
            "caps.flags: AXIS_FREQUENCIES needs one of AXES_SECTIONS, AXES_INTERLEAVED, AXES_TABLE");
  t.caps.flags |= ROPECHECK_CAP_AXES_TABLE | ROPECHECK_CAP_COS_SIN_CACHE;
  t.build_cache = [](void*, const ropecheck_freq_spec_t*, int32_t, int64_t, uint32_t, void*, char*, size_t) {
    return ROPECHECK_OK;
  };
  EXPECT_EQ(validate_impl_table(&t),
            "caps.flags: AXIS_FREQUENCIES cannot go with COS_SIN_CACHE (a cache holds the frequencies of rotary_dim)");
}

}  // namespace
}  // namespace ropecheck

namespace ropecheck {
namespace {

// ABI 1.4's grant: KV_CACHE_WRITE with its kv_policy, in a table of minor 4
// and size 1.4 only; a kv_policy without the grant, or a bad field, is
// refused by name.
TEST(ImplValidation, TheKvCacheWriteGrantNeedsABi14AndAValidPolicy) {
  ropecheck_impl_t t = table();
  t.caps.flags |= ROPECHECK_CAP_KV_CACHE_WRITE;
  t.kv_policy = ropecheck_kv_policy_t{sizeof(ropecheck_kv_policy_t), 1u << ROPECHECK_KV_FP8_E4M3FN,
                                      1u << ROPECHECK_KV_SCALE_PER_TENSOR, ROPECHECK_KV_SCALE_DIVIDE, 1u, 1u};
  EXPECT_EQ(validate_impl_table(&t), "");
  ropecheck_impl_t old = t;
  old.abi_minor = 3;
  EXPECT_EQ(validate_impl_table(&old).rfind("caps.flags: KV_CACHE_WRITE (bit 17) needs abi_minor >= 4", 0), 0u)
      << validate_impl_table(&old);
  old = t;
  old.struct_size = ROPECHECK_IMPL_SIZE_1_3;  // the grant in a table without a kv_policy
  EXPECT_NE(validate_impl_table(&old).find("KV_CACHE_WRITE"), std::string::npos) << validate_impl_table(&old);
  ropecheck_impl_t bad = t;
  bad.kv_policy.cache_dtypes = 1u << 7;
  EXPECT_EQ(validate_impl_table(&bad).rfind("kv_policy.cache_dtypes", 0), 0u) << validate_impl_table(&bad);
  bad = t;
  bad.kv_policy.scale_direction = 2;
  EXPECT_EQ(validate_impl_table(&bad).rfind("kv_policy.scale_direction", 0), 0u);
  bad = t;
  bad.kv_policy.struct_size = 0;
  EXPECT_EQ(validate_impl_table(&bad).rfind("kv_policy.struct_size", 0), 0u);
  ropecheck_impl_t ungranted = table();
  ungranted.kv_policy = t.kv_policy;
  EXPECT_EQ(validate_impl_table(&ungranted).rfind("kv_policy: set, but caps.flags does not grant", 0), 0u);
}

// ABI 1.5's members: the QK_NORM grant with its norm_policy, MLA cache
// kinds under the KV write's grant, max_position; each only in a table of
// minor 5 and size 1.5, each bad field refused by name.
TEST(ImplValidation, TheFusedPartsOfABI15NeedItAndValidFields) {
  ropecheck_impl_t t = table();
  t.caps.flags |= ROPECHECK_CAP_QK_NORM;
  t.norm_policy = ropecheck_norm_policy_t{sizeof(ropecheck_norm_policy_t), 1u << ROPECHECK_NORM_WEIGHT_W,
                                          ROPECHECK_NORM_KEEP_F32, 0u, 0.0};
  EXPECT_EQ(validate_impl_table(&t), "");
  ropecheck_impl_t bad = t;
  bad.abi_minor = 4;
  EXPECT_EQ(validate_impl_table(&bad).rfind("caps.flags: QK_NORM (bit 18) needs abi_minor >= 5", 0), 0u)
      << validate_impl_table(&bad);
  bad = t;
  bad.struct_size = ROPECHECK_IMPL_SIZE_1_4;  // a table that ends before norm_policy
  EXPECT_NE(validate_impl_table(&bad).find("QK_NORM"), std::string::npos) << validate_impl_table(&bad);
  for (auto [field, mutate] : std::initializer_list<std::pair<const char*, void (*)(ropecheck_norm_policy_t&)>>{
           {"norm_policy.weight_forms", [](ropecheck_norm_policy_t& q) { q.weight_forms = 0; }},
           {"norm_policy.weight_forms", [](ropecheck_norm_policy_t& q) { q.weight_forms = 4; }},
           {"norm_policy.intermediate", [](ropecheck_norm_policy_t& q) { q.intermediate = 3; }},
           {"norm_policy.reserved", [](ropecheck_norm_policy_t& q) { q.reserved = 1; }},
           {"norm_policy.rsqrt_max_ulp", [](ropecheck_norm_policy_t& q) { q.rsqrt_max_ulp = 0.25; }},
           {"norm_policy.struct_size", [](ropecheck_norm_policy_t& q) { q.struct_size = 8; }}}) {
    bad = t;
    mutate(bad.norm_policy);
    EXPECT_EQ(validate_impl_table(&bad).rfind(field, 0), 0u) << field << ": " << validate_impl_table(&bad);
  }
  ropecheck_impl_t ungranted = table();
  ungranted.norm_policy = t.norm_policy;
  EXPECT_EQ(validate_impl_table(&ungranted).rfind("norm_policy: set, but caps.flags does not grant QK_NORM", 0), 0u);

  ropecheck_impl_t kv = table();
  kv.caps.flags |= ROPECHECK_CAP_KV_CACHE_WRITE;
  kv.kv_policy = ropecheck_kv_policy_t{sizeof(ropecheck_kv_policy_t), 1u << ROPECHECK_KV_FP8_E4M3FN,
                                       1u << ROPECHECK_KV_SCALE_PER_TENSOR, ROPECHECK_KV_SCALE_DIVIDE, 1u, 1u};
  kv.kv_cache_kinds = (1u << ROPECHECK_KV_CACHE_MLA_JOINT) | (1u << ROPECHECK_KV_CACHE_MLA_SPLIT);
  EXPECT_EQ(validate_impl_table(&kv), "");
  bad = kv;
  bad.kv_cache_kinds = 1u << 5;
  EXPECT_EQ(validate_impl_table(&bad).rfind("kv_cache_kinds: must be a subset", 0), 0u) << validate_impl_table(&bad);
  bad = kv;
  bad.kv_policy.scale_kinds = 1u << ROPECHECK_KV_SCALE_PER_HEAD;  // MLA's one scale is per tensor
  EXPECT_EQ(validate_impl_table(&bad).rfind("kv_cache_kinds: an MLA write has one PER_TENSOR scale", 0), 0u)
      << validate_impl_table(&bad);
  bad = kv;
  bad.abi_minor = 4;
  EXPECT_EQ(validate_impl_table(&bad).rfind("kv_cache_kinds: needs abi_minor >= 5", 0), 0u) << validate_impl_table(&bad);
  ungranted = table();
  ungranted.kv_cache_kinds = 1u << ROPECHECK_KV_CACHE_MLA_JOINT;
  EXPECT_EQ(validate_impl_table(&ungranted).rfind("kv_cache_kinds: set, but caps.flags does not grant", 0), 0u);

  ropecheck_impl_t bounded = table();
  bounded.max_position = 8192;
  EXPECT_EQ(validate_impl_table(&bounded), "");
  bounded.max_position = -1;
  EXPECT_EQ(validate_impl_table(&bounded).rfind("max_position: must be 0 (no bound) or in [1, 2^62]", 0), 0u)
      << validate_impl_table(&bounded);
  bounded.max_position = 8192;
  bounded.abi_minor = 4;
  EXPECT_EQ(validate_impl_table(&bounded).rfind("max_position: needs abi_minor >= 5", 0), 0u);
  bounded = table();
  bounded.reserved1 = 1;
  EXPECT_EQ(validate_impl_table(&bounded), "reserved1: must be 0");
}

}  // namespace
}  // namespace ropecheck

TEST(ImplValidation, TheCallersCacheOfABI16NeedsItADtypeAndNoCacheOfItsOwn) {
  ropecheck_impl_t t = table();
  t.caps.flags |= ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
  t.cos_sin_cache_dtypes = (1u << ROPECHECK_DTYPE_F32) | ROPECHECK_COS_SIN_CACHE_OF_STORAGE;
  EXPECT_EQ(validate_impl_table(&t), "");
  ropecheck_impl_t bad = t;
  bad.abi_minor = 5;
  EXPECT_EQ(validate_impl_table(&bad).rfind("caps.flags: CALLER_COS_SIN_CACHE (bit 19) needs abi_minor >= 6", 0), 0u)
      << validate_impl_table(&bad);
  bad = t;
  bad.struct_size = ROPECHECK_IMPL_SIZE_1_5;  // a table that ends before cos_sin_cache_dtypes
  EXPECT_NE(validate_impl_table(&bad).find("CALLER_COS_SIN_CACHE"), std::string::npos) << validate_impl_table(&bad);
  for (const std::uint32_t dtypes : {0u, 1u << ROPECHECK_DTYPE_F64, 1u << 7}) {
    bad = t;
    bad.cos_sin_cache_dtypes = dtypes;
    EXPECT_EQ(validate_impl_table(&bad).rfind("cos_sin_cache_dtypes: must be a non-empty subset", 0), 0u)
        << dtypes << ": " << validate_impl_table(&bad);
  }
  for (const std::uint32_t other :
       {ROPECHECK_CAP_COS_SIN_CACHE, ROPECHECK_CAP_NEGATIVE_POSITIONS, ROPECHECK_CAP_AXIS_FREQUENCIES}) {
    bad = t;
    bad.caps.flags |= other | ROPECHECK_CAP_AXES_TABLE;
    bad.build_cache = [](void*, const ropecheck_freq_spec_t*, int32_t, int64_t, uint32_t, void*, char*, size_t) {
      return ROPECHECK_OK;
    };
    EXPECT_EQ(validate_impl_table(&bad).rfind("caps.flags: CALLER_COS_SIN_CACHE (bit 19) cannot go with", 0), 0u)
        << other << ": " << validate_impl_table(&bad);
  }
  ropecheck_impl_t ungranted = table();
  ungranted.cos_sin_cache_dtypes = 1u << ROPECHECK_DTYPE_F32;
  EXPECT_EQ(validate_impl_table(&ungranted).rfind("cos_sin_cache_dtypes: set, but caps.flags does not grant", 0), 0u);
  ungranted = table();
  ungranted.reserved2 = 1;
  EXPECT_EQ(validate_impl_table(&ungranted), "reserved2: must be 0");
  // A 1.5 table (struct_size up to max_position) still loads, and reads the
  // 1.6 members as 0: no caller's cache.
  ropecheck_impl_t old = table();
  old.struct_size = ROPECHECK_IMPL_SIZE_1_5;
  old.abi_minor = 5;
  EXPECT_EQ(validate_impl_table(&old), "");
  EXPECT_EQ(host_table(old).cos_sin_cache_dtypes, 0u);
}

TEST(ImplValidation, ThePolicyPartsAndFlagsOfABI17NeedIt) {
  ropecheck_impl_t t = table();
  t.policy_ext2.freq_form = ROPECHECK_FREQ_EXP_LOG;
  t.policy_ext2.subnormals = ROPECHECK_SUBNORMALS_FLUSHED;
  t.caps.flags |= ROPECHECK_CAP_NO_YARN_MSCALE | ROPECHECK_CAP_MAY_DECLINE;
  EXPECT_EQ(validate_impl_table(&t), "");
  for (const auto& [flag, name] : {std::pair{ROPECHECK_CAP_NO_YARN_MSCALE, "NO_YARN_MSCALE (bit 20)"},
                                   std::pair{ROPECHECK_CAP_MAY_DECLINE, "MAY_DECLINE (bit 21)"}}) {
    ropecheck_impl_t bad = table();
    bad.caps.flags |= flag;
    bad.abi_minor = 6;
    EXPECT_EQ(validate_impl_table(&bad).rfind(std::string("caps.flags: ") + name + " needs abi_minor >= 7", 0), 0u)
        << validate_impl_table(&bad);
  }
  ropecheck_impl_t bad = t;
  bad.caps.flags = table().caps.flags;
  bad.abi_minor = 6;  // a 1.6 table setting 1.7's policy part
  EXPECT_EQ(validate_impl_table(&bad).rfind("policy_ext2: needs abi_minor >= 7", 0), 0u) << validate_impl_table(&bad);
  bad = table();
  bad.policy_ext2.struct_size = 0;  // half set: fields without the size
  bad.policy_ext2.subnormals = ROPECHECK_SUBNORMALS_FLUSHED;
  EXPECT_EQ(validate_impl_table(&bad).rfind("policy_ext2.struct_size: is 0", 0), 0u) << validate_impl_table(&bad);
  bad = table();
  bad.policy_ext2.freq_form = 3;
  EXPECT_EQ(validate_impl_table(&bad).rfind("policy_ext2.freq_form: must be", 0), 0u) << validate_impl_table(&bad);
  bad = table();
  bad.policy_ext2.freq_exp_slope = 1e-7;  // a slope belongs to EXP_LOG
  EXPECT_EQ(validate_impl_table(&bad).rfind("policy_ext2.freq_exp_slope: belongs to freq_form EXP_LOG", 0), 0u)
      << validate_impl_table(&bad);
  bad = table();
  bad.policy.freq_dtype = ROPECHECK_DTYPE_F32;
  bad.policy.angle_mode = ROPECHECK_ANGLE_F32_RUNNING_PRODUCT;
  bad.policy_ext2.freq_form = ROPECHECK_FREQ_TABLE;  // the running product forms its own
  EXPECT_EQ(validate_impl_table(&bad).rfind("policy_ext2.freq_form: angle_mode F32_RUNNING_PRODUCT", 0), 0u)
      << validate_impl_table(&bad);
  // A 1.6 table (struct_size up to reserved2) still loads and reads 1.7's
  // part as 1.6 meant it: power frequencies, subnormals kept.
  ropecheck_impl_t old = table();
  old.struct_size = ROPECHECK_IMPL_SIZE_1_6;
  old.abi_minor = 6;
  EXPECT_EQ(validate_impl_table(&old), "");
  const ropecheck_policy_ext2_t defaults = policy_ext2_defaults();
  const ropecheck_impl_t host = host_table(old);
  EXPECT_EQ(std::memcmp(&host.policy_ext2, &defaults, sizeof defaults), 0);
}

}  // namespace
}  // namespace ropecheck
