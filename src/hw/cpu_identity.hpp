// The running CPU's identity as CPUID states it: the vendor string and the display family and
// model (the numbers the vendors' manuals and /proc/cpuinfo use). Shipped profiles are keyed by
// it (hw/shipped_profiles.hpp).
#pragma once

#include <string>

namespace adaptcore {

struct CpuIdentity {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD", ...; empty off x86
  int family = -1;
  int model = -1;
};

const CpuIdentity& cpu_identity();

// "AMD family 25 model 17", "Intel family 6 model 207", or "unknown CPU".
std::string to_string(const CpuIdentity& id);

}  // namespace adaptcore
