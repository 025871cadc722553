// SPDX-License-Identifier: MIT
// A KV cache's codes as ropecheck draws them (core/cases/kv_write_case.h
// draws the write they belong to): the cache dtype's boundary values a
// write's v is made to hit, and the bytes a cache arrives holding.
#ifndef ROPECHECK_CORE_CASES_KV_CACHE_CODES_H_
#define ROPECHECK_CORE_CASES_KV_CACHE_CODES_H_

#include <cstddef>

#include "core/cases/rng.h"
#include "core/error_model/cache_write_budget.h"

namespace ropecheck {

// One of cache dtype d's boundaries, as the value the cache rounds (after
// the scale), with a random sign: a tie between two adjacent finite codes
// (ties-to-even decides it), the largest finite value, the tie just past it
// (overflow under round to nearest), twice it (saturation or overflow),
// the smallest subnormal, the tie between it and zero, the largest
// subnormal and the tie between it and the smallest normal. 0 for fp32
// (an fp32 value is its own code).
double kv_cache_edge(Choices& rng, KvDtype d);

// The bytes a cache arrives holding, drawn per call from the states a
// production cache is met in: random bytes, zeros (a fresh allocation), a
// NaN code in every element, and random finite codes (what earlier writes
// left), so a kernel whose writes depend on what the cache held fails.
enum class CacheInitial { kRandomBytes, kZeros, kNans, kFiniteCodes };
inline constexpr int kCacheInitialKinds = 4;
void fill_cache_initial(unsigned char* p, std::size_t bytes, KvDtype d, CacheInitial kind);
CacheInitial draw_cache_initial();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_KV_CACHE_CODES_H_
