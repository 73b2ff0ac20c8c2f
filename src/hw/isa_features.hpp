// The ISA feature lattice. A hardware profile's feature flags form a set; every kernel path
// names the set it needs (a level: generic < avx2 < avx512, and avx512 + bf16, avx512 + vnni
// above it), and a context runs a path where the features both its profile and the running CPU
// have contain that level. One rule, asked by the fp32 path choice (HardwareProfile::supports),
// the low-precision and weight-quantized kernel choice (dispatch/kernel_select.cpp), the
// profile check (hw/feature_claims.cpp) and the plan-file fingerprint.
#pragma once

#include <cstdint>

#include "adaptcore/hardware.hpp"

namespace adaptcore {

// One bit per HardwareProfile flag, in the plan-file fingerprint's order.
enum class Feature : std::uint32_t {
  Fma3 = 1u << 0,
  Avx2 = 1u << 1,
  Avx512F = 1u << 2,
  Avx512BW = 1u << 3,
  Avx512DQ = 1u << 4,
  Avx512VL = 1u << 5,
  Avx512Bf16 = 1u << 6,
  Avx512Vnni = 1u << 7,
};
inline constexpr int kFeatureCount = 8;

struct FeatureSet {
  std::uint32_t bits = 0;

  constexpr FeatureSet() = default;
  constexpr FeatureSet(Feature f)
      : bits(static_cast<std::uint32_t>(f)) {}  // NOLINT(google-explicit-constructor)
  constexpr explicit FeatureSet(std::uint32_t b) : bits(b) {}
  constexpr bool contains(FeatureSet o) const noexcept { return (bits & o.bits) == o.bits; }
  friend constexpr FeatureSet operator|(FeatureSet a, FeatureSet b) noexcept {
    return FeatureSet(a.bits | b.bits);
  }
  friend constexpr FeatureSet operator&(FeatureSet a, FeatureSet b) noexcept {
    return FeatureSet(a.bits & b.bits);
  }
  friend constexpr bool operator==(FeatureSet, FeatureSet) = default;
};

// The levels, each containing the one below (as the kernels are compiled: the avx512 units
// with -mavx2 -mfma as well, the dot-product units with -mavx512bw).
inline constexpr FeatureSet kLevelGeneric{};
inline constexpr FeatureSet kLevelAvx2 = FeatureSet(Feature::Fma3) | Feature::Avx2;
inline constexpr FeatureSet kLevelAvx512 = kLevelAvx2 | Feature::Avx512F | Feature::Avx512VL;
inline constexpr FeatureSet kLevelAvx512Bf16 =
    kLevelAvx512 | Feature::Avx512BW | Feature::Avx512Bf16;
inline constexpr FeatureSet kLevelAvx512Vnni =
    kLevelAvx512 | Feature::Avx512BW | Feature::Avx512Vnni;

// The flags of a profile as a set, and the flag's JSON name of each feature.
FeatureSet features_of(const HardwareProfile& hw) noexcept;
const char* feature_name(Feature f) noexcept;
// The level an fp32 ISA path needs (Auto: the generic level).
FeatureSet level_of(Isa isa) noexcept;

}  // namespace adaptcore
