// SPDX-License-Identifier: MIT
// The parts every call has (call_part.h): q and k (their buffers, strides
// and the poison the outputs arrive holding), the position ids (and a
// multi-axis call's arrays), the frequency spec (and its per-pair arrays).
#ifndef ROPECHECK_CORE_KERNEL_CALL_PARTS_BASE_PARTS_H_
#define ROPECHECK_CORE_KERNEL_CALL_PARTS_BASE_PARTS_H_

#include <cstdint>
#include <vector>

#include "core/kernel/call_parts/call_part.h"
#include "reference/freq_spec.h"

namespace ropecheck {

// q and k: a private copy of the inputs for a kernel in this process, which
// could write into them (in place it works on r.out; an isolated kernel only
// ever sees copies isolation proves unchanged, so it is handed the case's
// own buffers); out of place, the outputs poisoned.
class QkPart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;

 private:
  QkBuffers inputs_;
  bool private_inputs_ = false;
};

// The ids, never narrowed into an int32 buffer (outside_capabilities
// declines such a case first), and a multi-axis call's sections or table.
class PositionsPart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;

 private:
  CallPositions ids_;
  std::vector<std::int32_t> pos32_;
  std::vector<std::int64_t> pos64_;
  std::vector<std::int32_t> sections_, table_;
};

// The spec as the ABI hands it, its arrays (LongRoPE's factors, explicit
// frequencies) owned by a copy of the case's.
class FreqPart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;
  const ropecheck_freq_spec_t& abi() const { return abi_; }

 private:
  ref::FreqSpec freq_;
  ropecheck_freq_spec_t abi_{}, before_{};
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_CALL_PARTS_BASE_PARTS_H_
