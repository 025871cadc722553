// SPDX-License-Identifier: MIT
// CPU RoPE throughput against memory bandwidth measured in the same run.
//
// Every kernel benchmark reports bytes moved per second (q and k read and
// written once, plus the cos/sin cache rows it reads); `copy/...` moves the
// same q+k byte count with memcpy, and `rmw/...` streams once in place over
// the same buffers (the in-place roofline, speed/rmw_pass.h). The baselines
// split their bytes over the same worker pool and the same number of workers
// as the kernels (speed/byte_split.h), so a ratio compares the work, not
// the threading. bench/cpu_report.py turns the JSON into ratios.
//
// Shapes (Llama 3 8B: 32 q heads, 8 kv heads, head_dim 128, base 5e5):
//   prefill: one sequence of 4096 tokens at positions 0..4095;
//   decode:  64 sequences of one token each, at unrelated positions below
//            8192, as a serving engine's decode step sees them.
// The fused KV-cache write (ABI 1.4; simd_fused_kv_vllm against
// scalar_fused_kv_vllm, beside simd_cache's rotation alone) adds v read once
// and the k and v cache entries written once to the bytes: a paged NHD cache
// of 16-slot blocks, token t at slot = its position (prefill: blocks in
// order; decode: unrelated blocks), per-tensor scales.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "impls/registry.h"
#include "impls/simd/simd_impls.h"
#include "impls/simd/worker_pool.h"
#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/names.h"
#include "speed/bench_shapes.h"
#include "speed/byte_split.h"
#include "speed/rmw_pass.h"

