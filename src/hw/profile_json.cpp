// JSON round trip of the hardware profile (nlohmann/json, header-only: no runtime dependency).
#include <cstdint>
#include <new>
#include <nlohmann/json.hpp>

#include "adaptcore/hardware.hpp"
#include "core/file_read.hpp"
#include "core/flat_json.hpp"
#include "hw/feature_claims.hpp"

namespace adaptcore {
namespace {
constexpr int kFormatVersion = 1;
// A profile is a few dozen fields (about 1 KiB); anything past this is not one, and a path to a
// device or a huge file must not be read into memory.
constexpr std::uint64_t kMaxProfileBytes = std::uint64_t{1} << 20;

// Field table shared by both directions so the two can never drift apart.
template <class F>
void for_each_field(HardwareProfile& hw, F&& f) {
  f("name", hw.name);
  f("cores", hw.cores);
  f("fma3", hw.fma3);
  f("avx2", hw.avx2);
  f("avx512f", hw.avx512f);
  f("avx512bw", hw.avx512bw);
  f("avx512dq", hw.avx512dq);
  f("avx512vl", hw.avx512vl);
  f("avx512_bf16", hw.avx512_bf16);
  f("avx512_vnni", hw.avx512_vnni);
  f("freq_ghz", hw.freq_ghz);
  f("l1d_bytes", hw.l1d_bytes);
  f("l2_bytes", hw.l2_bytes);
  f("l3_bytes", hw.l3_bytes);
  f("l3_warm_bytes", hw.l3_warm_bytes);
  f("l1d_ways", hw.l1d_ways);
  f("l2_ways", hw.l2_ways);
  f("page_bytes", hw.page_bytes);
  f("bw_l1_gbs", hw.bw_l1_gbs);
  f("bw_l2_gbs", hw.bw_l2_gbs);
  f("bw_l3_gbs", hw.bw_l3_gbs);
  f("bw_dram_core_gbs", hw.bw_dram_core_gbs);
  f("bw_dram_total_gbs", hw.bw_dram_total_gbs);
  f("fma_per_cycle_avx512", hw.fma_per_cycle_avx512);
  f("fma_per_cycle_avx2", hw.fma_per_cycle_avx2);
  f("fork_join_us", hw.fork_join_us);
  f("pack_gbs", hw.pack_gbs);
}

template <class T>
bool positive(const T& v) {
  return v > T{0};
}

}  // namespace

std::string to_json(const HardwareProfile& hw_in) {
  HardwareProfile hw = hw_in;
  nlohmann::ordered_json j;
  j["format"] = "adaptcore-hardware-profile";
  j["version"] = kFormatVersion;
  j["source"] = hw.source;
  for_each_field(hw, [&](const char* key, auto& v) { j[key] = v; });
  return j.dump(2);
}

namespace {

// profile_from_json's work; may throw std::bad_alloc (strings).
Status parse_profile(const std::string& text, const HardwareProfile& base, HardwareProfile& out,
                     std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error != nullptr) *error = why;
    return Status::InvalidProfile;
  };
  // The parser takes a NUL byte for the end of input (C strings), so "{...}\0garbage" would
  // parse as the object alone; JSON text never holds a raw NUL (strings escape it as \u0000).
  if (text.find('\0') != std::string::npos) return fail("not a JSON object (NUL byte in the text)");
  // The profile is one flat object (core/flat_json.hpp: no JSON tree); its "format" is not
  // checked.
  FlatJsonObject obj;
  if (const std::string why = obj.parse(text, nullptr, kFormatVersion); !why.empty())
    return fail(why);
  HardwareProfile hw = base;
  FieldReader read(obj);
  for_each_field(hw, read);
  if (!read.bad.empty()) return fail("field '" + read.bad + "' has the wrong type");
  // Every rate and capacity must be positive, or the model would divide by zero.
  if (!positive(hw.cores) || !positive(hw.freq_ghz) || !positive(hw.l1d_bytes) ||
      !positive(hw.l2_bytes) || !positive(hw.l3_bytes) || !positive(hw.l3_warm_bytes) ||
      !positive(hw.l1d_ways) || !positive(hw.l2_ways) || hw.page_bytes < 4096 ||
      (hw.page_bytes & (hw.page_bytes - 1)) != 0 || !positive(hw.bw_l1_gbs) ||
      !positive(hw.bw_l2_gbs) || !positive(hw.bw_l3_gbs) || !positive(hw.bw_dram_core_gbs) ||
      !positive(hw.bw_dram_total_gbs) || !positive(hw.fma_per_cycle_avx512) ||
      !positive(hw.fma_per_cycle_avx2) || !positive(hw.pack_gbs) || hw.fork_join_us < 0 ||
      hw.cores > 4096)
    return fail("a capacity, rate or count is not positive (or out of range)");
  // A profile may not claim ISA features the running CPU lacks: kernels would fault.
  const std::string claims = unsupported_feature_claims(hw, detected_hardware());
  if (!claims.empty()) return fail("profile claims ISA features this CPU does not have: " + claims);
  out = std::move(hw);
  return Status::Ok;
}

}  // namespace

Status profile_from_json(const std::string& text, const HardwareProfile& base, HardwareProfile& out,
                         std::string* error) noexcept {
  try {
    return parse_profile(text, base, out, error);
  } catch (const std::bad_alloc&) {
    if (error != nullptr) *error = "out of memory";  // fits the small-string buffer
    return Status::OutOfMemory;
  } catch (...) {
    if (error != nullptr) *error = "invalid profile";  // fits the small-string buffer
    return Status::InvalidProfile;
  }
}

Status load_profile_file(const std::string& path, const HardwareProfile& base, HardwareProfile& out,
                         std::string* error) noexcept {
  try {
    std::string text, why;
    const Status r = read_regular_file(path, kMaxProfileBytes, text, &why);
    if (r != Status::Ok) {
      if (error != nullptr) *error = path + ": " + why;
      return r == Status::OutOfMemory ? r : Status::InvalidProfile;
    }
    HardwareProfile hw;
    const Status s = profile_from_json(text, base, hw, error);
    if (s != Status::Ok) return s;
    hw.source = path;
    out = std::move(hw);
    return Status::Ok;
  } catch (const std::bad_alloc&) {
    if (error != nullptr) *error = "out of memory";
    return Status::OutOfMemory;
  }
}

}  // namespace adaptcore
