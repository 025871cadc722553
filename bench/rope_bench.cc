// CPU RoPE throughput against memory bandwidth measured in the same run.
//
// Every kernel benchmark reports bytes moved per second (q and k read and
// written once, plus the cos/sin cache rows it reads); `copy/...` moves the
// same q+k byte count with memcpy in the same process, same thread count, and
// `rmw/...` streams once in place over the same buffers (the in-place roofline).
// bench/cpu_report.py turns the JSON into ratios (vs copy, vs scalar).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"
#include "impls/registry.h"
#include "impls/simd/simd_impls.h"

namespace {

using ropecheck::impl::set_simd_threads;

struct Shape {
  const char* name;
  std::int64_t tokens;
  int q_heads, kv_heads, head_dim;
};
constexpr Shape kPrefill{"prefill", 4096, 32, 8, 128};  // Llama 3 8B
constexpr Shape kDecode{"decode", 1, 32, 8, 128};

struct Buffers {
  std::vector<unsigned char> q, k;
  std::vector<std::int64_t> pos;
  std::vector<float> cache;
  std::size_t qk_bytes = 0;
};

Buffers make_buffers(const Shape& s, ropecheck_dtype_t dt, bool want_cache) {
  Buffers b;
  const std::size_t es = ropecheck::dtype_size(dt);
  b.q.resize(static_cast<std::size_t>(s.tokens) * s.q_heads * s.head_dim * es);
  b.k.resize(static_cast<std::size_t>(s.tokens) * s.kv_heads * s.head_dim * es);
  for (std::size_t i = 0; i < b.q.size(); ++i) b.q[i] = static_cast<unsigned char>(i * 7 % 61);
  for (std::size_t i = 0; i < b.k.size(); ++i) b.k[i] = static_cast<unsigned char>(i * 5 % 59);
  if (dt != ROPECHECK_DTYPE_F32) {  // keep bf16 values finite and moderate
    for (std::size_t i = 1; i < b.q.size(); i += 2) b.q[i] = 0x3f;
    for (std::size_t i = 1; i < b.k.size(); i += 2) b.k[i] = 0x3f;
  } else {
    for (std::size_t i = 3; i < b.q.size(); i += 4) b.q[i] = 0x3f;
    for (std::size_t i = 3; i < b.k.size(); i += 4) b.k[i] = 0x3f;
  }
  b.pos.resize(static_cast<std::size_t>(s.tokens));
  // Decode reads one row deep in the cache, as a serving engine does.
  for (std::int64_t t = 0; t < s.tokens; ++t) b.pos[t] = s.tokens == 1 ? 8191 : t;
  if (want_cache) b.cache.resize(static_cast<std::size_t>(8192) * s.head_dim);
  b.qk_bytes = b.q.size() + b.k.size();
  return b;
}

ropecheck_freq_spec_t default_freq() {
  ropecheck_freq_spec_t f{};
  f.scheme = ROPECHECK_SCHEME_DEFAULT;
  f.base = 500000.0;
  return f;
}

// Splits like the kernels do: never more workers than tokens.
void parallel_copy(unsigned char* dst, const unsigned char* src, std::size_t n, int threads) {
  if (threads <= 1) {
    std::memcpy(dst, src, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const std::size_t a = t * chunk, e = std::min(n, a + chunk);
    if (a < e) pool.emplace_back([=] { std::memcpy(dst + a, src + a, e - a); });
  }
  for (auto& th : pool) th.join();
}

// Copies as many bytes as the kernel moves: the q+k bytes once each way.
void BM_Copy(benchmark::State& st, Shape s, ropecheck_dtype_t dt, int threads) {
  Buffers b = make_buffers(s, dt, false);
  std::vector<unsigned char> src(b.qk_bytes, 1), dst(b.qk_bytes, 0);
  for (auto _ : st) {
    parallel_copy(dst.data(), src.data(), src.size(),
                  static_cast<int>(std::min<std::int64_t>(threads, s.tokens)));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  const double bytes = 2.0 * static_cast<double>(b.qk_bytes);
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes) * st.iterations());
}

// The in-place roofline: one streaming read-modify-write pass over the same
// q+k buffers (each fp32 word scaled by a factor the compiler cannot see is
// 1), split over threads like the kernels.
void BM_Rmw(benchmark::State& st, Shape s, ropecheck_dtype_t dt, int threads) {
  Buffers b = make_buffers(s, dt, false);
  volatile float one_v = 1.0f;
  const float one = one_v;
  auto pass = [one](unsigned char* base, std::size_t bytes) {
    float* f = reinterpret_cast<float*>(base);
    const std::size_t n = bytes / sizeof(float);
    for (std::size_t i = 0; i < n; ++i) f[i] *= one;
  };
  const int workers = static_cast<int>(std::min<std::int64_t>(threads, s.tokens));
  for (auto _ : st) {
    for (auto* buf : {&b.q, &b.k}) {
      if (workers <= 1) {
        pass(buf->data(), buf->size());
        continue;
      }
      std::vector<std::thread> pool;
      const std::size_t chunk = (buf->size() / workers + 63) & ~std::size_t{63};
      for (int t = 0; t < workers; ++t) {
        const std::size_t a = t * chunk, e = std::min(buf->size(), a + chunk);
        if (a < e) pool.emplace_back([&, a, e] { pass(buf->data() + a, e - a); });
      }
      for (auto& th : pool) th.join();
    }
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(2.0 * static_cast<double>(b.qk_bytes)) * st.iterations());
}

void BM_Rope(benchmark::State& st, const char* impl_name, Shape s, ropecheck_dtype_t dt, int threads,
             ropecheck_layout_t layout) {
  const ropecheck_impl_t* impl = ropecheck::find_impl(impl_name);
  if (!impl) {
    st.SkipWithError("no such implementation");
    return;
  }
  const bool cache = (impl->caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) != 0;
  Buffers b = make_buffers(s, dt, cache);
  const ropecheck_freq_spec_t freq = default_freq();
  char err[256];
  if (cache && impl->build_cache(impl->ctx, &freq, s.head_dim, 8192, ROPECHECK_DTYPE_F32, b.cache.data(), err,
                                 sizeof err) != ROPECHECK_OK) {
    st.SkipWithError(err);
    return;
  }
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof p;
  p.dtype = dt;
  p.layout = layout;
  p.num_tokens = s.tokens;
  p.num_q_heads = s.q_heads;
  p.num_kv_heads = s.kv_heads;
  p.head_dim = p.rotary_dim = s.head_dim;
  p.q_in = p.q_out = b.q.data();
  p.k_in = p.k_out = b.k.data();
  p.q_token_stride = static_cast<std::int64_t>(s.q_heads) * s.head_dim;
  p.k_token_stride = static_cast<std::int64_t>(s.kv_heads) * s.head_dim;
  p.q_head_stride = p.k_head_stride = s.head_dim;
  p.positions = b.pos.data();
  p.position_type = ROPECHECK_INDEX_INT64;
  p.freq = &freq;
  p.cos_sin_cache = cache ? b.cache.data() : nullptr;
  p.cache_dtype = ROPECHECK_DTYPE_F32;
  p.cache_max_position = 8192;
  set_simd_threads(threads);
  for (auto _ : st) {
    if (impl->apply(impl->ctx, &p, err, sizeof err) != ROPECHECK_OK) {
      st.SkipWithError(err);
      break;
    }
    benchmark::ClobberMemory();
  }
  set_simd_threads(1);
  const double cache_bytes = cache ? static_cast<double>(s.tokens) * s.head_dim * sizeof(float) : 0.0;
  const double bytes = 2.0 * static_cast<double>(b.qk_bytes) + cache_bytes;
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes) * st.iterations());
}

