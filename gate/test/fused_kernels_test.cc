// SPDX-License-Identifier: MIT
// The rotation fused with a KV-cache write (ABI 1.4, impls/scalar/
// fused_kv_write.cc): both arithmetics the engines ship pass the quick gate
// under what they declare, their cache properties judged on most cases and
// every cache dtype; the same kernel declaring the other scale direction, or
// no saturation, fails CachesTheRotatedKAndV (the declaration is judged, not
// only the values). With them, the other fused parts a call carries: the slot mapping's
// permutation (a path chosen by the mapping's shape dies by it alone) and
// the caller's cos/sin cache (ABI 1.6).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <iostream>
#include <optional>
#include <set>
#include <string>

#include "core/cases/cos_sin_cache_case.h"
#include "core/isolation/read_only_watch.h"
#include "core/kernel/impl_validation.h"
#include "core/kernel/call_twice.h"
#include "core/kernel/kernel_call.h"
#include "core/kernel/own_cos_sin_cache.h"
#include "gate/test/gate_run.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"
#include "ropecheck/kv_write.h"
#include "properties/property.h"

namespace ropecheck {
namespace {

TEST(FusedKernels, PassTheQuickGateWithTheirCacheWritesJudged) {
  const ropecheck_impl_t* vllm = find_impl("scalar_fused_kv_vllm");
  const ropecheck_impl_t* flashinfer = find_impl("scalar_fused_kv_flashinfer");
  ASSERT_NE(vllm, nullptr);
  ASSERT_NE(flashinfer, nullptr);
  EXPECT_EQ(validate_impl_table(vllm), "");
  EXPECT_EQ(validate_impl_table(flashinfer), "");
  const GateRun g = run_quick_gate({vllm, flashinfer});
  EXPECT_TRUE(g.report.passed()) << g.text;
  for (const ImplReport& r : g.report.impls) {
    for (const char* p : {"CachesTheRotatedKAndV", "LeavesTheRestOfTheCacheUnchanged"}) {
      const PropertyStats& s = property_stats(r, p);
      EXPECT_EQ(s.failed, 0) << r.name << " " << p;
      // Every small case with a k carries a write: most of the suite.
      EXPECT_GT(s.passed, suite_size(Suite::kQuick) / 3) << r.name << " " << p << " judged too few cases";
    }
    // The report's fused table: a row per cache form, fp8 among them, each
    // passed, and its counts those of the cache property.
    int judged = 0;
    bool fp8 = false;
    for (const auto& [form, f] : r.fused) {
      EXPECT_EQ(f.failed, 0) << r.name << " " << form;
      judged += f.passed;
      fp8 |= form.find("fp8_e4m3fn") != std::string::npos || form.find("e4m3") != std::string::npos;
    }
    EXPECT_GT(r.fused.size(), 3u) << g.text;
    EXPECT_TRUE(fp8) << g.text;
    EXPECT_EQ(judged, property_stats(r, "CachesTheRotatedKAndV").passed) << g.text;
  }
  EXPECT_NE(g.text.find("### Fused operations"), std::string::npos);
  std::cout << g.text;
}

TEST(FusedKernels, ADeclarationOtherThanTheArithmeticFails) {
  const ropecheck_impl_t* vllm = find_impl("scalar_fused_kv_vllm");
  ASSERT_NE(vllm, nullptr);
  ropecheck_impl_t multiply = *vllm;  // divides, declared as multiplying
  multiply.name = "vllm_declared_multiply";
  multiply.kv_policy.scale_direction = ROPECHECK_KV_SCALE_MULTIPLY;
  ropecheck_impl_t fp32 = *vllm;  // scales the stored k, declared as scaling the fp32 one
  fp32.name = "vllm_declared_not_via_storage";
  fp32.kv_policy.via_storage = 0;
  ASSERT_EQ(validate_impl_table(&multiply), "");
  // The write's property alone: the declaration changes nothing else the
  // gate judges (the first test runs every property on these arithmetics).
  const GateRun g = run_quick_gate({&multiply, &fp32}, std::nullopt, {"CachesTheRotatedKAndV"});
  ASSERT_EQ(g.report.impls.size(), 2u);
  EXPECT_GT(property_stats(g.report.impls[0], "CachesTheRotatedKAndV").failed, 0) << g.text;
  // The store to bf16/fp16 before the scale is one rounding the declared
  // fp32 path does not have: caught wherever it moves the value across a
  // rounding boundary of the cache dtype (about 6% of e4m3fn elements of a
  // bf16 k), so on some case of the suite.
  EXPECT_GT(property_stats(g.report.impls[1], "CachesTheRotatedKAndV").failed, 0) << g.text;
}

// The slot mapping's permutation (Rope/PermutingSlotsPermutesTheCache)
// kills a kernel the other cache properties pass: a prefill path that
// writes ascending slots as one contiguous run. Their one random mapping per
// case ascends only for a few tokens, under the path's threshold; the
// permutation hands the same slots out ascending, with the holes between
// blocks a paged cache has.
TEST(FusedKernels, AContiguousPrefillPathDiesOnlyByTheSlotPermutation) {
  const ropecheck_impl_t* k = mutant::find_mutant("mutant_kv_contiguous_prefill_slots");
  ASSERT_NE(k, nullptr);
  const GateRun others = run_quick_gate({k}, std::nullopt, {"CachesTheRotatedKAndV", "LeavesTheRestOfTheCacheUnchanged"});
  EXPECT_TRUE(others.report.passed()) << others.text;
  EXPECT_GT(property_stats(others.report.impls[0], "CachesTheRotatedKAndV").passed, suite_size(Suite::kQuick) / 3);
  const GateRun permuted = run_quick_gate({k}, std::nullopt, {"PermutingSlotsPermutesTheCache"});
  EXPECT_GT(property_stats(permuted.report.impls[0], "PermutingSlotsPermutesTheCache").failed, 0) << permuted.text;
}

// A cos/sin cache passed in by the caller (ABI 1.6): scalar_caller_cache
// passes the quick gate in every cache dtype it declares (fp32 and the
// activation dtype), each judged on cases of its own (the report's fused
// table); run in ropecheck's own process, a kernel that writes into the
// cache is named for it (isolation's copies are checked by isolation).
TEST(CallerCosSinCache, TheScalarKernelPassesInEveryDtypeItDeclares) {
  const ropecheck_impl_t* k = find_impl("scalar_caller_cache");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(validate_impl_table(k), "");
  const GateRun g = run_quick_gate({k}, std::nullopt, {"ConformsToReference", "RefusesPositionsBeyondTheCache"});
  EXPECT_TRUE(g.report.passed()) << g.text;
  const ImplReport& r = g.report.impls[0];
  EXPECT_GT(property_stats(r, "RefusesPositionsBeyondTheCache").passed, 20) << g.text;
  int judged = 0;
  for (const char* dtype : {"f32", "f16", "bf16"}) {
    const std::string form = std::string("caller's cos/sin cache ") + dtype + " (ABI 1.6)";
    const auto f = r.fused.find(form);
    ASSERT_NE(f, r.fused.end()) << form << "\n" << g.text;
    EXPECT_EQ(f->second.failed, 0) << form;
    EXPECT_GT(f->second.passed, 4) << form << " judged on too few cases";
    judged += f->second.passed;
  }
  EXPECT_EQ(judged, property_stats(r, "ConformsToReference").passed);
  std::cout << g.text;
}

// The first case of the quick suite (seed 1) within k's capabilities, with
// a token to rotate, that `also` (when given) accepts.
std::optional<Case> first_quick_case(const ropecheck_impl_t& k,
                                     bool (*also)(const ropecheck_impl_t&, const Case&) = nullptr) {
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    if (outside_capabilities(k, c).empty() && c.tokens >= 1 && (also == nullptr || also(k, c))) return c;
  }
  return std::nullopt;
}

// bf16/fp16 q given an fp32 cache: the one
// mutant_cos_sin_cache_downcast_in_place rounds in place.
bool gets_an_fp32_caller_cache(const ropecheck_impl_t& k, const Case& c) {
  return c.dtype != ROPECHECK_DTYPE_F32 && caller_cache_dtype(c, k.cos_sin_cache_dtypes) == ROPECHECK_DTYPE_F32;
}

// The kernel's own cos/sin cache memo for `want`, built (or kept) as a call
// in this process asks for it.
OwnCosSinCache own_memo(const ropecheck_impl_t& k, const CacheWanted& want) {
  KernelRun r;
  const OwnCosSinCache own = own_cos_sin_cache(k, want, fp_control_now(), &r);
  EXPECT_NE(own.data, nullptr) << r.message;
  return own;
}

TEST(CallerCosSinCache, AKernelInThisProcessWritingIntoItIsNamed) {
  const ropecheck_impl_t* k = mutant::find_mutant("mutant_cos_sin_cache_downcast_in_place");
  ASSERT_NE(k, nullptr);
  const std::optional<Case> c = first_quick_case(*k, gets_an_fp32_caller_cache);
  ASSERT_TRUE(c) << "no quick case gives a bf16/fp16 kernel an fp32 cache";
  prop::CaseContext ctx(*c);
  const KernelRun run = call_kernel(*k, *c, ctx.inputs());
  EXPECT_NE(run.misbehaviour.find("wrote into its input cos_sin_cache (the caller's, f32)"), std::string::npos)
      << run.misbehaviour;
}

// A kernel's own cos/sin cache (COS_SIN_CACHE) in ropecheck's own process:
// the kernel is handed the memo itself, kept read-only between builds
// (core/kernel/own_cos_sin_cache.h), not a copy compared after the call. A
// write into it, even one undone before returning (a comparison after the
// call missed that), names the call, and the next call builds the cache
// anew; asked for again with nothing written, the memo is the same one.
TEST(OwnCosSinCache, AKernelInThisProcessWritingIntoItIsNamedAndTheCacheIsBuiltAgain) {
  if (!read_only_watches_armed()) GTEST_SKIP() << "read-only watches are off in this build (an AddressSanitizer build)";
  const ropecheck_impl_t* bad = mutant::misbehaving_impl(mutant::Misbehaviour::restores_own_cache);
  ASSERT_NE(bad, nullptr);
  ASSERT_TRUE(bad->caps.flags & ROPECHECK_CAP_COS_SIN_CACHE);
  // Whether a write into element `at` of the memo faults (the watch sees
  // it): the memo's pages are read-only. The page is writable afterwards.
  const auto write_faults = [](const OwnCosSinCache& own, std::size_t at) {
    ReadOnlyWatch watch(const_cast<float*>(own.data), own.read_only_bytes, ReadOnlyWatch::AlreadyReadOnly{});
    EXPECT_TRUE(watch.armed());
    volatile float* entry = const_cast<float*>(own.data) + at;
    *entry = *entry;
    return watch.end();
  };
  const std::optional<Case> found = first_quick_case(*bad);
  ASSERT_TRUE(found) << "no quick case within the capabilities of " << bad->name;
  const Case& c = *found;
  ropecheck_freq_spec_t freq = c.freq.to_abi();
  CacheWanted want{.freq = freq, .rotary_dim = c.shape.rotary_dim, .rows = cos_sin_cache_rows(*bad, c)};
  const auto memo = [&] { return own_memo(*bad, want); };
  const auto entries = [&] { return static_cast<std::size_t>(want.rows * want.rotary_dim); };
  const OwnCosSinCache built = memo();
  ASSERT_GE(built.read_only_bytes, entries() * sizeof(float));
  EXPECT_EQ(memo().generation, built.generation) << "asked for again with nothing written, it was built anew";
  {  // A watch that saw no write leaves the pages read-only when it ends.
    float* const table = const_cast<float*>(built.data);
    const ReadOnlyWatch quiet(table, built.read_only_bytes, ReadOnlyWatch::AlreadyReadOnly{});
  }
  EXPECT_TRUE(write_faults(built, entries() - 1));
  forget_own_cos_sin_cache();  // the page the write reached is writable now
  const OwnCosSinCache rebuilt = memo();
  EXPECT_NE(rebuilt.generation, built.generation);
  EXPECT_TRUE(write_faults(rebuilt, 0)) << "read-only again after its build";
  prop::CaseContext ctx(c);
  const KernelRun run = call_kernel(*bad, c, ctx.inputs());
  EXPECT_NE(run.misbehaviour.find("wrote into its input cos_sin_cache (its own, from its build_cache), read-only "
                                  "for the call"),
            std::string::npos)
      << run.misbehaviour;
  const OwnCosSinCache after = memo();
  EXPECT_NE(after.generation, rebuilt.generation) << "a cache a kernel wrote into was handed out again";
  // Built again from a read-only memo: grown (more rows), then another
  // spec with fewer entries (within the grown mapping): read-only each time.
  want.rows = 2 * want.rows + 1;
  const OwnCosSinCache grown = memo();
  EXPECT_NE(grown.generation, after.generation);
  ASSERT_GE(grown.read_only_bytes, entries() * sizeof(float));
  EXPECT_TRUE(write_faults(grown, entries() - 1));
  forget_own_cos_sin_cache();
  (void)memo();  // read-only again
  want.rows = (want.rows - 1) / 2;
  freq.base *= 2;
  const OwnCosSinCache other = memo();
  ASSERT_GE(other.read_only_bytes, entries() * sizeof(float));
  EXPECT_TRUE(write_faults(other, entries() - 1));
  forget_own_cos_sin_cache();
}

// A host that installs its own SIGSEGV handler after ropecheck's (Python's
// faulthandler.enable(), a JVM) takes the faults a watch relies on: a write
// into a watched cache would reach that handler, a crash or, as below, a
// write let through unnamed. Whether ropecheck's handler is in place is
// asked at each watch (read_only_watches_armed), so the calls fall back to
// the copy each cache part compares after the call, and both caches' writes
// are still named; with ropecheck's handler back, watches are armed again.
std::atomic<int> g_foreign_faults{0};
void foreign_fault_handler(int, siginfo_t* si, void*) {
  // What a permissive host handler might do: let the write through.
  g_foreign_faults.fetch_add(1);
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto at = reinterpret_cast<std::uintptr_t>(si->si_addr) & ~(page - 1);
  ::mprotect(reinterpret_cast<void*>(at), page, PROT_READ | PROT_WRITE);
}

TEST(OwnCosSinCache, AFaultHandlerAHostInstallsLaterTurnsTheWatchesIntoCopiesCompared) {
  if (!read_only_watches_armed()) GTEST_SKIP() << "read-only watches are off in this build (an AddressSanitizer build)";
  const ropecheck_impl_t* own_writer = mutant::misbehaving_impl(mutant::Misbehaviour::writes_cache);
  const ropecheck_impl_t* caller_writer = mutant::find_mutant("mutant_cos_sin_cache_downcast_in_place");
  ASSERT_NE(own_writer, nullptr);
  ASSERT_NE(caller_writer, nullptr);
  // One case each kernel takes, its inputs made before the switch.
  const std::optional<Case> own_case = first_quick_case(*own_writer),
                            caller_case = first_quick_case(*caller_writer, gets_an_fp32_caller_cache);
  ASSERT_TRUE(own_case && caller_case);
  prop::CaseContext own_ctx(*own_case), caller_ctx(*caller_case);
  const QkBuffers& own_in = own_ctx.inputs();
  const QkBuffers& caller_in = caller_ctx.inputs();
  {  // The writer's memo built before the switch, read-only: under the
     // host's handler the kernel is handed a copy of it instead.
    const ropecheck_freq_spec_t freq = own_case->freq.to_abi();
    ASSERT_GT(own_memo(*own_writer, {.freq = freq,
                                     .rotary_dim = own_case->shape.rotary_dim,
                                     .rows = cos_sin_cache_rows(*own_writer, *own_case)})
                  .read_only_bytes,
              0u);
  }

  struct sigaction foreign {};
  struct sigaction saved_segv {};
  struct sigaction saved_bus {};
  foreign.sa_sigaction = foreign_fault_handler;
  foreign.sa_flags = SA_SIGINFO;
  ASSERT_EQ(::sigaction(SIGSEGV, &foreign, &saved_segv), 0);
  ASSERT_EQ(::sigaction(SIGBUS, &foreign, &saved_bus), 0);
  const bool armed_under_foreign = read_only_watches_armed();
  const KernelRun own_run = call_kernel(*own_writer, *own_case, own_in);
  const KernelRun caller_run = call_kernel(*caller_writer, *caller_case, caller_in);
  ::sigaction(SIGSEGV, &saved_segv, nullptr);
  ::sigaction(SIGBUS, &saved_bus, nullptr);

  EXPECT_FALSE(armed_under_foreign) << "a watch would be armed with another handler taking its faults";
  EXPECT_EQ(g_foreign_faults.load(), 0) << "a write into a watched cache reached the host's handler";
  EXPECT_NE(own_run.misbehaviour.find("wrote into its input cos_sin_cache"), std::string::npos) << own_run.misbehaviour;
  EXPECT_NE(caller_run.misbehaviour.find("wrote into its input cos_sin_cache (the caller's, f32)"), std::string::npos)
      << caller_run.misbehaviour;
  EXPECT_TRUE(read_only_watches_armed()) << "ropecheck's handler back in place, watches are armed again";
  forget_own_cos_sin_cache();
}

// A cache write that is not the same from one call to the next (a race
// between threads writing one entry, a write that mixes in what the entry
// held): call_kernel_twice compares the entries both calls wrote, bit for
// bit, as it compares q and k. The kernel below is scalar_fused_kv_vllm
// with the first element of the first written K entry inverted on every
// second call.
const ropecheck_impl_t* g_fused = nullptr;
int g_calls = 0;
ropecheck_status_t flips_every_second_write(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const ropecheck_status_t st = g_fused->apply(ctx, p, err, n);
  if (st != ROPECHECK_OK || p->kv_write == nullptr || ++g_calls % 2 != 0) return st;
  const ropecheck_kv_write_t& w = *p->kv_write;
  for (std::int64_t t = 0; t < p->num_tokens; ++t) {
    if (w.slot_mapping[t] < 0) continue;
    const std::size_t es = kv_dtype_size(w.cache_dtype);
    auto* at = static_cast<unsigned char*>(w.k_cache) +
               kv_element_offset(w.block_stride, w.slot_stride, w.head_stride, w.block_size, w.slot_mapping[t], 0, 0) * es;
    for (std::size_t b = 0; b < es; ++b) at[b] = static_cast<unsigned char>(~at[b]);
    break;
  }
  return st;
}

TEST(FusedKernels, TwoCallsWritingOtherCacheEntriesAreAMisbehaviour) {
  g_fused = find_impl("scalar_fused_kv_vllm");
  ASSERT_NE(g_fused, nullptr);
  ropecheck_impl_t flaky = *g_fused;
  flaky.name = "flips_every_second_write";
  flaky.apply = flips_every_second_write;
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    if (!outside_capabilities(*g_fused, c).empty() || !kv_write_case(c, g_fused->kv_policy, g_fused->kv_cache_kinds))
      continue;
    prop::CaseContext ctx(c);
    // The kernel itself: both calls wrote the same entries.
    const KernelRun good = call_kernel_twice(*g_fused, c, ctx.inputs());
    ASSERT_TRUE(good.kv.has_value());
    EXPECT_EQ(good.misbehaviour, "");
    g_calls = 0;
    const KernelRun bad = call_kernel_twice(flaky, c, ctx.inputs());
    EXPECT_NE(bad.misbehaviour.find("two calls on the same case wrote other bytes into the K cache's entries"),
              std::string::npos)
        << bad.misbehaviour;
    return;
  }
  FAIL() << "no quick case carries a cache write";
}

