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

void require(bool ok, const char* field, const std::string& bound, double got) {
  if (!ok) throw ConfigError(field, "must be " + bound + " (got " + num(got) + ")");
}

void require_positive_finite(double v, const char* field) {
  require(std::isfinite(v) && v > 0.0, field, "finite and > 0", v);
}

void require_list(const std::vector<double>& v, const char* field, int pairs, bool allow_zero) {
  if (static_cast<int>(v.size()) != pairs)
    throw ConfigError(field, "must have rotary_dim/2 = " + std::to_string(pairs) +
                                 " entries (got " + std::to_string(v.size()) + ")");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool ok = std::isfinite(v[i]) && (allow_zero ? v[i] >= 0.0 : v[i] > 0.0);
    if (!ok)
      throw ConfigError(std::string(field) + "[" + std::to_string(i) + "]",
                        std::string("must be finite and ") + (allow_zero ? ">= 0" : "> 0") +
                            " (got " + num(v[i]) + ")");
  }
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
    require(std::isfinite(f.base) && f.base > 1.0, "base", "finite and > 1", f.base);
  if (f.attention_factor) require_positive_finite(*f.attention_factor, "attention_factor");

  const auto need_L = [&] {
    if (f.original_max_position < 1)
      throw ConfigError("original_max_position",
                        "must be >= 1 (got " + std::to_string(f.original_max_position) + ")");
  };
  switch (f.scheme) {
    case ROPECHECK_SCHEME_DEFAULT:
      break;
    case ROPECHECK_SCHEME_LINEAR:
      require_positive_finite(f.factor, "factor");
      break;
    case ROPECHECK_SCHEME_NTK_AWARE:
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      require_positive_finite(f.factor, "factor");
      // The exponent d/(d-2) needs d > 2.
      if (d < 4)
        throw ConfigError("rotary_dim", "must be >= 4 for NTK scaling, whose exponent is "
                                        "d/(d-2) (got " + std::to_string(d) + ")");
      if (f.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK) {
        require(f.factor >= 1.0, "factor", ">= 1 for dynamic NTK", f.factor);
        need_L();
        if (f.seq_len < 0)
          throw ConfigError("seq_len", "must be >= 0 (got " + std::to_string(f.seq_len) + ")");
      }
      break;
    case ROPECHECK_SCHEME_YARN:
      require_positive_finite(f.factor, "factor");
      need_L();
      require_positive_finite(f.beta_slow, "beta_slow");
      require(std::isfinite(f.beta_fast) && f.beta_fast > f.beta_slow, "beta_fast",
              "finite and > beta_slow = " + num(f.beta_slow), f.beta_fast);
      require(std::isfinite(f.mscale) && f.mscale >= 0.0, "mscale", "finite and >= 0", f.mscale);
      require(std::isfinite(f.mscale_all_dim) && f.mscale_all_dim >= 0.0, "mscale_all_dim",
              "finite and >= 0", f.mscale_all_dim);
      break;
    case ROPECHECK_SCHEME_LLAMA3:
      require_positive_finite(f.factor, "factor");
      need_L();
      require_positive_finite(f.low_freq_factor, "low_freq_factor");
      require(std::isfinite(f.high_freq_factor) && f.high_freq_factor > f.low_freq_factor,
              "high_freq_factor", "finite and > low_freq_factor = " + num(f.low_freq_factor),
              f.high_freq_factor);
      break;
    case ROPECHECK_SCHEME_LONGROPE:
      require_positive_finite(f.factor, "factor");
      need_L();
      if (f.seq_len < 0)
        throw ConfigError("seq_len", "must be >= 0 (got " + std::to_string(f.seq_len) + ")");
      require_list(f.short_factor, "short_factor", pairs, false);
      require_list(f.long_factor, "long_factor", pairs, false);
      break;
    case ROPECHECK_SCHEME_EXPLICIT:
      require_list(f.inv_freq, "inv_freq", pairs, true);
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
  s.short_factor = short_factor.empty() ? nullptr : short_factor.data();
  s.long_factor = long_factor.empty() ? nullptr : long_factor.data();
  s.inv_freq = inv_freq.empty() ? nullptr : inv_freq.data();
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
