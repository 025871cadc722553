// SPDX-License-Identifier: MIT
// The subreaper and the seccomp filter that keep a call's descendants in its tree.
#include "core/isolation/descendant_hold.h"

#include <unistd.h>

#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/isolation/signal_fence.h"

namespace ropecheck {
namespace {

bool failed(char* why, std::size_t size, const char* what, int err) {
  std::snprintf(why, size, "%s: %s", what, std::strerror(err < 0 ? -err : err));
  return false;
}

}  // namespace

bool hold_descendants(char* why, std::size_t why_size) {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return failed(why, why_size, "prctl(PR_SET_CHILD_SUBREAPER)", errno);
  scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return failed(why, why_size, "seccomp_init", ENOMEM);
  // The comparisons as plain structs (libseccomp's SCMP_A0 macros are C99
  // compound literals, which C++ compilers flag under -Wpedantic).
  const scmp_arg_cmp subreaper[] = {
      scmp_arg_cmp{0, SCMP_CMP_EQ, static_cast<scmp_datum_t>(PR_SET_CHILD_SUBREAPER), 0}};
  int rc = ::seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1, subreaper);
  // clone(2)'s flags are its first argument on x86-64 and aarch64 alike
  // (the argument order that differs between architectures is the later
  // ones: the tid pointers and tls).
  const scmp_arg_cmp clone_parent[] = {scmp_arg_cmp{0, SCMP_CMP_MASKED_EQ, static_cast<scmp_datum_t>(CLONE_PARENT),
                                                    static_cast<scmp_datum_t>(CLONE_PARENT)}};
  if (rc == 0) rc = ::seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, clone_parent);
  if (rc == 0) rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  if (rc != 0) {
    ::seccomp_release(ctx);
    return failed(why, why_size, "seccomp_rule_add", rc);
  }
  rc = ::seccomp_load(ctx);  // sets no_new_privs first (libseccomp's default)
  ::seccomp_release(ctx);
  if (rc != 0) return failed(why, why_size, "seccomp_load", rc);
  // And no signal out of the call (core/isolation/signal_fence.h).
  return fence_signals(::getpid(), why, why_size);
}

}  // namespace ropecheck
