// SPDX-License-Identifier: MIT
// What a differential fuzzing run covered, as counts: the definitions of cli/fuzz_tally.h.
#include "cli/fuzz_tally.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace ropecheck::cli {

void FuzzTally::add(std::string_view section, std::string_view key, std::int64_t n) {
  auto s = sections.begin();
  while (s != sections.end() && s->first != section) ++s;
  if (s == sections.end()) s = sections.insert(s, {std::string(section), {}});
  auto k = s->second.begin();
  while (k != s->second.end() && k->first != key) ++k;
  if (k == s->second.end()) s->second.emplace_back(std::string(key), n);
  else k->second += n;
}

void FuzzTally::merge(const FuzzTally& o) {
  executions += o.executions;
  seconds += o.seconds;
  for (const auto& [section, keys] : o.sections)
    for (const auto& [key, n] : keys) add(section, key, n);
}

std::int64_t FuzzTally::count(std::string_view section, std::string_view key) const {
  for (const auto& [s, keys] : sections)
    if (s == section)
      for (const auto& [k, n] : keys)
        if (k == key) return n;
  return 0;
}

std::string tally_text(const FuzzTally& t) {
  std::ostringstream os;
  os << "executions " << t.executions << "\nseconds " << t.seconds << "\n";
  for (const auto& [section, keys] : t.sections)
    for (const auto& [key, n] : keys) os << section << " " << key << " " << n << "\n";
  return os.str();
}

std::optional<FuzzTally> parse_tally(const std::string& text) {
  std::istringstream is(text);
  FuzzTally t;
  std::string line;
  bool head = false;
  while (std::getline(is, line)) {
    std::istringstream ls(line);
    std::string a, b, c;
    ls >> a >> b;
    if (a == "executions") {
      t.executions = std::stoll(b);
      head = true;
    } else if (a == "seconds") {
      t.seconds = std::stod(b);
    } else if (ls >> c) {
      try {
        t.add(a, b, std::stoll(c));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  if (!head) return std::nullopt;
  return t;
}

std::string rate_line(std::int64_t executions, std::int64_t recent, double elapsed, int interval, int jobs) {
  const double per_job = jobs > 0 ? jobs : 1;
  char line[160];
  std::snprintf(line, sizeof line, "ropecheck fuzz: %.0f s, %lld executions, %.0f per second%s (last %d s: %.0f)\n",
                elapsed, static_cast<long long>(executions),
                elapsed > 0 ? static_cast<double>(executions) / (elapsed * per_job) : 0.0, jobs > 1 ? " per job" : "",
                interval, interval > 0 ? static_cast<double>(recent) / (interval * per_job) : 0.0);
  return line;
}

std::string coverage_summary(const FuzzTally& t, double wall_seconds, int jobs) {
  std::ostringstream os;
  char rate[64];
  const double per = wall_seconds > 0 ? static_cast<double>(t.executions) / (wall_seconds * (jobs > 0 ? jobs : 1)) : 0;
  std::snprintf(rate, sizeof rate, "%.0f", per);
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f", wall_seconds);
  os << "ropecheck fuzz: " << t.executions << " executions in " << wall << " s: " << rate
     << " per second" << (jobs > 1 ? " per job (" + std::to_string(jobs) + " jobs)" : std::string()) << "\n";
  os << "covered (kernel calls judged, by what they were):\n";
  std::size_t width = 0;
  for (const auto& [section, keys] : t.sections) width = std::max(width, section.size());
  for (const auto& [section, keys] : t.sections) {
    os << "  " << section << ":" << std::string(width - section.size() + 1, ' ');
    for (std::size_t i = 0; i < keys.size(); ++i) os << (i ? ", " : "") << keys[i].first << " " << keys[i].second;
    os << "\n";
  }
  return os.str();
}

}  // namespace ropecheck::cli
