// JSON round trip of the Ascend profile (nlohmann/json, as the CPU profile).
#include "targets/ascend/profile.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/flat_json.hpp"

namespace adaptcore::ascend {
namespace {

constexpr const char* kFormat = "adaptcore-ascend-profile";
constexpr int kVersion = 1;

// One field table for both directions, so reading and writing cannot drift apart.
template <class F>
void for_each_field(AscendProfile& p, F&& f) {
  f("name", p.name);
  f("ai_cores", p.ai_cores);
  f("freq_ghz", p.freq_ghz);
  f("cube_m", p.cube_m);
  f("cube_n", p.cube_n);
  f("cube_k_fp16", p.cube_k_fp16);
  f("cube_k_int8", p.cube_k_int8);
  f("l1_bytes", p.l1_bytes);
  f("l0a_bytes", p.l0a_bytes);
  f("l0b_bytes", p.l0b_bytes);
  f("l0c_bytes", p.l0c_bytes);
  f("ub_bytes", p.ub_bytes);
  f("align_l0ab", p.align_l0ab);
  f("align_l0c", p.align_l0c);
  f("align_l1", p.align_l1);
  f("align_ub", p.align_ub);
  f("gm_sector_bytes", p.gm_sector_bytes);
  f("l2_bytes", p.l2_bytes);
  f("hbm_gbs", p.hbm_gbs);
  f("l2_gbs", p.l2_gbs);
  f("gm_to_l1_bytes_per_cycle", p.gm_to_l1_bytes_per_cycle);
  f("l1_to_l0_bytes_per_cycle", p.l1_to_l0_bytes_per_cycle);
  f("l0c_to_gm_bytes_per_cycle", p.l0c_to_gm_bytes_per_cycle);
  f("ub_bytes_per_cycle", p.ub_bytes_per_cycle);
  f("gm_row_overhead_cycles", p.gm_row_overhead_cycles);
  f("move_latency_cycles", p.move_latency_cycles);
  f("launch_us", p.launch_us);
  f("max_event_ids", p.max_event_ids);
}

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

// The checks every profile must pass, whatever its source: the model divides by the rates and
// the planner needs room for at least one fractal in every buffer.
std::string check(const AscendProfile& p) {
  if (p.ai_cores < 1 || p.ai_cores > 1024) return "ai_cores must be in [1, 1024]";
  if (!(p.freq_ghz > 0) || p.freq_ghz > 10) return "freq_ghz must be in (0, 10]";
  if (p.cube_m != 16 || p.cube_n != 16 || p.cube_k_fp16 != 16 || p.cube_k_int8 != 32)
    return "the cube shape must be 16x16x16 (fp16) and 16x32x16 (int8): the fractal (NZ) "
           "layout depends on it";
  if (!power_of_two(p.align_l0ab) || !power_of_two(p.align_l0c) || !power_of_two(p.align_l1) ||
      !power_of_two(p.align_ub) || !power_of_two(p.gm_sector_bytes))
    return "alignments and the GM sector must be powers of two";
  // One 16x16 fp16 fractal is 512 bytes, one 16x16 fp32 fractal 1 KiB: double buffered, the
  // smallest base block needs twice that in each buffer.
  if (p.l0a_bytes < 1024 || p.l0b_bytes < 1024 || p.l0c_bytes < 2048 || p.l1_bytes < 4096 ||
      p.ub_bytes < 4096)
    return "a buffer is too small for one double-buffered fractal";
  if (p.l0a_bytes > (1 << 30) || p.l0b_bytes > (1 << 30) || p.l0c_bytes > (1 << 30) ||
      p.l1_bytes > (1 << 30) || p.ub_bytes > (1 << 30))
    return "a core buffer is larger than 1 GiB";
  // An alignment is a small part of the buffer it aligns: the relayout pass splits UB into a
  // zero block and two halves rounded to align_ub, and an alignment of a whole buffer left
  // halves of 0 bytes (a division by zero building the pass).
  // (In 64 bits: an alignment may be up to 2^30.)
  if (int64_t{p.align_ub} * 8 > p.ub_bytes || int64_t{p.align_l1} * 8 > p.l1_bytes ||
      int64_t{p.align_l0ab} * 2 > std::min(p.l0a_bytes, p.l0b_bytes) ||
      int64_t{p.align_l0c} * 2 > p.l0c_bytes)
    return "an alignment must be at most an eighth of UB and L1 and half of L0A, L0B and L0C";
  if (p.gm_sector_bytes > 65536) return "gm_sector_bytes must be at most 64 KiB";
  if (p.l2_bytes <= 0) return "l2_bytes must be positive";
  if (!(p.hbm_gbs > 0) || !(p.l2_gbs > 0) || !(p.gm_to_l1_bytes_per_cycle > 0) ||
      !(p.l1_to_l0_bytes_per_cycle > 0) || !(p.l0c_to_gm_bytes_per_cycle > 0) ||
      !(p.ub_bytes_per_cycle > 0))
    return "bandwidths must be positive";
  if (!(p.gm_row_overhead_cycles >= 0) || !(p.move_latency_cycles >= 0) || !(p.launch_us >= 0))
    return "latencies and overheads must not be negative";
  if (p.max_event_ids < 2 || p.max_event_ids > 64) return "max_event_ids must be in [2, 64]";
  return {};
}

}  // namespace

bool builtin_profile(const std::string& target, AscendProfile& out) {
  if (target != "ascend910b") return false;
  out = AscendProfile{};
  return true;
}

std::string to_json(const AscendProfile& in) {
  AscendProfile p = in;
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  for_each_field(p, [&](const char* key, auto& v) { j[key] = v; });
  return j.dump(2);
}

Status profile_from_json(const std::string& text, const AscendProfile& base, AscendProfile& out,
                         std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error != nullptr) *error = why;
    return Status::InvalidProfile;
  };
  // The CPU profile's reader (core/flat_json.hpp), without its rejection of a NUL byte.
  FlatJsonObject obj;
  if (const std::string why = obj.parse(text, kFormat, kVersion); !why.empty()) return fail(why);
  AscendProfile p = base;
  FieldReader read(obj);
  for_each_field(p, read);
  if (!read.bad.empty())
    return fail("field '" + read.bad + "' has the wrong type or is out of range");
  std::set<std::string> known = {"format", "version", "comment", "sources"};
  for_each_field(p, [&](const char* key, auto&) { known.insert(key); });
  // The first unknown key in sorted order, as a JSON tree lists the members.
  std::set<std::string> unknown;
  for (const auto& member : obj.members())
    if (known.count(member.first) == 0) unknown.insert(member.first);
  if (!unknown.empty()) return fail("unknown field '" + *unknown.begin() + "'");
  const std::string why = check(p);
  if (!why.empty()) return fail(why);
  out = p;
  return Status::Ok;
}

Status load_profile_file(const std::string& path, const AscendProfile& base, AscendProfile& out,
                         std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error != nullptr) *error = "cannot open " + path;
    return Status::InvalidProfile;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const Status s = profile_from_json(ss.str(), base, out, error);
  if (s == Status::Ok) out.source = path;
  return s;
}

}  // namespace adaptcore::ascend