// The cache rounding rows of the catalogue (issue #48) die in every cache
// dtype that rounds, each judged alone: the quick suite's writes reach ties
// and the largest finite value of each (core/test/fused_cases_test.cc), and
// where the arithmetic is exact E9 admits the even code only.
TEST(FusedKernels, EveryCacheRoundingBugDiesInEveryCacheDtype) {
  for (const char* name : {"mutant_kv_ties_away_from_zero", "mutant_kv_truncated_toward_zero"}) {
    const ropecheck_impl_t* m = mutant::find_mutant(name);
    ASSERT_NE(m, nullptr) << name;
    for (int d : {ROPECHECK_KV_F16, ROPECHECK_KV_BF16, ROPECHECK_KV_FP8_E4M3FN, ROPECHECK_KV_FP8_E5M2}) {
      ropecheck_impl_t one = *m;
      one.kv_policy.cache_dtypes = 1u << d;
      const GateRun g = run_quick_gate({&one}, std::nullopt, {"CachesTheRotatedKAndV"});
      EXPECT_FALSE(g.report.passed()) << name << " passed with its cache in "
                                      << kv_dtype_name(static_cast<KvDtype>(d)) << "\n" << g.text;
    }
  }
  // Saturation declared, e5m2 converted without it: the writes past 57344 show it.
  const ropecheck_impl_t* e5 = mutant::find_mutant("mutant_kv_e5m2_not_saturated");
  ASSERT_NE(e5, nullptr);
  ropecheck_impl_t only_e5m2 = *e5;
  only_e5m2.kv_policy.cache_dtypes = 1u << ROPECHECK_KV_FP8_E5M2;
  EXPECT_FALSE(run_quick_gate({&only_e5m2}, std::nullopt, {"CachesTheRotatedKAndV"}).report.passed());
}

}  // namespace
}  // namespace ropecheck