namespace {

using ropecheck::impl::run_parallel;
using ropecheck::impl::set_simd_threads;
using ropecheck::speed::split_bytes;
using ropecheck::speed::workers_for;

struct Shape {
  const char* name;
  std::int64_t tokens;
  int q_heads, kv_heads, head_dim;
};
constexpr Shape kPrefill{"prefill", 4096, 32, 8, 128};
constexpr Shape kDecode{"decode", 64, 32, 8, 128};
constexpr std::int64_t kCacheRows = 8192;

struct Buffers {
  std::vector<unsigned char> q, k;
  std::vector<std::int64_t> pos;
  std::vector<float> cache;
  std::size_t qk_bytes = 0;
};

// Finite, moderate values in every dtype: the high byte of each element is
// 0x3f (fp32: the top byte of the word; fp16: exponent near 1; bf16: near 1).
Buffers make_buffers(const Shape& s, ropecheck_dtype_t dt, bool want_cache) {
  Buffers b;
  const std::size_t es = ropecheck::dtype_size(dt);
  b.q.resize(static_cast<std::size_t>(s.tokens) * s.q_heads * s.head_dim * es);
  b.k.resize(static_cast<std::size_t>(s.tokens) * s.kv_heads * s.head_dim * es);
  for (std::size_t i = 0; i < b.q.size(); ++i) b.q[i] = static_cast<unsigned char>(i * 7 % 61);
  for (std::size_t i = 0; i < b.k.size(); ++i) b.k[i] = static_cast<unsigned char>(i * 5 % 59);
  const std::size_t top = es - 1;
  const unsigned char high = dt == ROPECHECK_DTYPE_F16 ? 0x3b : 0x3f;
  for (std::size_t i = top; i < b.q.size(); i += es) b.q[i] = high;
  for (std::size_t i = top; i < b.k.size(); i += es) b.k[i] = high;
  b.pos.resize(static_cast<std::size_t>(s.tokens));
  const bool decode = s.tokens == kDecode.tokens;
  for (std::int64_t t = 0; t < s.tokens; ++t) b.pos[t] = decode ? ropecheck::speed::decode_position(t, kCacheRows) : t;
  if (want_cache) b.cache.resize(static_cast<std::size_t>(kCacheRows) * s.head_dim);
  b.qk_bytes = b.q.size() + b.k.size();
  return b;
}

// Copies as many bytes as the kernel moves: the q+k bytes once each way.
void BM_Copy(benchmark::State& st, Shape s, ropecheck_dtype_t dt, int threads) {
  const Buffers b = make_buffers(s, dt, false);
  std::vector<unsigned char> src(b.qk_bytes, 1), dst(b.qk_bytes, 0);
  const int workers = workers_for(b.qk_bytes, threads);
  for (auto _ : st) {
    split_bytes(src.size(), workers, [&](std::size_t a, std::size_t e) { std::memcpy(&dst[a], &src[a], e - a); });
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(2 * b.qk_bytes) * st.iterations());
}

// The in-place baselines over the same q and k buffers the kernel rotates
// (speed/rmw_pass.h), in two orders: buffer by buffer ("rmw"), and token by
// token, each token's q rows then its k rows, as the kernels walk them
// ("rmw_tokens"). Which is faster depends on the machine and the shape (on
// AMD Zen 4 the token order ran 10% faster for the 16-bit prefill), so the
// report takes the faster as the in-place roofline. "convert" is the token
// order with each element widened and narrowed by the kernels' conversions.
enum class Pass { kRmwBuffers, kRmwTokens, kConvert };

void BM_InPlace(benchmark::State& st, Shape s, ropecheck_dtype_t dt, int threads, Pass pass) {
  Buffers b = make_buffers(s, dt, false);
  volatile std::uint32_t zero_v = 0;
  const std::uint32_t zero = zero_v;
  const int workers = workers_for(b.qk_bytes, threads);
  const std::size_t q_row = b.q.size() / s.tokens, k_row = b.k.size() / s.tokens;
  const auto run = [&](unsigned char* p, std::size_t n) {
    pass == Pass::kConvert ? ropecheck::speed::convert_pass(dt, p, n) : ropecheck::speed::rmw_pass(p, n, zero);
  };
  st.SetLabel(ropecheck::speed::rmw_target());
  for (auto _ : st) {
    if (pass == Pass::kRmwBuffers) {
      for (auto* buf : {&b.q, &b.k})
        split_bytes(buf->size(), workers, [&](std::size_t a, std::size_t e) { run(buf->data() + a, e - a); });
    } else {
      run_parallel(workers, [&](int w) {
        for (std::int64_t t = s.tokens * w / workers, e = s.tokens * (w + 1) / workers; t < e; ++t) {
          run(b.q.data() + t * q_row, q_row);
          run(b.k.data() + t * k_row, k_row);
        }
      });
    }
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(2 * b.qk_bytes) * st.iterations());
}

// One kernel call on a shape's buffers, set up once per benchmark: the
// buffers, the frequency spec and the params pointing into them (not moved
// after prepare_call).
struct Call {
  Buffers b;
  ropecheck_freq_spec_t freq{};
  ropecheck_apply_params_t p{};
  bool cache = false;
};

// False (the benchmark skipped with the reason) when the kernel is missing or
// its cos/sin cache cannot be built.
bool prepare_call(benchmark::State& st, const char* impl_name, Shape s, ropecheck_dtype_t dt,
                  ropecheck_layout_t layout, Call* c, const ropecheck_impl_t** out) {
  const ropecheck_impl_t* impl = ropecheck::find_impl(impl_name);
  if (!impl) {
    st.SkipWithError("no such implementation");
    return false;
  }
  c->cache = (impl->caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) != 0;
  c->b = make_buffers(s, dt, c->cache);
  c->freq.scheme = ROPECHECK_SCHEME_DEFAULT;
  c->freq.base = 500000.0;
  char err[256];
  if (c->cache && impl->build_cache(impl->ctx, &c->freq, s.head_dim, kCacheRows, ROPECHECK_DTYPE_F32,
                                    c->b.cache.data(), err, sizeof err) != ROPECHECK_OK) {
    st.SkipWithError(err);
    return false;
  }
  ropecheck_apply_params_t& p = c->p;
  p.struct_size = sizeof p;
  p.dtype = dt;
  p.layout = layout;
  p.num_tokens = s.tokens;
  p.num_q_heads = s.q_heads;
  p.num_kv_heads = s.kv_heads;
  p.head_dim = p.rotary_dim = s.head_dim;
  p.q_in = p.q_out = c->b.q.data();
  p.k_in = p.k_out = c->b.k.data();
  p.q_token_stride = static_cast<std::int64_t>(s.q_heads) * s.head_dim;
  p.k_token_stride = static_cast<std::int64_t>(s.kv_heads) * s.head_dim;
  p.q_head_stride = p.k_head_stride = s.head_dim;
  p.positions = c->b.pos.data();
  p.position_type = ROPECHECK_INDEX_INT64;
  p.freq = &c->freq;
  p.cos_sin_cache = c->cache ? c->b.cache.data() : nullptr;
  p.cache_dtype = ROPECHECK_DTYPE_F32;
  p.cache_max_position = kCacheRows;
  *out = impl;
  return true;
}

// Times impl->apply on c's params with `threads` SIMD threads; `bytes`
// moved per call.
void time_calls(benchmark::State& st, const ropecheck_impl_t* impl, const Call& c, int threads, double bytes) {
  char err[256];
  set_simd_threads(threads);
  if (impl->target) st.SetLabel(impl->target(impl->ctx));
  for (auto _ : st) {
    if (impl->apply(impl->ctx, &c.p, err, sizeof err) != ROPECHECK_OK) {
      st.SkipWithError(err);
      break;
    }
    benchmark::ClobberMemory();
  }
  set_simd_threads(1);
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes) * st.iterations());
}

// q+k read and written once, plus the cos/sin rows read.
double rope_bytes(const Call& c, Shape s) {
  const double cache_bytes = c.cache ? static_cast<double>(s.tokens) * s.head_dim * sizeof(float) : 0.0;
  return 2.0 * static_cast<double>(c.b.qk_bytes) + cache_bytes;
}

void BM_Rope(benchmark::State& st, const char* impl_name, Shape s, ropecheck_dtype_t dt, int threads,
             ropecheck_layout_t layout) {
  Call c;
  const ropecheck_impl_t* impl = nullptr;
  if (!prepare_call(st, impl_name, s, dt, layout, &c, &impl)) return;
  time_calls(st, impl, c, threads, rope_bytes(c, s));
}

