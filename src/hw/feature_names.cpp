// The names of the CPU features (hardware.hpp): profile files, plan-file fingerprints and
// `adaptcore hw` spell them this way.
#include <array>
#include <string>

#include "adaptcore/hardware.hpp"
#include "core/env_value.hpp"

namespace adaptcore {
namespace {

struct Named {
  Feature feature;
  const char* name;
};
constexpr std::array<Named, kFeatureCount> kNames = {{
    {Feature::Fma3, "fma3"},
    {Feature::Avx2, "avx2"},
    {Feature::Avx512F, "avx512f"},
    {Feature::Avx512BW, "avx512bw"},
    {Feature::Avx512DQ, "avx512dq"},
    {Feature::Avx512VL, "avx512vl"},
    {Feature::Avx512Bf16, "avx512_bf16"},
    {Feature::Avx512Vnni, "avx512_vnni"},
    {Feature::AmxTile, "amx_tile"},
    {Feature::AmxBf16, "amx_bf16"},
    {Feature::AmxInt8, "amx_int8"},
}};

}  // namespace

const char* to_string(Feature f) noexcept {
  for (const Named& n : kNames)
    if (n.feature == f) return n.name;
  return "unknown";
}

bool parse_feature(std::string_view name, Feature& out) noexcept {
  try {
    const std::string word = env_word(name);
    for (const Named& n : kNames)
      if (word == n.name) {
        out = n.feature;
        return true;
      }
  } catch (...) {  // a name too long to copy is no feature's
  }
  return false;
}

std::string to_string(FeatureSet s) {
  std::string out;
  for (const Named& n : kNames)
    if (s.has(n.feature)) {
      if (!out.empty()) out += ' ';
      out += n.name;
    }
  return out;
}

}  // namespace adaptcore
