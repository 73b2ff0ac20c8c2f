#include "hw/shipped_profiles.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "core/flat_json.hpp"

namespace adaptcore {

namespace shipped_data {
// Generated from src/hw/profiles/*.json (cmake/ShippedProfiles.cmake).
extern const ShippedProfile kProfiles[];
extern const std::size_t kProfileCount;
}  // namespace shipped_data

std::span<const ShippedProfile> shipped_profiles() noexcept {
  return {shipped_data::kProfiles, shipped_data::kProfileCount};
}

namespace {

struct Key {
  std::string vendor, microarchitecture;
  int family = -1;
  std::vector<int> models;
  std::optional<bool> avx512;  // "cpu_avx512": the microarchitecture's vector ISA
};

// The profile's "cpu_vendor", "cpu_family", "cpu_models" ("17,97": a comma-separated list) and
// "microarchitecture"; vendor empty when it has none of them.
Key read_key(const ShippedProfile& p) {
  Key k;
  FlatJsonObject obj;
  if (!obj.parse(p.text, "adaptcore-hardware-profile", 1).empty()) return k;
  using Kind = FlatJsonObject::Kind;
  const auto* vendor = obj.find("cpu_vendor");
  const auto* family = obj.find("cpu_family");
  const auto* models = obj.find("cpu_models");
  const auto* uarch = obj.find("microarchitecture");
  if (vendor == nullptr || vendor->kind != Kind::String || family == nullptr ||
      !(family->kind == Kind::Int || family->kind == Kind::Uint) || models == nullptr ||
      models->kind != Kind::String)
    return k;
  k.vendor = vendor->s;
  // CPUID's display family is at most 15 + 255 and its model at most 255: anything else is no
  // CPU's, and the profile matches none.
  const std::int64_t f =
      family->kind == Kind::Int ? family->i : static_cast<std::int64_t>(family->u);
  if (f < 0 || f > 270) return Key{};  // a huge unsigned value wraps negative: refused too
  k.family = static_cast<int>(f);
  std::stringstream list(models->s);
  for (std::string item; std::getline(list, item, ',');) {
    char* end = nullptr;
    errno = 0;
    const long m = std::strtol(item.c_str(), &end, 10);
    if (end != item.c_str() && errno == 0 && m >= 0 && m <= 255)
      k.models.push_back(static_cast<int>(m));
  }
  if (uarch != nullptr && uarch->kind == Kind::String) k.microarchitecture = uarch->s;
  if (const auto* v = obj.find("cpu_avx512"); v != nullptr && v->kind == Kind::Bool)
    k.avx512 = v->b;
  return k;
}

}  // namespace

ShippedMatch match_shipped_profile(const CpuIdentity& id, std::optional<bool> avx512) {
  ShippedMatch best;
  if (id.vendor.empty()) return best;
  long best_distance = std::numeric_limits<long>::max();
  for (const ShippedProfile& p : shipped_profiles()) {
    const Key k = read_key(p);
    if (k.vendor != id.vendor) continue;
    const bool same_isa = !avx512 || !k.avx512 || *avx512 == *k.avx512;
    for (const int model : k.models) {
      // Another vector ISA is farther than any family (its tiles are other tiles), another
      // family farther than any model of the same family. Family and model are clamped to
      // CPUID's range, so the sum cannot overflow.
      const long family_gap =
          std::labs(std::clamp<long>(k.family, 0, 270) - std::clamp<long>(id.family, 0, 270));
      const long model_gap =
          std::labs(std::clamp<long>(model, 0, 255) - std::clamp<long>(id.model, 0, 255));
      const long distance = (same_isa ? 0 : 1'000'000) + family_gap * 1000 + model_gap;
      if (distance < best_distance) {
        best_distance = distance;
        best.profile = &p;
        best.exact = k.family == id.family && model == id.model;
        best.same_vector_isa = same_isa;
        best.microarchitecture = k.microarchitecture;
      }
    }
  }
  return best;
}

HardwareProfile apply_shipped_profile(const HardwareProfile& base, const CpuIdentity& id) {
  try {
    const ShippedMatch m = match_shipped_profile(id, base.features.has(Feature::Avx512F));
    HardwareProfile out = base;
    if (m.profile == nullptr) {
      out.source = base.source + " (no shipped profile for " + to_string(id) + ")";
      return out;
    }
    // Parsed over a base that claims no ISA features: a shipped profile lists none (its tests
    // say so), and base's are the caller's to keep, not a claim to check against this CPU
    // (a test's profile of another machine).
    HardwareProfile plain = base;
    plain.features = FeatureSet{};
    HardwareProfile shipped;
    if (profile_from_json(m.profile->text, plain, shipped) != Status::Ok) return base;
    shipped.features = base.features;
    if (m.exact) {
      out = shipped;
    } else {
      // Another microarchitecture's rates (GB/s, instructions a cycle) say little of this one's,
      // whose detected defaults at least follow its own clock; how its prefetchers treat row
      // streams is the behaviour a neighbour most likely shares.
      out.l3_row_streams = shipped.l3_row_streams;
      out.l3_row_share_paged = shipped.l3_row_share_paged;
      out.l3_row_share = shipped.l3_row_share;
      if (m.same_vector_isa) {
        out.l2_row_share_paged = shipped.l2_row_share_paged;
        out.l2_row_share_long = shipped.l2_row_share_long;
        out.dram_in_place_loss = shipped.dram_in_place_loss;
        out.dram_in_place_share = shipped.dram_in_place_share;
        out.dram_pack_share = shipped.dram_pack_share;
        out.dram_self_streaming_rows = shipped.dram_self_streaming_rows;
        out.few_row_stream_exponent = shipped.few_row_stream_exponent;
        out.dram_self_streaming_row_bytes = shipped.dram_self_streaming_row_bytes;
        out.kernel_call_cycles = shipped.kernel_call_cycles;
      }
    }
    out.source = base.source + " + shipped " + m.profile->file + " (" + m.microarchitecture +
                 (m.exact ? "" : ", the nearest known: its row-stream terms only") +
                 "; this CPU: " + to_string(id) + ")";
    return out;
  } catch (...) {
    return base;
  }
}

}  // namespace adaptcore
