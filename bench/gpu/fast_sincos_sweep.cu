// SPDX-License-Identifier: MIT
// __sincosf on the GPU against fp64 sin/cos, for every fp32 x with
// |x| < 2^24 (both signs, 2^31 arguments), to test on hardware what the CPU
// side assumes of it:
//  - CUDA C++ Programming Guide, "Single-Precision Floating-Point Intrinsic
//    Functions": on [-pi, pi] the absolute error of __sinf is at most
//    2^-21.41 and of __cosf 2^-21.19. cuda_otf's declared 6e-7 rests on it
//    (impls/cuda/params_from_abi.h);
//  - impls/kernel_support/fast_sincos_model.h, the model that judges a kernel
//    calling __sincosf on an unreduced angle on the CPU: the argument is
//    t = RZ32(x * fl32(1/(2 pi))) revolutions, so the error beyond pi stays
//    within c0 + 1.5955e-7 |x|, and the unit's own error, |__sinf(x) -
//    sin(2 pi frac(t))|, is at most 2^-24.5 (sin) and 2^-23 (cos).
// One row per binade of |x|; exit status 1 if an error exceeds a bound the
// budgets use (the documented one on [-pi, pi], c0 + slope |x| beyond). The
// unit's own error against the model's amplitude is reported, not judged: the
// model picks its amplitude to stay within the documented totals (see its
// header). Reference: CUDA's fp64 sin/cos (2 ulps of double, the same guide),
// about 2^-50 next to the bounds tested.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench/gpu/cuda_check.h"
#include "impls/kernel_support/fast_sincos_model.h"

namespace {

constexpr int kBinades = 151;  // fp32 exponent fields 0 (subnormals) .. 150 (2^23 <= |x| < 2^24)

// Per binade, each as a non-negative double's bits (ordered like the value)
// or, for the worst ratios, (ratio as float bits) << 32 | x's bits: atomicMax
// keeps the argument with it.
struct Binade {
  unsigned long long err[2];    // max |fast - fp64|, sin and cos
  unsigned long long worst[2];  // max err / bound, with its x
  unsigned long long unit[2];   // max |fast - f(2 pi frac(t))|
  unsigned long long sinf_differs;  // __sinf(x) or __cosf(x) not bitwise __sincosf's
};

struct Bounds {
  double c0[2];  // documented on [-pi, pi]: 2^-21.41, 2^-21.19
  double c0_beyond;  // the declared form beyond pi: 2^-21.19 + slope |x|
  double slope;
  float pi32;
  float inv_two_pi;
};

__device__ unsigned long long dbits(double v) { return static_cast<unsigned long long>(__double_as_longlong(v)); }

__device__ unsigned long long warp_max(unsigned long long v) {
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long w = __shfl_down_sync(0xffffffffu, v, o);
    v = w > v ? w : v;
  }
  return v;
}

__global__ void sweep(unsigned exponent, Bounds b, Binade* out) {
  unsigned long long err[2] = {0, 0}, worst[2] = {0, 0}, unit[2] = {0, 0}, differs = 0;
  const unsigned n = 1u << 24;  // 2^23 significands, two signs
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned bits = (exponent << 23) | (i >> 1) | ((i & 1u) << 31);
    const float x = __uint_as_float(bits);
    float f[2];
    __sincosf(x, &f[0], &f[1]);
    if (__float_as_uint(__sinf(x)) != __float_as_uint(f[0]) || __float_as_uint(__cosf(x)) != __float_as_uint(f[1]))
      ++differs;
    const double ax = fabs(static_cast<double>(x));
    const double ref[2] = {sin(static_cast<double>(x)), cos(static_cast<double>(x))};
    const float t = __fmul_rz(x, b.inv_two_pi);
    const double rev = static_cast<double>(t) - rint(static_cast<double>(t));
    const double two_pi = 6.283185307179586476925286766559;
    const double model[2] = {sin(two_pi * rev), cos(two_pi * rev)};
    for (int j = 0; j < 2; ++j) {
      const double e = fabs(static_cast<double>(f[j]) - ref[j]);
      const double bound = ax <= b.pi32 ? b.c0[j] : b.c0_beyond + b.slope * ax;
      const unsigned long long key =
          (static_cast<unsigned long long>(__float_as_uint(static_cast<float>(e / bound))) << 32) | bits;
      err[j] = max(err[j], dbits(e));
      worst[j] = max(worst[j], key);
      unit[j] = max(unit[j], dbits(fabs(static_cast<double>(f[j]) - model[j])));
    }
  }
  for (int j = 0; j < 2; ++j) {
    err[j] = warp_max(err[j]);
    worst[j] = warp_max(worst[j]);
    unit[j] = warp_max(unit[j]);
  }
  for (int o = 16; o > 0; o /= 2) differs += __shfl_down_sync(0xffffffffu, differs, o);
  if ((threadIdx.x & 31) == 0) {
    Binade* r = out + exponent;
    for (int j = 0; j < 2; ++j) {
      atomicMax(&r->err[j], err[j]);
      atomicMax(&r->worst[j], worst[j]);
      atomicMax(&r->unit[j], unit[j]);
    }
    atomicAdd(&r->sinf_differs, differs);
  }
}

double as_double(unsigned long long u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
float ratio_of(unsigned long long key) {
  const auto hi = static_cast<std::uint32_t>(key >> 32);
  float f;
  std::memcpy(&f, &hi, sizeof f);
  return f;
}
float x_of(unsigned long long key) {
  const auto lo = static_cast<std::uint32_t>(key);
  float f;
  std::memcpy(&f, &lo, sizeof f);
  return f;
}
double lg(double v) { return v > 0 ? std::log2(v) : -INFINITY; }

}  // namespace

