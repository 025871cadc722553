// SPDX-License-Identifier: MIT
// The differential fuzzer's tally of what it judged (cli/fuzz_tally.h is
// the file it is written as): per kernel call judged, its family (scheme),
// dtype, pair layout, memory layout, fused form, position range and
// multi-axis form, counted in fixed slots (an execution costs a few
// increments, not a map lookup), and per kernel the calls judged and the
// cases skipped as outside its declaration. Written every second or so, on
// a finding and at exit to $ROPECHECK_FUZZ_TALLY/tally-<pid>.txt when that
// directory is set (`ropecheck fuzz` sets it and prints the sum).
#ifndef ROPECHECK_FUZZ_DIFFERENTIAL_TALLY_H_
#define ROPECHECK_FUZZ_DIFFERENTIAL_TALLY_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/fuzz_tally.h"
#include "core/cases/cases.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::fuzz {

// The fused form of one judged call.
enum class FusedForm {
  kNone,            // the rotation alone
  kKvWrite,         // ABI 1.4: K and V caches
  kKvWriteMlaJoint, // ABI 1.5: MLA [kv_c | k_pe] in one cache
  kKvWriteMlaSplit, // ABI 1.5: MLA kv_c and k_pe in caches of their own
  kQkNormW,         // ABI 1.5: qk-norm, weight w
  kQkNormOnePlusW,  // ABI 1.5: qk-norm, weight 1 + w
};
inline constexpr int kFusedFormCount = 6;

// What one judged call was, beyond its case.
struct CallForm {
  FusedForm fused = FusedForm::kNone;
  int kv_cache_dtype = -1;     // KvDtype of a KV-cache write, -1 without one
  int caller_cache_dtype = -1; // ropecheck_dtype_t of the caller's cos/sin cache (ABI 1.6), -1 without one
  bool own_cache = false;      // the kernel's own cos/sin cache (build_cache)
  bool raw_bits = false;       // some input element holds raw bits
};

class Tally {
 public:
  explicit Tally(const std::vector<const ropecheck_impl_t*>& impls);
  void judged(int kernel, const Case& c, const CallForm& f);
  // A case outside the kernel's declaration even after the fit: counted by
  // the reason's first words (outside_capabilities), so a run shows what
  // it could not judge.
  void skipped(int kernel, const std::string& why);
  // One execution done; writes the file when a second has passed.
  void executed();
  // Writes the file now (a finding, the end of the run).
  void write() const;

 private:
  cli::FuzzTally as_tally() const;

  std::vector<std::string> kernels_;
  std::vector<std::int64_t> judged_, skipped_;
  std::vector<std::pair<std::string, std::int64_t>> skipped_for_;
  std::array<std::int64_t, ROPECHECK_SCHEME_COUNT> schemes_{};
  std::array<std::int64_t, 3> dtypes_{};
  std::array<std::int64_t, 2> layouts_{};
  std::array<std::int64_t, kMemoryLayoutCount> memory_{};
  std::array<std::int64_t, kFusedFormCount> fused_{};
  std::array<std::int64_t, 5> kv_dtypes_{};
  std::array<std::int64_t, 3> caller_cache_{};
  std::int64_t own_cache_ = 0;
  std::array<std::int64_t, 4> position_bins_{};
  std::int64_t negative_ = 0, int32_ids_ = 0, int64_ids_ = 0;
  std::array<std::int64_t, 7> axes_{};
  std::array<std::int64_t, 2> direction_{}, placement_{};
  std::int64_t partial_ = 0, batched_ = 0, raw_ = 0;
  std::int64_t executions_ = 0;
  std::chrono::steady_clock::time_point start_, last_write_;
  std::string path_;  // empty: no tally file
};

}  // namespace ropecheck::fuzz

#endif  // ROPECHECK_FUZZ_DIFFERENTIAL_TALLY_H_
