// JSON round trip of the hardware profile (nlohmann/json, header-only: no runtime dependency).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

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

// A profile's features as one boolean field each, named as to_string(Feature) names them.
struct FeatureFlags {
  std::array<bool, kFeatureCount> on{};

  explicit FeatureFlags(FeatureSet s) noexcept {
    for (int i = 0; i < kFeatureCount; ++i) on[static_cast<std::size_t>(i)] = s.has(feature(i));
  }
  FeatureSet set() const noexcept {
    FeatureSet s;
    for (int i = 0; i < kFeatureCount; ++i) s.set(feature(i), on[static_cast<std::size_t>(i)]);
    return s;
  }
  static Feature feature(int i) noexcept { return static_cast<Feature>(1u << i); }
};

// Field table shared by both directions so the two can never drift apart. With `aliases`, the
// older names of two fields too (read before the current ones, which win when both are given).
template <class F>
void for_each_field(HardwareProfile& hw, FeatureFlags& flags, F&& f, bool aliases = false) {
  f("name", hw.name);
  f("cores", hw.cores);
  for (int i = 0; i < kFeatureCount; ++i)
    f(to_string(FeatureFlags::feature(i)), flags.on[static_cast<std::size_t>(i)]);
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
  if (aliases) {
    f("fma_per_cycle_avx512", hw.fma_per_cycle_512);
    f("fma_per_cycle_avx2", hw.fma_per_cycle_256);
  }
  f("fma_per_cycle_512", hw.fma_per_cycle_512);
  f("fma_per_cycle_256", hw.fma_per_cycle_256);
  f("fma_per_cycle_128", hw.fma_per_cycle_128);
  f("dot_bf16_per_cycle", hw.dot_bf16_per_cycle);
  f("dot_int8_per_cycle", hw.dot_int8_per_cycle);
  f("amx_tiles_per_cycle", hw.amx_tiles_per_cycle);
  f("fork_join_us", hw.fork_join_us);
  f("pack_gbs", hw.pack_gbs);
  f("dram_pack_share", hw.dram_pack_share);
  f("l3_row_streams", hw.l3_row_streams);
  f("l3_row_share_paged", hw.l3_row_share_paged);
  f("l3_row_share", hw.l3_row_share);
  f("l2_row_share_paged", hw.l2_row_share_paged);
  f("l2_row_share_long", hw.l2_row_share_long);
  f("dram_in_place_loss", hw.dram_in_place_loss);
  f("dram_in_place_share", hw.dram_in_place_share);
  f("dram_self_streaming_rows", hw.dram_self_streaming_rows);
  f("few_row_stream_exponent", hw.few_row_stream_exponent);
  f("dram_self_streaming_row_bytes", hw.dram_self_streaming_row_bytes);
  f("kernel_call_cycles", hw.kernel_call_cycles);
}

