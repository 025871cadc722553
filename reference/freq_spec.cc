// SPDX-License-Identifier: MIT
// The rope configuration as C++ values: validation and conversion to and from the ABI struct.
#include "reference/freq_spec.h"

#include <cmath>
#include <sstream>

#include "ropecheck/dtype.h"

namespace ropecheck::ref {
namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// The bound's text is made only for the error: validate() runs for every
// reference built (each differential fuzzer execution), where formatting
// the bounds of a valid spec was a tenth of the reference's time.
template <class Bound>
void require(bool ok, const char* field, const Bound& bound, double got) {
  if (!ok) throw ConfigError(field, "must be " + std::string(bound()) + " (got " + num(got) + ")");
}

// v in [lo, hi] (NaN fails every comparison, so it is refused too); index
// >= 0 names an entry of the field's list.
void require_in(double v, const char* field, double lo, double hi, int index = -1) {
  if (!(v >= lo && v <= hi))
    throw ConfigError(index < 0 ? std::string(field) : std::string(field) + "[" + std::to_string(index) + "]",
                      "must be in [" + num(lo) + ", " + num(hi) + "] (got " + num(v) + ")");
}

void require_factor(double v, const char* field) { require_in(v, field, kMinFactor, kMaxFactor); }

void require_count_in(std::int64_t v, const char* field, std::int64_t lo, std::int64_t hi) {
  if (v < lo || v > hi)
    throw ConfigError(field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " +
                                 std::to_string(v) + ")");
}

void require_list(const std::vector<double>& v, const char* field, int pairs, double lo, double hi) {
  if (static_cast<int>(v.size()) != pairs)
    throw ConfigError(field, "must have rotary_dim/2 = " + std::to_string(pairs) +
                                 " entries (got " + std::to_string(v.size()) + ")");
  for (std::size_t i = 0; i < v.size(); ++i) require_in(v[i], field, lo, hi, static_cast<int>(i));
}

}  // namespace

void validate_shape(const HeadShape& s) {
  if (s.head_dim < 1 || s.head_dim > kMaxHeadDim)
    throw ConfigError("head_dim", "must be in [1, " + std::to_string(kMaxHeadDim) + "] (got " +
                                      std::to_string(s.head_dim) + ")");
  if (s.rotary_dim < 2 || s.rotary_dim % 2 != 0)
    throw ConfigError("rotary_dim",
                      "must be even and >= 2 (got " + std::to_string(s.rotary_dim) + ")");
  if (s.rotary_dim > s.head_dim)
    throw ConfigError("rotary_dim", "must be <= head_dim = " + std::to_string(s.head_dim) +
                                        " (got " + std::to_string(s.rotary_dim) + ")");
}

void validate(const FreqSpec& f, const HeadShape& shape) {
  validate_shape(shape);
  const int d = shape.rotary_dim;
  const int pairs = d / 2;
  if (static_cast<unsigned>(f.scheme) >= ROPECHECK_SCHEME_COUNT)
    throw ConfigError("scheme", "must be one of the " + std::to_string(ROPECHECK_SCHEME_COUNT) +
                                    " known schemes (got " +
                                    std::to_string(static_cast<int>(f.scheme)) + ")");
  if (f.scheme != ROPECHECK_SCHEME_EXPLICIT)
    require(std::isfinite(f.base) && f.base > 1.0 && f.base <= kMaxBase, "base",
            [] { return "finite, > 1 and <= " + num(kMaxBase); }, f.base);
  if (f.attention_factor) require_in(*f.attention_factor, "attention_factor", kMinAttentionFactor, kMaxAttentionFactor);

  const auto need_L = [&](std::int64_t lo = 1) {
    require_count_in(f.original_max_position, "original_max_position", lo, kMaxConfigPosition);
  };
  const auto need_seq_len = [&] { require_count_in(f.seq_len, "seq_len", 0, kMaxConfigPosition); };
  // Context-extension schemes scale by s >= 1 (HF's _validate_*_parameters
  // warn below 1; dynamic NTK's formula assumes it).
  const auto extension_factor = [&] {
    require_factor(f.factor, "factor");
    require(f.factor >= 1.0, "factor", [&] { return ">= 1 for " + std::string(scheme_name(f.scheme)); }, f.factor);
  };
  switch (f.scheme) {
    case ROPECHECK_SCHEME_DEFAULT:
      break;
    case ROPECHECK_SCHEME_LINEAR:
      require_factor(f.factor, "factor");
      break;
    case ROPECHECK_SCHEME_NTK_AWARE:
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      // The exponent d/(d-2) needs d > 2.
      if (d < 4)
        throw ConfigError("rotary_dim", "must be >= 4 for NTK scaling, whose exponent is "
                                        "d/(d-2) (got " + std::to_string(d) + ")");
      if (f.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK) {
        extension_factor();
        need_L();
        need_seq_len();
      } else {
        require_factor(f.factor, "factor");
      }
      break;
    case ROPECHECK_SCHEME_YARN:
      extension_factor();
      need_L();
      require_in(f.beta_slow, "beta_slow", 0x1p-20, kMaxBeta);
      require(std::isfinite(f.beta_fast) && f.beta_fast > f.beta_slow && f.beta_fast <= kMaxBeta, "beta_fast",
              [&] { return "> beta_slow = " + num(f.beta_slow) + " and <= " + num(kMaxBeta); }, f.beta_fast);
      require_in(f.mscale, "mscale", 0, kMaxMscale);
      require_in(f.mscale_all_dim, "mscale_all_dim", 0, kMaxMscale);
      break;
    case ROPECHECK_SCHEME_LLAMA3:
      extension_factor();
      need_L();
      require_factor(f.low_freq_factor, "low_freq_factor");
      // Equal factors (Llama 4 Scout: 1 and 1) leave no blend band: every
      // pair is unchanged or divided by the factor (frequencies.h).
      require(f.high_freq_factor >= f.low_freq_factor && f.high_freq_factor <= kMaxFactor, "high_freq_factor",
              [&] { return ">= low_freq_factor = " + num(f.low_freq_factor) + " and <= " + num(kMaxFactor); },
              f.high_freq_factor);
      break;
    case ROPECHECK_SCHEME_LONGROPE:
      extension_factor();
      need_L(2);  // its derived attention factor divides by ln L
      need_seq_len();
      require_list(f.short_factor, "short_factor", pairs, kMinFactor, kMaxFactor);
      require_list(f.long_factor, "long_factor", pairs, kMinFactor, kMaxFactor);
      break;
    case ROPECHECK_SCHEME_EXPLICIT:
      require_list(f.inv_freq, "inv_freq", pairs, 0.0, kMaxInvFreq);
      break;
    default:
      break;
  }
}

