// SPDX-License-Identifier: MIT
// Per-target loop over the heads of one tensor at one token (included by
// rope_simd-inl.h, compiled once per Highway target). A token's cos/sin are
// the same for all its heads, so when they fit in registers (Llama's 64
// pairs: 8 to 16 vectors with AVX-512's 32 registers) they are loaded once
// per token and every head then costs only its own loads and stores: on
// AMD Zen 4 the rotation loops are bound by their 512-bit loads and stores,
// and reloading cos/sin per head made up a third to half of the loads.
// Longer rows (or targets with 16 registers) reload them per block.
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_HEADS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_HEADS_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_HEADS_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_HEADS_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "impls/simd/simd_rotate-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Heads of one tensor at one token: byte pointers to the first head, the
// byte stride between heads, the pairs to rotate and the pass-through bytes
// after them (copied when out of place).
struct HeadRun {
  const unsigned char* in;
  unsigned char* out;
  std::int64_t stride;
  int heads;
  int pairs;
  std::size_t rotary_bytes, pass_bytes;
};

// cos/sin vectors kept in registers: half the register file, 16 of AVX-512's
// and Arm's 32, 8 of SSE's and AVX2's 16. None for scalable vectors (SVE,
// RVV), which cannot form arrays.
inline constexpr int kCoefRegisters = HWY_HAVE_SCALABLE ? 0 : (HWY_MAX_BYTES >= 64 || HWY_ARCH_ARM) ? 16 : 8;

// Software prefetch of the rows about kPrefetchBytes ahead: one prefetch
// per cache line of the rotary channels of head h + ahead (past the last
// head of this call: the next token's rows, or memory we never touch; a
// prefetch never faults). With one thread on AMD Zen 4 the fp32 prefill rows
// (84 MB, from DRAM) went from 0.8x to about 1.0x of the in-place pass with
// it (bench/RESULTS.md); the hardware prefetchers alone keep too few lines in
// flight for a loop that also computes.
inline constexpr std::size_t kPrefetchBytes = 4096;
HWY_INLINE int PrefetchHeads(const HeadRun& r) {
  return static_cast<int>(std::clamp<std::size_t>(kPrefetchBytes / std::max<std::size_t>(r.rotary_bytes, 1), 1, 16));
}
HWY_INLINE void PrefetchAhead(const HeadRun& r, int h, int ahead) {
  // An address, never dereferenced: integer arithmetic, since a pointer past
  // the end of the caller's buffer may not even be formed.
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(r.in) + static_cast<std::uintptr_t>((h + ahead) * r.stride);
  for (std::size_t b = 0; b < r.rotary_bytes; b += 64) hwy::Prefetch(reinterpret_cast<const unsigned char*>(p + b));
}

template <class Kind>
HWY_INLINE void FinishHead(const HeadRun& r, const typename Kind::Elem* src, typename Kind::Elem* dst, int blocks,
                           const CoefRows& k) {
  Kind::Tail(src, dst, r.pairs, blocks, k);
  if (r.pass_bytes && static_cast<const void*>(src) != static_cast<void*>(dst))
    std::memcpy(reinterpret_cast<unsigned char*>(dst) + r.rotary_bytes,
                reinterpret_cast<const unsigned char*>(src) + r.rotary_bytes, r.pass_bytes);
}

template <class Kind>
HWY_INLINE void HeadsCoefsFromMemory(const HeadRun& r, const CoefRows& k) {
  const int blocks = Kind::Blocks(r.pairs);
  const int ahead = PrefetchHeads(r);
  for (int h = 0; h < r.heads; ++h) {
    const auto* src = reinterpret_cast<const typename Kind::Elem*>(r.in + h * r.stride);
    auto* dst = reinterpret_cast<typename Kind::Elem*>(r.out + h * r.stride);
    PrefetchAhead(r, h, ahead);
    for (int b = 0; b < blocks; ++b) {
      VF coef[Kind::kCoefs];
      Kind::LoadCoefs(k, b, coef);
      Kind::Block(src, dst, r.pairs, b, coef);
    }
    FinishHead<Kind>(r, src, dst, blocks, k);
  }
}

template <class Kind, int K>
HWY_INLINE void HeadsCoefsInRegisters(const HeadRun& r, const CoefRows& k) {
#if HWY_HAVE_SCALABLE
  HeadsCoefsFromMemory<Kind>(r, k);
#else
  VF coef[K > 0 ? K * Kind::kCoefs : 1];
  for (int b = 0; b < K; ++b) Kind::LoadCoefs(k, b, coef + b * Kind::kCoefs);
  const int ahead = PrefetchHeads(r);
  for (int h = 0; h < r.heads; ++h) {
    const auto* src = reinterpret_cast<const typename Kind::Elem*>(r.in + h * r.stride);
    auto* dst = reinterpret_cast<typename Kind::Elem*>(r.out + h * r.stride);
    PrefetchAhead(r, h, ahead);
#pragma GCC unroll 16
    for (int b = 0; b < K; ++b) Kind::Block(src, dst, r.pairs, b, coef + b * Kind::kCoefs);
    FinishHead<Kind>(r, src, dst, K, k);
  }
#endif
}

template <class Kind>
HWY_INLINE void RotateHeadsOfKind(const HeadRun& r, const CoefRows& k) {
  const int blocks = Kind::Blocks(r.pairs);
  if (blocks * Kind::kCoefs <= kCoefRegisters) {  // never for scalable vectors
    switch (blocks) {
      case 0: return HeadsCoefsInRegisters<Kind, 0>(r, k);
      case 1: return HeadsCoefsInRegisters<Kind, 1>(r, k);
      case 2: return HeadsCoefsInRegisters<Kind, 2>(r, k);
      case 3: return HeadsCoefsInRegisters<Kind, 3>(r, k);
      case 4: return HeadsCoefsInRegisters<Kind, 4>(r, k);
      case 5: return HeadsCoefsInRegisters<Kind, 5>(r, k);
      case 6: return HeadsCoefsInRegisters<Kind, 6>(r, k);
      case 7: return HeadsCoefsInRegisters<Kind, 7>(r, k);
      case 8: return HeadsCoefsInRegisters<Kind, 8>(r, k);
      default: break;
    }
  }
  HeadsCoefsFromMemory<Kind>(r, k);
}

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
