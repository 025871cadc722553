// SPDX-License-Identifier: MIT
// An isolated call's status and the calling thread's isolation finding.
#include "core/isolation/call_verdict.h"

#include <sys/resource.h>

#include <cstdio>
#include <optional>
#include <string>

namespace ropecheck {
namespace {

// The calling thread's last finding (take_isolation_finding).
thread_local std::optional<IsolationFinding> t_finding;

}  // namespace

ropecheck_status_t call_verdict(const ChildRun& run, const GuardedCopies* b, IsolatedCall* call, char* err,
                                std::size_t n) {
  std::string failure = run.failure;
  if (failure.empty() && b) failure = b->damage();
  if (!failure.empty()) {
    if (call) call->retire();
    t_finding = IsolationFinding{failure};
    if (err && n) std::snprintf(err, n, "%s", t_finding->text().c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  t_finding.reset();
  if (err && n) std::snprintf(err, n, "%s", run.message.c_str());
  return static_cast<ropecheck_status_t>(run.status);
}

ropecheck_status_t refuse_in_child(const Isolated& w, const std::function<int(char*, std::size_t)>& body, char* err,
                                   std::size_t n) {
  ChildOptions o;
  o.timeout_seconds = w.options.timeout_seconds;
  o.memory_limit_gib = w.options.memory_limit_gib;
  return call_verdict(run_in_child(o, body), nullptr, nullptr, err, n);
}

ropecheck_status_t unmappable(char* err, std::size_t n) {
  rlimit r{};
  ::getrlimit(RLIMIT_AS, &r);
  const std::string limit = r.rlim_cur == RLIM_INFINITY
                                ? std::string("no address-space limit is set: the system refused the memory")
                                : "the address-space limit ropecheck was started with (ulimit -v: " +
                                      std::to_string(r.rlim_cur >> 20) + " MiB) is below what they take";
  t_finding = IsolationFinding{"ropecheck could not map the call's buffers (" + limit + "); the call was not made"};
  if (err && n) std::snprintf(err, n, "%s", t_finding->text().c_str());
  return ROPECHECK_INTERNAL_ERROR;
}

std::optional<IsolationFinding> take_isolation_finding() {
  std::optional<IsolationFinding> f;
  f.swap(t_finding);
  return f;
}

}  // namespace ropecheck
