// SPDX-License-Identifier: MIT
// Which kernels' calls are running now, on a page the verdict supervisor
// (cli/verdict_supervisor.h) reads from outside the run: when the run is
// stopped or killed by a signal (issue #49: a process a kernel left stopped
// every ancestor named ropecheck), the supervisor names the kernels whose
// calls were under way, the only ones whose code could have sent it. The
// page is shared between the supervisor and the run alone: the run's
// workers and children never inherit it (MADV_DONTFORK).
#ifndef ROPECHECK_CORE_ISOLATION_ACTIVE_CALLS_H_
#define ROPECHECK_CORE_ISOLATION_ACTIVE_CALLS_H_

#include <string>

namespace ropecheck {

// In the supervisor, before it forks the run: maps the board.
void open_active_calls_board();
// In the run, first thing: its workers and children will not inherit the board.
void keep_active_calls_board_from_children();
// The kernels whose calls run now, comma-separated ("" when none, or no board).
std::string active_calls_now();

// Marks a call of `kernel` as running while it lives (a no-op without a board).
class ActiveCall {
 public:
  explicit ActiveCall(const char* kernel);
  ~ActiveCall();
  ActiveCall(const ActiveCall&) = delete;
  ActiveCall& operator=(const ActiveCall&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_ACTIVE_CALLS_H_
