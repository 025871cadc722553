// SPDX-License-Identifier: MIT
// The rows of misbehaviour_list.h as steps around the control kernel's call
// (misbehaving_kernel.cc runs them): each row is a function or two in the
// file of its threat class, and one line in that file's table. A new
// misbehaviour is a row in misbehaviour_list.h, its step(s) and that line.
#ifndef ROPECHECK_MUTANTS_MISBEHAVIOUR_ROWS_H_
#define ROPECHECK_MUTANTS_MISBEHAVIOUR_ROWS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "mutants/misbehaviour_list.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

// One call of a misbehaving kernel, as its steps see it.
struct MisbehavingCall {
  const ropecheck_apply_params_t* p;
  const ropecheck_impl_t& clean;  // the kernel whose correct call the row wraps
  char* err;
  std::size_t n;
  bool big;                     // more than 3 tokens: the rows that act on big cases only
  bool out_of_place;            // q_in != q_out
  std::uint64_t input_key = 0;  // hash_cache: its inputs' key, taken before the work
  std::vector<unsigned char> before;  // unwritten: q_out as it arrived
};

struct MisbehaviourRow {
  // Before the work: a status to return at once (the clean call is not
  // made), or nullopt to go on to it.
  std::optional<ropecheck_status_t> (*before)(MisbehavingCall&) = nullptr;
  // Right after the clean call, whatever its status.
  void (*after_any)(MisbehavingCall&) = nullptr;
  // After a clean call that returned OK (its results correct).
  void (*after)(MisbehavingCall&) = nullptr;
};

inline constexpr std::size_t kMisbehaviourCount = std::size(kMisbehaviours);
using MisbehaviourRows = std::array<MisbehaviourRow, kMisbehaviourCount>;
inline MisbehaviourRow& row_of(MisbehaviourRows& rows, Misbehaviour m) { return rows[static_cast<std::size_t>(m)]; }

// Each threat class's rows, set in the table (a row no file sets is the
// control kernel as it is: its table alone misbehaves, e.g. wrong_abi).
void add_process_rows(MisbehaviourRows& rows);  // misbehaviour_process_rows.cc
void add_memory_rows(MisbehaviourRows& rows);   // misbehaviour_memory_rows.cc
void add_escape_rows(MisbehaviourRows& rows);   // misbehaviour_escape_rows.cc
void add_state_rows(MisbehaviourRows& rows);    // misbehaviour_state_rows.cc
void add_timing_rows(MisbehaviourRows& rows);   // misbehaviour_timing_rows.cc

// Every row's steps, indexed by Misbehaviour.
const MisbehaviourRows& misbehaviour_rows();

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_MISBEHAVIOUR_ROWS_H_
