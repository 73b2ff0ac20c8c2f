#include "hw/feature_claims.hpp"

namespace adaptcore {

std::string unsupported_feature_claims(const HardwareProfile& claimed,
                                       const HardwareProfile& cpu) {
  struct Flag {
    const char* name;
    bool HardwareProfile::*field;
  };
  // Every feature flag of HardwareProfile; the JSON field table names them the same way.
  static constexpr Flag kFlags[] = {
      {"fma3", &HardwareProfile::fma3},         {"avx2", &HardwareProfile::avx2},
      {"avx512f", &HardwareProfile::avx512f},   {"avx512bw", &HardwareProfile::avx512bw},
      {"avx512dq", &HardwareProfile::avx512dq}, {"avx512vl", &HardwareProfile::avx512vl},
      {"avx512_bf16", &HardwareProfile::avx512_bf16},
      {"avx512_vnni", &HardwareProfile::avx512_vnni},
  };
  std::string out;
  for (const Flag& f : kFlags) {
    if (claimed.*f.field && !(cpu.*f.field)) {
      if (!out.empty()) out += ", ";
      out += f.name;
    }
  }
  return out;
}

}  // namespace adaptcore