ropecheck_freq_spec_t FreqSpec::to_abi() const {
  ropecheck_freq_spec_t s{};
  s.scheme = scheme;
  s.base = base;
  s.factor = factor;
  s.original_max_position = original_max_position;
  s.seq_len = seq_len;
  s.beta_fast = beta_fast;
  s.beta_slow = beta_slow;
  s.truncate = truncate ? 1 : 0;
  s.has_attention_factor = attention_factor ? 1 : 0;
  s.attention_factor = attention_factor.value_or(0.0);
  s.mscale = mscale;
  s.mscale_all_dim = mscale_all_dim;
  s.low_freq_factor = low_freq_factor;
  s.high_freq_factor = high_freq_factor;
  // Only the arrays the scheme reads, which validate() sized to rotary_dim/2:
  // a kernel (or the isolation copying its inputs) may read that many.
  const bool longrope = scheme == ROPECHECK_SCHEME_LONGROPE, explicit_freqs = scheme == ROPECHECK_SCHEME_EXPLICIT;
  s.short_factor = longrope && !short_factor.empty() ? short_factor.data() : nullptr;
  s.long_factor = longrope && !long_factor.empty() ? long_factor.data() : nullptr;
  s.inv_freq = explicit_freqs && !inv_freq.empty() ? inv_freq.data() : nullptr;
  return s;
}

FreqSpec FreqSpec::from_abi(const ropecheck_freq_spec_t& s, int rotary_dim) {
  FreqSpec f;
  f.scheme = static_cast<ropecheck_scheme_t>(s.scheme);
  f.base = s.base;
  f.factor = s.factor;
  f.original_max_position = s.original_max_position;
  f.seq_len = s.seq_len;
  f.beta_fast = s.beta_fast;
  f.beta_slow = s.beta_slow;
  f.truncate = s.truncate != 0;
  if (s.has_attention_factor) f.attention_factor = s.attention_factor;
  f.mscale = s.mscale;
  f.mscale_all_dim = s.mscale_all_dim;
  f.low_freq_factor = s.low_freq_factor;
  f.high_freq_factor = s.high_freq_factor;
  const std::size_t n = rotary_dim > 0 ? static_cast<std::size_t>(rotary_dim / 2) : 0;
  auto copy = [n](const double* p) {
    return p ? std::vector<double>(p, p + n) : std::vector<double>{};
  };
  if (f.scheme == ROPECHECK_SCHEME_LONGROPE) {
    f.short_factor = copy(s.short_factor);
    f.long_factor = copy(s.long_factor);
  }
  if (f.scheme == ROPECHECK_SCHEME_EXPLICIT) f.inv_freq = copy(s.inv_freq);
  return f;
}

std::string FreqSpec::describe() const {
  std::ostringstream os;
  os.precision(10);
  os << scheme_name(scheme) << "(";
  if (scheme != ROPECHECK_SCHEME_EXPLICIT) os << "base=" << base;
  switch (scheme) {
    case ROPECHECK_SCHEME_LINEAR:
    case ROPECHECK_SCHEME_NTK_AWARE:
      os << ",factor=" << factor;
      break;
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      os << ",factor=" << factor << ",L=" << original_max_position << ",seq_len=" << seq_len;
      break;
    case ROPECHECK_SCHEME_YARN:
      os << ",factor=" << factor << ",L=" << original_max_position << ",beta_fast=" << beta_fast
         << ",beta_slow=" << beta_slow << ",truncate=" << truncate;
      if (mscale > 0.0 || mscale_all_dim > 0.0)
        os << ",mscale=" << mscale << ",mscale_all_dim=" << mscale_all_dim;
      break;
    case ROPECHECK_SCHEME_LLAMA3:
      os << ",factor=" << factor << ",L=" << original_max_position << ",lf=" << low_freq_factor
         << ",hf=" << high_freq_factor;
      break;
    case ROPECHECK_SCHEME_LONGROPE:
      os << ",factor=" << factor << ",L=" << original_max_position << ",seq_len=" << seq_len;
      break;
    case ROPECHECK_SCHEME_EXPLICIT:
      os << "pairs=" << inv_freq.size();
      break;
    default:
      break;
  }
  if (attention_factor) os << ",attention_factor=" << *attention_factor;
  os << ")";
  return os.str();
}

}  // namespace ropecheck::ref
