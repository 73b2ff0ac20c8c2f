// Plan files: plans saved ahead of time (`adaptcore precompile`, Context::save_plan_file) and
// loaded into a context's plan cache (Context::load_plan_file, ADAPTCORE_PLAN_FILE), so a
// process starts with its shapes already planned.
//
// Format (version 3: every plan kind, weight-quantized ones too, keys of prepacked weights),
// little-endian, fixed-width fields, every field written explicitly:
//
//   magic        8 bytes  "ACPLAN\0\0"
//   format       u32      kPlanFileFormat
//   lib_len      u32      length of the library version string (1..64)
//   lib_version  lib_len bytes, adaptcore::version() of the writer
//   isa          u32      the ISA path the plans were made for (every key has this ISA)
//   fingerprint  u64      hardware_fingerprint(profile, isa)
//   count        u64      number of entries
//   entries      count x kPlanEntryBytes (ShapeKey fields, then Plan fields; see plan_file.cpp)
//   checksum     u64      FNV-1a 64 over every byte before it
//
// Loading is all or nothing: a file that is not exactly this (truncated, trailing bytes,
// checksum, another format, library version, hardware or ISA) or that holds any entry whose
// plan is invalid or unsafe for its key loads nothing, and the reason is reported.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "core/shape_key.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

namespace detail {
class ContextImpl;
}

inline constexpr std::uint32_t kPlanFileFormat = 4;
inline constexpr char kPlanFileMagic[8] = {'A', 'C', 'P', 'L', 'A', 'N', '\0', '\0'};
inline constexpr std::size_t kPlanEntryBytes = 110;
inline constexpr std::size_t kPlanLibVersionMax = 64;

using PlanEntry = std::pair<ShapeKey, Plan>;

// FNV-1a 64 over bytes (the file's checksum), continuing from h.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL) noexcept;

// Hash over what plans depend on and detection reproduces: ISA feature flags, cores, cache
// sizes and ways, FMA issue rates, the CPU name, and the ISA path the plans were made for.
// (The measured clock and bandwidths move from run to run and are not part of it.)
std::uint64_t hardware_fingerprint(const HardwareProfile& hw, Isa isa) noexcept;

// Serialises entries as a complete file. Writes whatever it is given (no validation), so tests
// can build files holding bad plans; lib_version defaults to this library's.
std::string write_plan_bytes(const std::vector<PlanEntry>& entries, const HardwareProfile& hw,
                             Isa isa, std::string_view lib_version = {});

// Empty when `plan` is a valid, safe plan for `key` on this build and CPU, for a context whose
// profile is `hw` (which decides the low-precision kernels, kernel_select.hpp); else the reason.
std::string check_plan_entry(const ShapeKey& key, const Plan& plan, const HardwareProfile& hw);
// The same for a context on the detected profile.
std::string check_plan_entry(const ShapeKey& key, const Plan& plan);

// What a file must match to be loaded: the loading context's profile and ISA.
struct PlanFileTarget {
  const HardwareProfile* hw = nullptr;
  Isa isa = Isa::Generic;
};

// Parses and validates a whole file image. Ok: `out` holds every entry. Otherwise
// Status::InvalidPlanFile, `out` is empty and `reason` (if given) says why. Never throws.
Status parse_plan_bytes(std::string_view bytes, const PlanFileTarget& target,
                        std::vector<PlanEntry>& out, std::string* reason = nullptr) noexcept;

// Parses bytes for this context and inserts every plan into its cache (all or nothing). Quiet:
// reports only through the status and `error`. `loaded` gets the number of plans inserted.
Status load_plan_bytes(detail::ContextImpl& ctx, std::string_view bytes,
                       std::string* error = nullptr, std::size_t* loaded = nullptr) noexcept;

// Reads a file and loads it like load_plan_bytes; on failure also prints
//   adaptcore: plan file <path> ignored: <reason>
// on stderr. Used by Context::load_plan_file and ADAPTCORE_PLAN_FILE.
Status load_plan_file(detail::ContextImpl& ctx, const std::string& path,
                      std::string* error = nullptr) noexcept;

// Writes every cached plan of the context's active ISA (through a temporary file renamed into
// place, so readers never see half a file).
Status save_plan_file(detail::ContextImpl& ctx, const std::string& path,
                      std::string* error = nullptr) noexcept;
// Writes the given entries for (hw, isa) to path the same way.
Status write_plan_file(const std::string& path, const std::vector<PlanEntry>& entries,
                       const HardwareProfile& hw, Isa isa, std::string* error = nullptr) noexcept;

}  // namespace adaptcore
