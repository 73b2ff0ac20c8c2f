// Hardware profiles measured on the microarchitectures the project has met, compiled into the
// library (src/hw/profiles/*.json, embedded by cmake/ShippedProfiles.cmake) and keyed by CPUID
// vendor, family and model. A context starts from the detected profile with the matching
// shipped profile's measured fields over it (default_hardware()); a CPU none matches exactly
// takes the row-stream terms of the nearest of its vendor's. docs/MODEL.md, "Shipped profiles",
// says how each was measured.
#pragma once

#include <cstddef>
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
  std::string microarchitecture;            // the profile's "microarchitecture"
};

// The shipped profile for a CPU: the one listing its vendor, family and model; else the same
// vendor's nearest (same family first, then the nearest model number, then the nearest
// family).
ShippedMatch match_shipped_profile(const CpuIdentity& id);

// `base` with the shipped profile's fields over it and `source` naming it: all of them for the
// CPU's own profile, only the row-stream terms (l3_row_*) for the nearest of its vendor's; base
// unchanged, with a source that says no profile matched, when none does. Never throws; a shipped
// profile that does not load (a build error the tests catch) leaves base.
HardwareProfile apply_shipped_profile(const HardwareProfile& base, const CpuIdentity& id);

}  // namespace adaptcore
