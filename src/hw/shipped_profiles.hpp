// Hardware profiles measured on the microarchitectures the project has met, compiled into the
// library (src/hw/profiles/*.json, embedded by cmake/ShippedProfiles.cmake) and keyed by CPUID
// vendor, family and model. A context starts from the detected profile with the matching
// shipped profile's measured fields over it (default_hardware()); a CPU none matches exactly
// takes the row-stream terms of the nearest of its vendor's. docs/MODEL.md, "Shipped profiles",
// says how each was measured.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "adaptcore/hardware.hpp"
#include "hw/cpu_identity.hpp"

namespace adaptcore {

struct ShippedProfile {
  const char* file;  // e.g. "amd-zen4.json"
  const char* text;  // the JSON profile
};

// Every profile of this build, in file-name order.
std::span<const ShippedProfile> shipped_profiles() noexcept;

struct ShippedMatch {
  const ShippedProfile* profile = nullptr;  // null: none of the CPU's vendor
  bool exact = false;                       // its family and one of its models are the CPU's
  bool same_vector_isa = true;    // its "cpu_avx512" agrees with the CPU's (or one is unknown)
  std::string microarchitecture;  // the profile's "microarchitecture"
};

// The shipped profile for a CPU: the one listing its vendor, family and model; else the same
// vendor's nearest: one of the same vector ISA first (the profile's "cpu_avx512" against
// `avx512`, the CPU's AVX-512 Foundation; either unknown: no preference), then the same
// family, then the nearest model number, then the nearest family.
ShippedMatch match_shipped_profile(const CpuIdentity& id,
                                   std::optional<bool> avx512 = std::nullopt);

// `base` with the shipped profile's fields over it and `source` naming it: all of them for the
// CPU's own profile, only the row-stream terms (l3_row_*, and l2_row_share_paged / _long,
// dram_in_place_loss / _share, dram_pack_share, dram_self_streaming_rows / _row_bytes,
// few_row_stream_exponent and kernel_call_cycles where the vector ISA is the same: its tiles and
// packers are the ones measured) for the nearest of its vendor's; base unchanged, with a source
// that says no profile matched, when none does. Never throws; a shipped profile that does not load
// (a build error the tests catch) leaves base.
HardwareProfile apply_shipped_profile(const HardwareProfile& base, const CpuIdentity& id);

}  // namespace adaptcore
