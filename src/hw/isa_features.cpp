#include "hw/isa_features.hpp"

namespace adaptcore {
namespace {

struct Flag {
  Feature feature;
  const char* name;
  bool HardwareProfile::*field;
};
// Every feature flag of HardwareProfile; the JSON field table names them the same way.
constexpr Flag kFlags[kFeatureCount] = {
    {Feature::Fma3, "fma3", &HardwareProfile::fma3},
    {Feature::Avx2, "avx2", &HardwareProfile::avx2},
    {Feature::Avx512F, "avx512f", &HardwareProfile::avx512f},
    {Feature::Avx512BW, "avx512bw", &HardwareProfile::avx512bw},
    {Feature::Avx512DQ, "avx512dq", &HardwareProfile::avx512dq},
    {Feature::Avx512VL, "avx512vl", &HardwareProfile::avx512vl},
    {Feature::Avx512Bf16, "avx512_bf16", &HardwareProfile::avx512_bf16},
    {Feature::Avx512Vnni, "avx512_vnni", &HardwareProfile::avx512_vnni},
};

}  // namespace

FeatureSet features_of(const HardwareProfile& hw) noexcept {
  FeatureSet s;
  for (const Flag& f : kFlags)
    if (hw.*f.field) s = s | f.feature;
  return s;
}

const char* feature_name(Feature feature) noexcept {
  for (const Flag& f : kFlags)
    if (f.feature == feature) return f.name;
  return "?";
}

FeatureSet level_of(Isa isa) noexcept {
  switch (isa) {
    case Isa::Avx512: return kLevelAvx512;
    case Isa::Avx2: return kLevelAvx2;
    case Isa::Auto:
    case Isa::Generic: return kLevelGeneric;
  }
  return kLevelGeneric;
}

bool HardwareProfile::supports(Isa isa) const noexcept {
  return features_of(*this).contains(level_of(isa));
}

Isa HardwareProfile::best_isa() const noexcept {
  for (const Isa isa : {Isa::Avx512, Isa::Avx2})
    if (supports(isa)) return isa;
  return Isa::Generic;
}

}  // namespace adaptcore