void register_all() {
  const ropecheck_dtype_t dtypes[] = {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16};
  for (const Shape& s : {kPrefill, kDecode}) {
    for (ropecheck_dtype_t dt : dtypes) {
      for (int threads : {1, 2}) {
        const std::string tag = std::string(s.name) + "/" + (dt == ROPECHECK_DTYPE_F32 ? "f32" : "bf16") +
                                "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(("copy/" + tag).c_str(), BM_Copy, s, dt, threads)->UseRealTime();
        benchmark::RegisterBenchmark(("rmw/" + tag).c_str(), BM_Rmw, s, dt, threads)->UseRealTime();
        for (auto layout : {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED}) {
          const std::string lt = tag + (layout == ROPECHECK_LAYOUT_HALF_SPLIT ? "/half_split" : "/interleaved");
          for (const char* impl : {"simd_cache", "simd_otf"})
            benchmark::RegisterBenchmark((std::string(impl) + "/" + lt).c_str(), BM_Rope, impl, s, dt, threads,
                                         layout)
                ->UseRealTime();
          if (threads == 1)  // the scalar kernels are single-threaded
            for (const char* impl : {"scalar_cached", "scalar_naive"})
              benchmark::RegisterBenchmark((std::string(impl) + "/" + lt).c_str(), BM_Rope, impl, s, dt, threads,
                                           layout)
                  ->UseRealTime();
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
