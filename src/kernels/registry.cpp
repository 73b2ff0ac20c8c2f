// The lattice of levels and the registry of the built ones (registry.hpp). The lattice is the
// one place that names every level; a level's tables come from its config.cpp, listed by CMake
// in levels_built.hpp.
#include "kernels/registry.hpp"

#include <array>
#include <cstddef>
#include <string>

#include "core/env_value.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry_entry.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"

namespace adaptcore::kernels {
namespace {

constexpr FeatureSet kAvx2Needs = FeatureSet(Feature::Fma3) | Feature::Avx2;
constexpr FeatureSet kAvx512Needs = kAvx2Needs | Feature::Avx512F | Feature::Avx512VL;
constexpr FeatureSet kAvx512VnniNeeds = kAvx512Needs | Feature::Avx512BW | Feature::Avx512Vnni;
constexpr FeatureSet kAvx512Bf16Needs = kAvx512VnniNeeds | Feature::Avx512Bf16;
constexpr FeatureSet kAmxNeeds =
    kAvx512Bf16Needs | Feature::AmxTile | Feature::AmxBf16 | Feature::AmxInt8;

// Lowest first; a row's `below` comes before it. The needs are the features the units are
// compiled for (level.cmake) that the kernels rely on.
constexpr LatticeRow kLattice[] = {
    {Isa::Generic, "generic", Isa::Auto, FeatureSet{}},
    {Isa::Avx2, "avx2", Isa::Generic, kAvx2Needs},
    {Isa::Avx512, "avx512", Isa::Avx2, kAvx512Needs},
    {Isa::Avx512Vnni, "avx512_vnni", Isa::Avx512, kAvx512VnniNeeds},
    {Isa::Avx512Bf16, "avx512_bf16", Isa::Avx512Vnni, kAvx512Bf16Needs},
    {Isa::Amx, "amx", Isa::Avx512Bf16, kAmxNeeds},
};

// Every Isa value is below this (plan files and C callers may hold any 32-bit value; index()
// maps the rest to slot 0, which no level has).
constexpr std::size_t kSlots = 16;
constexpr std::size_t index(Isa isa) noexcept {
  const auto v = static_cast<unsigned>(isa);
  return v < kSlots ? v : 0;
}

struct Resolved {
  bool built = false;
  const IsaKernels* fp32 = nullptr;
  const LowpKernels* bf16 = nullptr;
  const LowpKernels* int8 = nullptr;
  const WqKernels* wq = nullptr;
};

struct Registry {
  std::array<Resolved, kSlots> slots{};
  std::array<Isa, kSlots> built{};
  std::size_t built_count = 0;

