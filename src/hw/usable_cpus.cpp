#include "hw/usable_cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace adaptcore {
namespace {

// The first line of a small file, or "" when it cannot be read.
std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

// CPUs of a quota over a period, rounded up (a quota of 1.5 CPUs lets two threads run half the
// time each; rounding down would leave half a CPU unused); 0 for none or nonsense.
int quota_cpus(double quota, double period) {
  if (!(quota > 0) || !(period > 0)) return 0;
  const double cpus = std::ceil(quota / period);
  return cpus >= 1 && cpus < 1e6 ? static_cast<int>(cpus) : 0;
}

// v2: cpu.max is "max <period>" or "<quota> <period>".
int v2_quota(const std::string& dir) {
  std::istringstream in(first_line(dir + "/cpu.max"));
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max") return 0;
  try {
    return quota_cpus(std::stod(quota), period);
  } catch (...) {
    return 0;
  }
}

// v1: cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us.
int v1_quota(const std::string& dir) {
  try {
    const std::string q = first_line(dir + "/cpu.cfs_quota_us");
    const std::string p = first_line(dir + "/cpu.cfs_period_us");
    if (q.empty() || p.empty()) return 0;
    return quota_cpus(std::stod(q), std::stod(p));
  } catch (...) {
    return 0;
  }
}

// The tightest quota of a cgroup directory and its ancestors up to (and with) the root.
template <class Read>
int tightest(const std::string& root, std::string path, Read read) {
  int best = 0;
  for (;;) {
    const int q = read(root + path);
    if (q > 0) best = best == 0 ? q : std::min(best, q);
    if (path.empty() || path == "/") break;
    const auto slash = path.find_last_of('/');
    path = slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
  }
  return best;
}

bool has_controller(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

int cgroup_cpu_quota(std::string_view text, const std::string& root) noexcept {
  try {
    int best = 0;
    auto keep = [&best](int q) {
      if (q > 0) best = best == 0 ? q : std::min(best, q);
    };
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
      // "<id>:<controllers>:<path>"
      const auto a = line.find(':');
      const auto b = a == std::string::npos ? a : line.find(':', a + 1);
      if (b == std::string::npos) continue;
      const std::string_view controllers = std::string_view(line).substr(a + 1, b - a - 1);
      std::string path = line.substr(b + 1);
      if (path == "/") path.clear();
      if (line.compare(0, a, "0") == 0 && controllers.empty()) {
        // v2: the unified hierarchy at the root, or beside v1's (a hybrid system).
        keep(tightest(root, path, v2_quota));
        keep(tightest(root + "/unified", path, v2_quota));
      } else if (has_controller(controllers, "cpu")) {
        for (const char* dir : {"/cpu", "/cpu,cpuacct", "/cpuacct,cpu"})
          keep(tightest(root + dir, path, v1_quota));
      }
    }
    return best;
  } catch (...) {
    return 0;
  }
}

UsableCpus usable_cpus() noexcept {
  UsableCpus u;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) u.affinity = CPU_COUNT(&set);
  if (u.affinity == 0) {
    // More CPUs than a cpu_set_t holds: ask with a set of their size.
    const int n = 1 << 16;
    if (cpu_set_t* big = CPU_ALLOC(n)) {
      const std::size_t size = CPU_ALLOC_SIZE(n);
      CPU_ZERO_S(size, big);
      if (sched_getaffinity(0, size, big) == 0) u.affinity = CPU_COUNT_S(size, big);
      CPU_FREE(big);
    }
  }
  try {
    std::ifstream in("/proc/self/cgroup");
    std::ostringstream text;
    text << in.rdbuf();
    u.quota = cgroup_cpu_quota(text.str(), "/sys/fs/cgroup");
  } catch (...) {
    u.quota = 0;
  }
  int count = u.affinity;
  if (u.quota > 0) count = count > 0 ? std::min(count, u.quota) : u.quota;
  u.count = std::max(count, 1);
  return u;
}

}  // namespace adaptcore
