#include "hw/cpu_identity.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstring>

namespace adaptcore {
namespace {

CpuIdentity read_identity() {
  CpuIdentity id;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return id;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  id.vendor = vendor;
  if (a < 1 || __get_cpuid(1, &a, &b, &c, &d) == 0) return id;
  // The display family and model (Intel SDM vol. 2, CPUID leaf 1; AMD's the same): the
  // extended family adds to a base family of 15, the extended model extends families 6 and 15.
  const int base_family = static_cast<int>((a >> 8) & 0xF);
  const int base_model = static_cast<int>((a >> 4) & 0xF);
  id.family = base_family == 0xF ? base_family + static_cast<int>((a >> 20) & 0xFF) : base_family;
  id.model = base_family == 0x6 || base_family == 0xF
                 ? base_model + (static_cast<int>((a >> 16) & 0xF) << 4)
                 : base_model;
#endif
  return id;
}

}  // namespace

const CpuIdentity& cpu_identity() {
  static const CpuIdentity id = read_identity();
  return id;
}

std::string to_string(const CpuIdentity& id) {
  if (id.vendor.empty() || id.family < 0) return "unknown CPU";
  const std::string v = id.vendor == "GenuineIntel"   ? "Intel"
                        : id.vendor == "AuthenticAMD" ? "AMD"
                                                      : id.vendor;
  return v + " family " + std::to_string(id.family) + " model " + std::to_string(id.model);
}

}  // namespace adaptcore
