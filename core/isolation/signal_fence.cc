// SPDX-License-Identifier: MIT
// The seccomp filter of signal_fence.h, in classic BPF.
#include "core/isolation/signal_fence.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace ropecheck {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kArch = 0;  // no filter: fence_signals says so
#endif

// Offsets into struct seccomp_data.
constexpr std::uint32_t kNr = offsetof(seccomp_data, nr);
constexpr std::uint32_t kArchOff = offsetof(seccomp_data, arch);
// The low 32 bits of argument i (a pid_t is an int; the kernel reads those).
constexpr std::uint32_t arg_low(int i) { return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * i); }

sock_filter stmt(std::uint16_t code, std::uint32_t k) { return BPF_STMT(code, k); }
sock_filter jump(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) { return BPF_JUMP(code, k, jt, jf); }

bool fence_failed(char* why, std::size_t size, const char* what, int err) {
  std::snprintf(why, size, "%s: %s", what, std::strerror(err));
  return false;
}

}  // namespace

bool fence_signals(pid_t self, char* why, std::size_t why_size) {
  if (kArch == 0) return fence_failed(why, why_size, "signal fence", ENOSYS);
  const auto pid = static_cast<std::uint32_t>(self);
  const auto group = static_cast<std::uint32_t>(-self);  // kill(-pgid): the call's group (pgid == pid)
  constexpr std::uint32_t kAllow = SECCOMP_RET_ALLOW;
  constexpr std::uint32_t kRefuse = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  std::vector<sock_filter> f;
  // Another architecture's calls (a 32-bit call on x86-64) read other
  // numbers: refused whole, as the libseccomp filter beside it does.
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArchOff));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0));
  f.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kNr));
#if defined(__x86_64__)
  // x32 numbers carry bit 30: refused.
  f.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, kRefuse));
#endif
  // kill and rt_sigqueueinfo: the pid is argument 0. Allowed: 0, the
  // call's process, the call's group.
  const std::size_t to_pid_check = f.size();
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 0, 0));  // patched below
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigqueueinfo, 0, 0));
  // tgkill and rt_tgsigqueueinfo: the thread group is argument 0.
  const std::size_t to_group_check = f.size();
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 0, 0));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_tgsigqueueinfo, 0, 0));
  // tkill (any thread by its id) and pidfd_send_signal (any process by a
  // descriptor): refused.
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_tkill, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, kRefuse));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_send_signal, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, kRefuse));
  f.push_back(stmt(BPF_RET | BPF_K, kAllow));  // every other call
  // The pid check.
  const std::size_t pid_check = f.size();
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(0)));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 3, 0));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, pid, 2, 0));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, group, 1, 0));
  f.push_back(stmt(BPF_RET | BPF_K, kRefuse));
  f.push_back(stmt(BPF_RET | BPF_K, kAllow));
  // The thread-group check: the call's process, or the caller's own group
  // (its leader's tid is the group's id: argument 1 == argument 0 there).
  const std::size_t group_check = f.size();
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(0)));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, pid, 4, 0));
  f.push_back(stmt(BPF_MISC | BPF_TAX, 0));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(1)));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_X, 0, 1, 0));
  f.push_back(stmt(BPF_RET | BPF_K, kRefuse));
  f.push_back(stmt(BPF_RET | BPF_K, kAllow));
  // The jumps into the checks (offsets count from the next instruction).
  for (std::size_t i : {to_pid_check, to_pid_check + 1})
    f[i].jt = static_cast<std::uint8_t>(pid_check - i - 1);
  for (std::size_t i : {to_group_check, to_group_check + 1})
    f[i].jt = static_cast<std::uint8_t>(group_check - i - 1);
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fence_failed(why, why_size, "prctl(PR_SET_NO_NEW_PRIVS)", errno);
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
    return fence_failed(why, why_size, "prctl(PR_SET_SECCOMP)", errno);
  return true;
}

}  // namespace ropecheck
