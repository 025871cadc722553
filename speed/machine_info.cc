// SPDX-License-Identifier: MIT
// The definitions of speed/machine_info.h.
#include "speed/machine_info.h"

#include <sched.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include "speed/rmw_pass.h"

namespace ropecheck::speed {

std::string machine_description() {
  std::ifstream f("/proc/cpuinfo");
  std::string model = "unknown CPU";
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Hardware", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) model = line.substr(colon + 2);
      break;
    }
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cores = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  std::ostringstream os;
  os << model << ", " << cores << " core(s) usable, SIMD target " << rmw_target();
  return os.str();
}

std::string utc_date_time() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string load_averages() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  if (!(f >> a >> b >> c)) return {};
  return a + " " + b + " " + c;
}

}  // namespace ropecheck::speed
