// SPDX-License-Identifier: MIT
// The rope configuration as C++ values, its validation, and its conversion
// to and from the C ABI struct. One place decides what a valid config is;
// the reference, the CLI, the properties and the parsers all call it.
#ifndef ROPECHECK_REFERENCE_FREQ_SPEC_H_
#define ROPECHECK_REFERENCE_FREQ_SPEC_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::ref {

inline constexpr int kMaxHeadDim = 4096;

// Bounds on every number of a config. Each lies far beyond any published
// model (rope_theta <= 1e8 in the configs of golden/suites/model_configs.cc, factors
// <= 64, YaRN betas 1 and 32) and keeps every quantity the reference and the
// error model form finite: with |p| <= 2^40, a frequency <= 1e4 gives angles
// <= 1.1e16, and 1e12 as base keeps ln(base) and base^(2i/d) well inside
// double's range. Outside them a correct kernel met a budget of NaN.
inline constexpr double kMaxBase = 1e12;
inline constexpr double kMinFactor = 1e-3, kMaxFactor = 1e6;  // factor, per-pair LongRoPE factors, freq factors
inline constexpr double kMaxInvFreq = 1e4;                    // explicit frequencies, rad per position
inline constexpr double kMinAttentionFactor = 1e-3, kMaxAttentionFactor = 1e3;
inline constexpr double kMaxMscale = 1e3;                     // YaRN mscale, mscale_all_dim
inline constexpr double kMaxBeta = 1e4;                       // YaRN beta_fast, beta_slow
inline constexpr std::int64_t kMaxConfigPosition = std::int64_t{1} << 40;  // original_max_position, seq_len

// Raised for an invalid config; field() names the offending field and the
// message states the bound it broke.
class ConfigError : public std::invalid_argument {
 public:
  ConfigError(std::string field, std::string message)
      : std::invalid_argument(field + ": " + message), field_(std::move(field)), message_(std::move(message)) {}
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }  // without the field

 private:
  std::string field_, message_;
};

struct FreqSpec {
  ropecheck_scheme_t scheme = ROPECHECK_SCHEME_DEFAULT;
  double base = 10000.0;
  double factor = 1.0;
  std::int64_t original_max_position = 0;
  std::int64_t seq_len = 0;
  double beta_fast = 32.0;
  double beta_slow = 1.0;
  bool truncate = true;
  std::optional<double> attention_factor;
  double mscale = 0.0;          // 0: absent (HF treats a falsy value as absent)
  double mscale_all_dim = 0.0;  // 0: absent
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  std::vector<double> short_factor;
  std::vector<double> long_factor;
  std::vector<double> inv_freq;

  // Borrowing view for a kernel call; valid while *this lives.
  ropecheck_freq_spec_t to_abi() const;
  // Copies the arrays (rotary_dim/2 entries each, where the scheme has them).
  static FreqSpec from_abi(const ropecheck_freq_spec_t& s, int rotary_dim);
  // Human-readable one-liner, e.g. "yarn(base=1e4,factor=10,L=2048,truncate=1)".
  std::string describe() const;
};

// Shape of one head.
struct HeadShape {
  int head_dim = 128;
  int rotary_dim = 128;
};

// Throws ConfigError naming the field and bound for any invalid value.
void validate(const FreqSpec& spec, const HeadShape& shape);
void validate_shape(const HeadShape& shape);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_FREQ_SPEC_H_