// The rotation fused with the paged KV-cache write (header comment): the
// rotation's bytes plus v read and both caches' entries written.
void BM_FusedKv(benchmark::State& st, const char* impl_name, Shape s, ropecheck_dtype_t dt, int threads,
                ropecheck_kv_dtype_t cache_dtype) {
  Call c;
  const ropecheck_impl_t* impl = nullptr;
  if (!prepare_call(st, impl_name, s, dt, ROPECHECK_LAYOUT_HALF_SPLIT, &c, &impl)) return;
  constexpr int kBlock = 16;
  const std::int64_t slot_elems = static_cast<std::int64_t>(s.kv_heads) * s.head_dim;
  const std::size_t cache_bytes =
      static_cast<std::size_t>(kCacheRows * slot_elems) * ropecheck::kv_dtype_size(cache_dtype);
  std::vector<unsigned char> v = c.b.k, k_cache(cache_bytes), v_cache(cache_bytes);
  const std::vector<std::int64_t>& slots = c.b.pos;  // every position below kCacheRows: a slot of its own
  const float k_scale = 0.05f, v_scale = 0.05f;      // |k|, |v| <= 2: well inside e4m3fn's 448 after the scale
  ropecheck_kv_write_t w{};
  w.struct_size = sizeof w;
  w.cache_dtype = cache_dtype;
  w.num_blocks = kCacheRows / kBlock;
  w.block_size = kBlock;
  w.scale_kind = ROPECHECK_KV_SCALE_PER_TENSOR;
  w.block_stride = kBlock * slot_elems;
  w.slot_stride = slot_elems;
  w.head_stride = s.head_dim;
  w.k_cache = k_cache.data();
  w.v_cache = v_cache.data();
  w.v = v.data();
  w.v_token_stride = slot_elems;
  w.v_head_stride = s.head_dim;
  w.slot_mapping = slots.data();
  w.k_scale = &k_scale;
  w.v_scale = &v_scale;
  w.cache_kind = ROPECHECK_KV_CACHE_K_AND_V;
  c.p.kv_write = &w;
  const double written = 2.0 * static_cast<double>(s.tokens * slot_elems) * ropecheck::kv_dtype_size(cache_dtype);
  time_calls(st, impl, c, threads, rope_bytes(c, s) + static_cast<double>(v.size()) + written);
}

// Wall-clock time, and with repetitions the fastest one ("min") beside the
// median: on this shared 2-vCPU machine other work only ever slows a
// repetition (coefficients of variation up to 40% with 2 threads), so the
// fastest is the least disturbed, for the kernels and the baselines alike.
void timed(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->ComputeStatistics("min", [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
  });
}

void register_all() {
  for (const Shape& s : {kPrefill, kDecode}) {
    for (ropecheck_dtype_t dt : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16}) {
      for (int threads : {1, 2}) {
        const std::string tag =
            std::string(s.name) + "/" + std::string(ropecheck::dtype_name(dt)) + "/threads:" + std::to_string(threads);
        timed(benchmark::RegisterBenchmark(("copy/" + tag).c_str(), BM_Copy, s, dt, threads));
        for (auto [name, pass] : {std::pair{"rmw/", Pass::kRmwBuffers}, std::pair{"rmw_tokens/", Pass::kRmwTokens},
                                  std::pair{"convert/", Pass::kConvert}})
          timed(benchmark::RegisterBenchmark((name + tag).c_str(), BM_InPlace, s, dt, threads, pass));
        for (auto layout : {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED}) {
          const std::string lt = tag + (layout == ROPECHECK_LAYOUT_HALF_SPLIT ? "/half_split" : "/interleaved");
          for (const char* impl : {"simd_cache", "simd_otf"})
            timed(benchmark::RegisterBenchmark((std::string(impl) + "/" + lt).c_str(), BM_Rope, impl, s, dt, threads,
                                               layout));
          if (threads == 1)  // the scalar kernels are single-threaded
            for (const char* impl : {"scalar_cached", "scalar_naive"})
              timed(benchmark::RegisterBenchmark((std::string(impl) + "/" + lt).c_str(), BM_Rope, impl, s, dt, threads,
                                                 layout));
        }
        // The fused write, named impl.cache so that cpu_report.py reads
        // each cache dtype as a kernel of its own.
        for (auto [cache, cache_name] :
             {std::pair{ROPECHECK_KV_FP8_E4M3FN, "e4m3fn"}, std::pair{ROPECHECK_KV_BF16, "bf16"}})
          for (const char* impl : {"simd_fused_kv_vllm", "scalar_fused_kv_vllm"})
            if (threads == 1 || std::string_view(impl).starts_with("simd_")) {  // scalar: one thread
              const std::string name = std::string(impl) + "." + cache_name + "/" + tag + "/half_split";
              timed(benchmark::RegisterBenchmark(name.c_str(), BM_FusedKv, impl, s, dt, threads, cache));
            }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // ROPECHECK_SIMD_TARGET=AVX2 (simd_impls.h) pins the kernels and the
  // baselines, which share Highway's dispatcher, to that target.
  if (const std::string why = ropecheck::impl::simd_target_pin_error(); !why.empty()) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 2;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
