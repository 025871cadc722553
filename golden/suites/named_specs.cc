// SPDX-License-Identifier: MIT
// The frequency specs golden rows name (golden/suites/named_specs.h).
#include "golden/suites/named_specs.h"

namespace ropecheck::golden {

// YaRN as gpt-oss configures it: fractional correction bounds.
ref::FreqSpec gpt_oss_yarn() {
  ref::FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.base = 150000;
  f.factor = 32;
  f.original_max_position = 4096;
  f.truncate = false;
  return f;
}

// YaRN (DeepSeek's form) with its attention factor from mscale / mscale_all_dim.
ref::FreqSpec mscale_yarn() {
  ref::FreqSpec f = gpt_oss_yarn();
  f.base = 10000;
  f.factor = 40;
  f.truncate = true;
  f.mscale = 1.0;
  f.mscale_all_dim = 0.707;
  return f;
}

// Llama 3.1 bands with a pair on a band edge.
ref::FreqSpec llama31_band_edge() {
  ref::FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_LLAMA3;
  f.base = 500000;
  f.factor = 8;
  f.low_freq_factor = 1;
  f.high_freq_factor = 4;
  // d = 16: wavelength of pair 5 is 2 pi 500000^(10/16) = 22,910.58; L = 4 x
  // that puts it on the high-frequency band edge L/hf.
  f.original_max_position = 91642;
  return f;
}

}  // namespace ropecheck::golden