  Registry() noexcept {
    std::array<const Level*, kSlots> own{};
#define ADAPTCORE_REGISTER_LEVEL(name) own[index(level_##name().id)] = &level_##name();
    ADAPTCORE_BUILT_LEVELS(ADAPTCORE_REGISTER_LEVEL)
#undef ADAPTCORE_REGISTER_LEVEL
    // The lattice lists a level after the one below it, so that one is resolved first.
    for (const LatticeRow& row : kLattice) {
      const Level* l = own[index(row.id)];
      if (l == nullptr) continue;
      const Resolved base = row.below == Isa::Auto ? Resolved{} : slots[index(row.below)];
      if (row.below != Isa::Auto && !base.built) continue;  // a level needs the one below
      Resolved& r = slots[index(row.id)];
      r.built = true;
      r.fp32 = l->fp32 != nullptr ? l->fp32 : base.fp32;
      r.bf16 = l->bf16 != nullptr ? l->bf16 : base.bf16;
      r.int8 = l->int8 != nullptr ? l->int8 : base.int8;
      r.wq = l->wq != nullptr ? l->wq : base.wq;
      if (r.fp32 == nullptr || r.bf16 == nullptr || r.int8 == nullptr || r.wq == nullptr) {
        r = Resolved{};  // a root that registers less than every kind is not a level
        continue;
      }
      built[built_count++] = row.id;
    }
  }
};

const Registry& registry() noexcept {
  static const Registry r;
  return r;
}

const Resolved& slot(Isa isa) noexcept { return registry().slots[index(isa)]; }

// Each Isa value's lattice row (the index into kLattice plus one; 0: none), so the calls that
// walk the lattice on every low-precision call (clamp_level) look rows up directly.
constexpr std::array<unsigned char, kSlots> kRowOf = [] {
  std::array<unsigned char, kSlots> t{};
  for (std::size_t i = 0; i < std::size(kLattice); ++i)
    t[index(kLattice[i].id)] = static_cast<unsigned char>(i + 1);
  return t;
}();

}  // namespace

const LatticeRow* lattice_row(Isa isa) noexcept {
  const auto v = static_cast<unsigned>(isa);
  if (v >= kSlots || kRowOf[v] == 0) return nullptr;
  return &kLattice[kRowOf[v] - 1];
}

std::span<const LatticeRow> lattice() noexcept { return kLattice; }

bool built(Isa isa) noexcept { return slot(isa).built; }

std::span<const Isa> built_levels() noexcept {
  const Registry& r = registry();
  return {r.built.data(), r.built_count};
}

Isa best_level(FeatureSet have) noexcept {
  Isa best = Isa::Generic;
  for (const Isa isa : built_levels())
    if (have.contains(lattice_row(isa)->needs)) best = isa;
  return best;
}

Isa clamp_level(Isa isa, FeatureSet have) noexcept {
  for (const LatticeRow* row = lattice_row(isa); row != nullptr; row = lattice_row(row->below))
    if (built(row->id) && have.contains(row->needs)) return row->id;
  return Isa::Generic;
}

const IsaKernels* kernels_for(Isa isa) noexcept { return slot(isa).fp32; }

const LowpKernels* lowp_kernels_for(DType dtype, Isa isa) noexcept {
  if (dtype == DType::Bf16) return slot(isa).bf16;
  if (dtype == DType::U8S8) return slot(isa).int8;
  return nullptr;
}

const WqKernels* wq_kernels_for(Isa isa) noexcept { return slot(isa).wq; }

}  // namespace adaptcore::kernels

namespace adaptcore {

const char* to_string(Isa isa) noexcept {
  if (isa == Isa::Auto) return "auto";
  const kernels::LatticeRow* row = kernels::lattice_row(isa);
  return row != nullptr ? row->name : "unknown";
}

bool parse_isa(std::string_view text, Isa& out) noexcept {
  try {
    std::string word = env_word(text);
    for (char& ch : word)
      if (ch == '-') ch = '_';
    // Older spellings of two levels.
    if (word == "portable") word = "generic";
    if (word == "avx_512") word = "avx512";
    if (word == "auto") {
      out = Isa::Auto;
      return true;
    }
    for (const kernels::LatticeRow& row : kernels::lattice())
      if (word == row.name) {
        out = row.id;
        return true;
      }
  } catch (...) {  // a text too long to copy names no level
  }
  return false;
}

bool HardwareProfile::supports(Isa isa) const noexcept {
  const kernels::LatticeRow* row = kernels::lattice_row(isa);
  return row != nullptr && kernels::built(isa) && features.contains(row->needs);
}

Isa HardwareProfile::best_isa() const noexcept { return kernels::best_level(features); }

int HardwareProfile::fp32_lanes(Isa isa) noexcept {
  const kernels::IsaKernels* ks = kernels::kernels_for(isa);
  return ks != nullptr ? ks->lanes : 4;
}

double HardwareProfile::fma_per_cycle_at(int vector_bits) const noexcept {
  if (vector_bits >= 512) return fma_per_cycle_512;
  if (vector_bits >= 256) return fma_per_cycle_256;
  return fma_per_cycle_128;
}

double HardwareProfile::fma_per_cycle(Isa isa) const noexcept {
  return fma_per_cycle_at(32 * fp32_lanes(isa));
}

double HardwareProfile::peak_gflops_per_core(Isa isa) const noexcept {
  return 2.0 * fp32_lanes(isa) * fma_per_cycle(isa) * freq_ghz;
}

}  // namespace adaptcore
