#include "hw/feature_claims.hpp"

namespace adaptcore {

std::string unsupported_feature_claims(const HardwareProfile& claimed, const HardwareProfile& cpu) {
  std::string out;
  for (int i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(1u << i);
    if (claimed.features.has(f) && !cpu.features.has(f)) {
      if (!out.empty()) out += ", ";
      out += to_string(f);
    }
  }
  return out;
}

}  // namespace adaptcore
