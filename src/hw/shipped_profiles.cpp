#include "hw/shipped_profiles.hpp"

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
  return k;
}

}  // namespace

ShippedMatch match_shipped_profile(const CpuIdentity& id) {
  ShippedMatch best;
  if (id.vendor.empty()) return best;
  long best_distance = std::numeric_limits<long>::max();
  for (const ShippedProfile& p : shipped_profiles()) {
    const Key k = read_key(p);
    if (k.vendor != id.vendor) continue;
    for (const int model : k.models) {
      // Another family is farther than any model of the same family.
      const long distance =
          std::labs(static_cast<long>(k.family) - static_cast<long>(id.family)) * 1000 +
          std::labs(static_cast<long>(model) - static_cast<long>(id.model));
      if (distance < best_distance) {
        best_distance = distance;
        best.profile = &p;
        best.exact = distance == 0;
        best.microarchitecture = k.microarchitecture;
      }
    }
  }
  return best;
}

HardwareProfile apply_shipped_profile(const HardwareProfile& base, const CpuIdentity& id) {
  try {
    const ShippedMatch m = match_shipped_profile(id);
    HardwareProfile out = base;
    if (m.profile == nullptr) {
      out.source = base.source + " (no shipped profile for " + to_string(id) + ")";
      return out;
    }
    HardwareProfile shipped;
    if (profile_from_json(m.profile->text, base, shipped) != Status::Ok) return base;
    if (m.exact) {
      out = shipped;
    } else {
      // Another microarchitecture's rates (GB/s, instructions a cycle) say little of this one's,
      // whose detected defaults at least follow its own clock; how its prefetchers treat row
      // streams is the behaviour a neighbour most likely shares.
      out.l3_row_streams = shipped.l3_row_streams;
      out.l3_row_share_paged = shipped.l3_row_share_paged;
      out.l3_row_share = shipped.l3_row_share;
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