// The physically plausible range of each numeric field: a value outside it is a broken or
// hostile profile, never a machine (a clock of 1e-308 GHz made the model's costs overflow and
// a prepacked call fail with InternalError). Wide enough for any CPU in sight, from a small
// core to a many-core server; the model stays finite at every bound (HardwareProfile tests).
struct FieldRange {
  const char* key;
  double lo, hi;
  const char* unit;
};
constexpr double kKiB = 1024.0, kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr FieldRange kRanges[] = {
    {"cores", 1, 4096, "cores"},
    {"freq_ghz", 0.1, 10.0, "GHz"},
    {"l1d_bytes", 1 * kKiB, 64 * kKiB* kKiB, "bytes"},
    {"l2_bytes", 4 * kKiB, 4 * kGiB, "bytes"},
    {"l3_bytes", 4 * kKiB, 64 * kGiB, "bytes"},
    {"l3_warm_bytes", 4 * kKiB, 64 * kGiB, "bytes"},
    {"l1d_ways", 1, 256, "ways"},
    {"l2_ways", 1, 256, "ways"},
    {"page_bytes", 4 * kKiB, 1 * kGiB, "bytes"},
    {"bw_l1_gbs", 0.1, 1e5, "GB/s"},
    {"bw_l2_gbs", 0.1, 1e5, "GB/s"},
    {"bw_l3_gbs", 0.1, 1e5, "GB/s"},
    {"bw_dram_core_gbs", 0.1, 1e5, "GB/s"},
    {"bw_dram_total_gbs", 0.1, 1e5, "GB/s"},
    {"fma_per_cycle_512", 0.01, 64, "per cycle"},
    {"fma_per_cycle_256", 0.01, 64, "per cycle"},
    {"fma_per_cycle_128", 0.01, 64, "per cycle"},
    {"dot_bf16_per_cycle", 0.01, 64, "per cycle"},
    {"dot_int8_per_cycle", 0.01, 64, "per cycle"},
    {"amx_tiles_per_cycle", 0.001, 1, "per cycle"},
    {"fork_join_us", 0, 1e6, "us"},
    {"pack_gbs", 0.1, 1e5, "GB/s"},
    {"dram_pack_share", 0.05, 2, "of bw_dram_core_gbs"},
    {"l3_row_streams", 1, 4096, "rows"},
    {"l3_row_share_paged", 0.01, 1, "of bw_l3_gbs"},
    {"l3_row_share", 0.01, 1, "of bw_l3_gbs"},
    {"l2_row_share_paged", 0.01, 1, "of the tile's packed rate"},
    {"l2_row_share_long", 0.01, 1, "of the tile's packed rate"},
    {"dram_in_place_loss", 0, 20, "x the decode core's FMAs at peak"},
    {"dram_in_place_share", 0, 2, "of bw_dram_core_gbs"},
    {"dram_self_streaming_rows", 0, 64, "rows"},
    {"few_row_stream_exponent", 0, 4, "exponent"},
    {"dram_self_streaming_row_bytes", 64, 1 * kGiB, "bytes"},
    {"kernel_call_cycles", 0, 1e5, "cycles"},
};

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// "" or why a field of a profile is out of its range, naming the field.
std::string check_ranges(HardwareProfile& hw) {
  std::string why;
  FeatureFlags flags(hw.features);
  for_each_field(hw, flags, [&](const char* key, auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      if (!why.empty()) return;
      for (const FieldRange& r : kRanges) {
        if (std::strcmp(r.key, key) != 0) continue;
        const auto x = static_cast<double>(v);
        if (!(x >= r.lo && x <= r.hi))  // NaN fails too
          why = std::string("field '") + key + "' is " + format_number(x) + ", outside " +
                format_number(r.lo) + ".." + format_number(r.hi) + " " + r.unit;
        return;
      }
      why = std::string("field '") + key + "' has no range (internal)";
    }
  });
  if (why.empty() && (hw.page_bytes & (hw.page_bytes - 1)) != 0)
    why = "field 'page_bytes' is " + std::to_string(hw.page_bytes) + ", not a power of two";
  return why;
}

// Members of a profile besides its fields: what the writer and `adaptcore calibrate` add.
// A shipped profile (hw/shipped_profiles.hpp) also says which CPUs it is for and how it was
// measured.
constexpr const char* kMetadataKeys[] = {"format",        "version",
                                         "source",        "calibrated",
                                         "calibrated_at", "calibration_threads",
                                         "cpu_vendor",    "cpu_family",
                                         "cpu_models",    "microarchitecture",
                                         "measured_on",   "measured_at",
                                         "measured_by",   "notes",
                                         "cpu_avx512"};

}  // namespace

std::string to_json(const HardwareProfile& hw_in) {
  HardwareProfile hw = hw_in;
  nlohmann::ordered_json j;
  j["format"] = "adaptcore-hardware-profile";
  j["version"] = kFormatVersion;
  j["source"] = hw.source;
  FeatureFlags flags(hw.features);
  for_each_field(hw, flags, [&](const char* key, auto& v) { j[key] = v; });
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
  // The profile is one flat object (core/flat_json.hpp: no JSON tree) whose "format", when
  // given, is this one's; fields it leaves out keep the base's values (a partial override), but
  // every member must be a field or the writer's metadata (a misspelt field is an error, not a
  // silent default) and at least one must be a field.
  FlatJsonObject obj;
  if (const std::string why = obj.parse(text, "adaptcore-hardware-profile", kFormatVersion);
      !why.empty())
    return fail(why);
  HardwareProfile hw = base;
  FeatureFlags flags(hw.features);
  int fields = 0;
  for (const auto& [key, value] : obj.members()) {
    bool known = std::find_if(std::begin(kMetadataKeys), std::end(kMetadataKeys),
                              [&](const char* k) { return key == k; }) != std::end(kMetadataKeys);
    for_each_field(
        hw, flags,
        [&](const char* k, auto&) {
          if (key == k) known = true, ++fields;
        },
        true);
    if (!known) return fail("unknown field '" + key + "'");
  }
  if (fields == 0) return fail("no profile field (an object of metadata only)");
  FieldReader read(obj);
  for_each_field(hw, flags, read, true);
  if (!read.bad.empty()) return fail("field '" + read.bad + "' has the wrong type");
  hw.features = flags.set();
  // Every rate and capacity within its plausible range, or the model's costs divide by zero or
  // overflow.
  if (const std::string why = check_ranges(hw); !why.empty()) return fail(why);
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
