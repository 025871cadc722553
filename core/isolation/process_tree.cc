// SPDX-License-Identifier: MIT
// What a process left behind, read from /proc, and the sweep that kills it.
#include "core/isolation/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

namespace ropecheck {
namespace {

// The state letter and parent of /proc/<dir>/stat ("R", "S", "Z"...): the
// fields after the command name, which may itself hold spaces or ')'.
bool read_stat(const std::string& path, char* state, pid_t* ppid) {
  std::ifstream f(path);
  std::string s;
  if (!std::getline(f, s)) return false;
  const auto close = s.rfind(')');
  if (close == std::string::npos || close + 2 >= s.size()) return false;
  std::istringstream rest(s.substr(close + 2));
  long parent = 0;
  rest >> *state >> parent;
  *ppid = static_cast<pid_t>(parent);
  return static_cast<bool>(rest);
}

bool alive(const std::string& stat_path) {
  char st = 'X';
  pid_t pp = 0;
  return read_stat(stat_path, &st, &pp) && st != 'Z' && st != 'X' && st != 'x';
}

std::vector<std::string> numeric_entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') out.emplace_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

}  // namespace

void become_subreaper() {
  static std::once_flag once;
  std::call_once(once, [] { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); });
}

int live_threads(pid_t pid) {
  const std::string task = "/proc/" + std::to_string(pid) + "/task/";
  int n = 0;
  for (const std::string& tid : numeric_entries(task)) n += alive(task + tid + "/stat");
  return n;
}

int other_working_threads() {
  constexpr unsigned long kPfExiting = 0x4;  // include/linux/sched.h
  const std::string task = "/proc/self/task/";
  const std::string self = std::to_string(static_cast<long>(::syscall(SYS_gettid)));
  int n = 0;
  for (const std::string& tid : numeric_entries(task)) {
    if (tid == self) continue;
    std::ifstream f(task + tid + "/stat");
    std::string s;
    if (!std::getline(f, s)) continue;  // gone meanwhile
    const auto close = s.rfind(')');
    if (close == std::string::npos || close + 2 >= s.size()) continue;
    std::istringstream rest(s.substr(close + 2));
    char state = 'X';
    std::string field;
    rest >> state;
    for (int k = 4; k <= 9; ++k) rest >> field;  // fields 4 (ppid) to 9 (flags): flags last
    if (!rest || state == 'Z' || state == 'X' || state == 'x') continue;
    if ((std::strtoul(field.c_str(), nullptr, 10) & kPfExiting) == 0) ++n;
  }
  return n;
}

std::vector<pid_t> children_of(pid_t pid, bool live_only) {
  std::vector<pid_t> out;
  const std::string task = "/proc/" + std::to_string(pid) + "/task/";
  bool have_children_files = false;
  for (const std::string& tid : numeric_entries(task)) {
    std::ifstream f(task + tid + "/children");
    if (!f) continue;
    have_children_files = true;
    for (long c; f >> c;) out.push_back(static_cast<pid_t>(c));
  }
  if (!have_children_files) {  // a kernel without CONFIG_PROC_CHILDREN: scan every process
    for (const std::string& p : numeric_entries("/proc/")) {
      char st = 'X';
      pid_t pp = 0;
      if (read_stat("/proc/" + p + "/stat", &st, &pp) && pp == pid) out.push_back(static_cast<pid_t>(std::atol(p.c_str())));
    }
  }
  if (live_only)
    out.erase(std::remove_if(out.begin(), out.end(),
                             [](pid_t c) { return !alive("/proc/" + std::to_string(c) + "/stat"); }),
              out.end());
  return out;
}

namespace {

// The bytes of a small /proc file (up to n - 1), NUL-terminated; -1 when it
// cannot be read.
ssize_t read_small(const char* path, char* b, std::size_t n) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t got = ::read(fd, b, n - 1);
  ::close(fd);
  b[got > 0 ? got : 0] = '\0';
  return got;
}

// A procfs file held open, read from its start again: its contents are
// made anew by each read at offset 0.
ssize_t reread_small(int fd, char* b, std::size_t n) {
  const ssize_t got = ::pread(fd, b, n - 1, 0);
  b[got > 0 ? got : 0] = '\0';
  return got;
}

}  // namespace

ProcFiles open_proc_files(pid_t pid) {
  char path[64];
  ProcFiles f;
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  f.stat = ::open(path, O_RDONLY | O_CLOEXEC);
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", static_cast<int>(pid), static_cast<int>(pid));
  f.children = ::open(path, O_RDONLY | O_CLOEXEC);
  return f;
}

void close_proc_files(ProcFiles& f) {
  if (f.stat >= 0) ::close(f.stat);
  if (f.children >= 0) ::close(f.children);
  f = ProcFiles{};
}

bool alone_without_children(pid_t pid, const ProcFiles* files) {
  char path[64], b[1024];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const ssize_t n = files && files->stat >= 0 ? reread_small(files->stat, b, sizeof b) : read_small(path, b, sizeof b);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof b - 1) return false;
  // Fields after the command name (which may hold spaces or ')'): field 3
  // (state) first, num_threads is field 20.
  const char* at = std::strrchr(b, ')');
  if (!at) return false;
  ++at;
  for (int field = 2; field < 20 && *at; ++at)
    if (*at == ' ') ++field;
  if (std::strtol(at, nullptr, 10) != 1) return false;
  if (files && files->children >= 0) return reread_small(files->children, b, sizeof b) == 0;
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", static_cast<int>(pid), static_cast<int>(pid));
  return read_small(path, b, sizeof b) == 0;  // empty: no child (a kernel without the file: -1, scanned)
}

bool process_alive(pid_t pid) { return alive("/proc/" + std::to_string(pid) + "/stat"); }

int kill_and_reap(pid_t pgid, const std::function<bool(pid_t)>& keep) {
  int strays = 0;
  ::kill(-pgid, SIGKILL);
  ::kill(pgid, SIGKILL);  // the leader, should it have left its group
  for (int round = 0; round < 10000; ++round) {
    // Members of the group become our children as their parents die.
    int status;
    while (::waitpid(-pgid, &status, 0) > 0 || errno == EINTR) {
    }
    std::vector<pid_t> rest = children_of(::getpid(), false);
    rest.erase(std::remove_if(rest.begin(), rest.end(), [&](pid_t c) { return c != pgid && keep(c); }), rest.end());
    if (rest.empty()) break;
    for (pid_t c : rest) {
      ++strays;
      ::kill(-c, SIGKILL);  // the group it may lead
      ::kill(c, SIGKILL);
      while (::waitpid(c, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  return strays;
}

}  // namespace ropecheck