int main() {
  namespace fs = ropecheck::impl::fast_sincos;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, sm_%d%d\n", prop.name, prop.major, prop.minor);
  Bounds b{};
  b.c0[0] = fs::documented_sin_error();
  b.c0[1] = fs::documented_cos_error();
  b.c0_beyond = fs::documented_cos_error();
  b.slope = fs::phase_slope();
  b.pi32 = static_cast<float>(ropecheck::kPi);
  b.inv_two_pi = fs::kInvTwoPi;
  const double amplitude[2] = {0x1p-24 / std::sqrt(2.0), 0x1p-23};
  Binade* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, sizeof(Binade) * kBinades));
  CUDA_CHECK(cudaMemset(d, 0, sizeof(Binade) * kBinades));
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  CUDA_CHECK(cudaEventRecord(e0));
  for (unsigned e = 0; e < kBinades; ++e) sweep<<<prop.multiProcessorCount * 8, 256>>>(e, b, d);
  CUDA_CHECK(cudaEventRecord(e1));
  CUDA_CHECK(cudaEventSynchronize(e1));
  CUDA_CHECK(cudaGetLastError());
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
  Binade h[kBinades];
  CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("%u arguments (every fp32 with |x| < 2^24) in %.0f ms\n\n", kBinades * (1u << 24), ms);
  std::printf("bounds: |x| <= pi: sin 2^%.2f, cos 2^%.2f (documented); beyond: 2^%.2f + %.4e |x| (the model)\n",
              lg(b.c0[0]), lg(b.c0[1]), lg(b.c0_beyond), b.slope);
  std::printf("model's unit-error amplitudes: sin 2^%.2f, cos 2^%.2f\n\n", lg(amplitude[0]), lg(amplitude[1]));
  std::printf("| \\|x\\| in | max err sin | max err cos | worst err/bound sin (at x) | worst err/bound cos (at x) "
              "| unit err sin | unit err cos | __sinf/__cosf != __sincosf |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  bool within_pi = true, within_model = true;
  double unit_max[2] = {0, 0};
  double worst_beyond = 0, worst_pi[2] = {0, 0};
  unsigned long long differs = 0;
  for (int e = 0; e < kBinades; ++e) {
    const Binade& r = h[e];
    differs += r.sinf_differs;
    for (int j = 0; j < 2; ++j) {
      const bool beyond = e >= 128;  // |x| >= 2: the binade [2, 4) holds pi
      if (ratio_of(r.worst[j]) > 1) (beyond && std::fabs(x_of(r.worst[j])) > b.pi32 ? within_model : within_pi) = false;
      unit_max[j] = std::max(unit_max[j], as_double(r.unit[j]));
      if (!beyond || e == 128) worst_pi[j] = std::max(worst_pi[j], as_double(r.err[j]));
      if (e >= 129) worst_beyond = std::max(worst_beyond, static_cast<double>(ratio_of(r.worst[j])));
    }
    if (e < 115) continue;  // below 2^-12 each row says the same: print one summary row first
    if (e == 115) {
      double m[2] = {0, 0}, u[2] = {0, 0};
      float w[2] = {0, 0};
      for (int k = 0; k < 115; ++k)
        for (int j = 0; j < 2; ++j) {
          m[j] = std::max(m[j], as_double(h[k].err[j]));
          u[j] = std::max(u[j], as_double(h[k].unit[j]));
          w[j] = std::max(w[j], ratio_of(h[k].worst[j]));
        }
      std::printf("| [0, 2^-12) | 2^%.2f | 2^%.2f | %.3f | %.3f | 2^%.2f | 2^%.2f | |\n", lg(m[0]), lg(m[1]), w[0], w[1],
                  lg(u[0]), lg(u[1]));
    }
    std::printf("| [2^%d, 2^%d) | 2^%.2f | 2^%.2f | %.3f (%.9g) | %.3f (%.9g) | 2^%.2f | 2^%.2f | %llu |\n", e - 127,
                e - 126, lg(as_double(r.err[0])), lg(as_double(r.err[1])), ratio_of(r.worst[0]), x_of(r.worst[0]),
                ratio_of(r.worst[1]), x_of(r.worst[1]), lg(as_double(r.unit[0])), lg(as_double(r.unit[1])),
                r.sinf_differs);
  }
  std::printf("\n|x| <= 4 (the documented range and its binade): max error sin 2^%.2f, cos 2^%.2f\n",
              lg(worst_pi[0]), lg(worst_pi[1]));
  std::printf("documented bounds on [-pi, pi]: %s\n", within_pi ? "held" : "EXCEEDED");
  std::printf("the model's c0 + slope |x| beyond pi: %s (worst ratio for |x| >= 4: %.3f; past 2^22 the model itself says the result "
              "is meaningless)\n",
              within_model ? "held" : "EXCEEDED", worst_beyond);
  std::printf("the unit's own error |fast - f(2 pi frac(t))|: max sin 2^%.2f, cos 2^%.2f; the model's amplitudes "
              "2^%.2f, 2^%.2f (%s)\n",
              lg(unit_max[0]), lg(unit_max[1]), lg(amplitude[0]), lg(amplitude[1]),
              unit_max[0] <= amplitude[0] && unit_max[1] <= amplitude[1] ? "the hardware within them"
                                                                          : "the hardware's is larger");
  std::printf("__sinf/__cosf bitwise __sincosf's: %s\n", differs == 0 ? "yes" : "NO");
  return within_pi && within_model ? 0 : 1;
}
