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
