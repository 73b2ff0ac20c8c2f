#include "hw/feature_claims.hpp"

#include "hw/isa_features.hpp"

namespace adaptcore {

std::string unsupported_feature_claims(const HardwareProfile& claimed, const HardwareProfile& cpu) {
  const FeatureSet have = features_of(cpu), want = features_of(claimed);
  std::string out;
  for (int i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(1u << i);
    if (want.contains(f) && !have.contains(f)) {
      if (!out.empty()) out += ", ";
      out += feature_name(f);
    }
  }
  return out;
}

}  // namespace adaptcore
