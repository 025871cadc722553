// SPDX-License-Identifier: MIT
// The floating-point control state a kernel may change and must give back, read, named and restored.
#include "core/isolation/fp_env.h"

#include <cfenv>
#include <cstdio>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace ropecheck {
namespace {

#if defined(__x86_64__)
// MXCSR bits 0-5 are sticky exception flags, not control (Intel SDM vol. 1,
// 10.2.3): a kernel may raise them; the caller's arithmetic does not change.
constexpr std::uint32_t kMxcsrStatus = 0x3f;
constexpr std::uint32_t kFtz = 1u << 15, kDaz = 1u << 6, kMxcsrRounding = 3u << 13, kMxcsrMasks = 0x3fu << 7;
constexpr std::uint16_t kX87Default = 0x037f;  // what FNINIT loads: all masked, 64-bit precision, to nearest
#endif

const char* rounding_name(int r) {
  switch (r) {
    case FE_TONEAREST: return "to nearest";
    case FE_UPWARD: return "upward";
    case FE_DOWNWARD: return "downward";
    case FE_TOWARDZERO: return "toward zero";
    default: return "unknown";
  }
}

void add(std::string* s, const std::string& what) {
  if (!s->empty()) *s += "; ";
  *s += what;
}

}  // namespace

FpControl fp_control_now() {
  FpControl c;
  c.rounding = std::fegetround();
#if defined(__x86_64__)
  c.mxcsr = _mm_getcsr() & ~kMxcsrStatus;
  std::uint16_t cw = 0;
  asm volatile("fnstcw %0" : "=m"(cw));
  c.x87_cw = cw;
#endif
  return c;
}

FpControl fp_control_default() {
  FpControl c;
  c.rounding = FE_TONEAREST;
#if defined(__x86_64__)
  c.mxcsr = 0x1f80;  // every exception masked, round to nearest, FTZ and DAZ off
  c.x87_cw = kX87Default;
#endif
  return c;
}

void set_fp_control(const FpControl& c) {
#if defined(__x86_64__)
  _mm_setcsr((_mm_getcsr() & kMxcsrStatus) | c.mxcsr);
  const std::uint16_t cw = c.x87_cw;
  asm volatile("fldcw %0" : : "m"(cw));
#endif
  std::fesetround(c.rounding);
}

std::string describe_fp_change(const FpControl& before, const FpControl& after) {
  std::string s;
  if (before.rounding != after.rounding)
    add(&s, std::string("rounding mode ") + rounding_name(after.rounding) + " (was " + rounding_name(before.rounding) + ")");
#if defined(__x86_64__)
  const std::uint32_t changed = before.mxcsr ^ after.mxcsr;
  if (changed & kFtz) add(&s, std::string("flush-to-zero ") + (after.mxcsr & kFtz ? "set" : "cleared") + " in MXCSR");
  if (changed & kDaz) add(&s, std::string("denormals-are-zero ") + (after.mxcsr & kDaz ? "set" : "cleared") + " in MXCSR");
  if (changed & kMxcsrMasks) add(&s, "floating-point exception masks changed in MXCSR (traps enabled or disabled)");
  if ((changed & kMxcsrRounding) && before.rounding == after.rounding) add(&s, "SSE rounding control changed in MXCSR");
  if (before.x87_cw != after.x87_cw) {
    char b[64];
    std::snprintf(b, sizeof b, "x87 control word 0x%04x (was 0x%04x)", after.x87_cw, before.x87_cw);
    add(&s, b);
  }
#endif
  return s;
}

std::string fp_left_failure(const std::string& change) {
  return "left the floating-point environment changed after it returned (" + change +
         "): a kernel must restore it, its caller's arithmetic runs in it";
}

std::string restore_fp_control(const FpControl& before) {
  const FpControl now = fp_control_now();
  if (now == before) return {};
  const std::string change = describe_fp_change(before, now);
  set_fp_control(before);
  return fp_left_failure(change);
}

}  // namespace ropecheck
