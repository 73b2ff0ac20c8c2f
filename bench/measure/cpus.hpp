// The CPUs a measurement may use and pinning a thread to one of them (Linux affinity masks).
#pragma once

#include <vector>

namespace adaptcore::measure {

// CPUs in this process's affinity mask, in ascending order.
std::vector<int> allowed_cpus();
// Restricts the calling thread to `cpu`; false if cpu < 0 or the system refuses.
bool pin_this_thread(int cpu) noexcept;

}  // namespace adaptcore::measure
