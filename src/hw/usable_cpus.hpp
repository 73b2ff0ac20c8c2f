// How many CPUs this process may use now, as OpenMP runtimes and oneDNN count them: the calling
// thread's affinity mask (taskset, a container's cpuset, a framework that pinned its threads),
// capped by the cgroup CPU quota (a container's --cpus), whichever is tighter. The profile's
// `cores` is the machine; this is the share of it a call can have. Read when a context is
// created and when a pool is sized (a few system calls), never per call.
#pragma once

#include <string>
#include <string_view>

namespace adaptcore {

struct UsableCpus {
  int affinity = 0;  // CPUs in the calling thread's mask (0: unknown)
  int quota = 0;     // the cgroup CPU quota rounded up (0: none)
  int count = 1;     // what may run at once: the smaller known one, at least 1
};

UsableCpus usable_cpus() noexcept;

// The tightest cgroup CPU quota, in CPUs rounded up, along the cgroup paths that
// `proc_self_cgroup` (the text of /proc/self/cgroup) names under `cgroup_root` (/sys/fs/cgroup):
// cgroup v2's cpu.max ("max" or "<quota> <period>") and v1's cpu.cfs_quota_us / cpu.cfs_period_us
// (-1: none), in the cgroup and each of its ancestors. 0 when there is none.
int cgroup_cpu_quota(std::string_view proc_self_cgroup, const std::string& cgroup_root) noexcept;

}  // namespace adaptcore
