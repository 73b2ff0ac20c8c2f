// Whether this process may run AMX tile instructions, asked once. Three conditions: the CPU has
// AMX-TILE, AMX-BF16 and AMX-INT8 (CPUID leaf 7), the OS saves tile state (XCR0 bits 17 and
// 18), and Linux granted the process the tile data state (arch_prctl(ARCH_REQ_XCOMP_PERM,
// XFEATURE_XTILEDATA)): without the grant the first tile load raises SIGILL. The grant is
// requested only when asked for (the first AMX plan), never at start-up: it enlarges every
// signal frame of the process by the 8 KiB of tile data, which a host program's small
// alternate signal stacks may not hold (docs/RUNTIME.md, "AMX"). A fork inherits the grant;
// exec clears it.
#pragma once

#include <string>

namespace adaptcore {

struct AmxSupport {
  bool cpu = false;        // CPUID: AMX-TILE, AMX-BF16, AMX-INT8
  bool os = false;         // XCR0: XTILECFG and XTILEDATA enabled
  bool permitted = false;  // the process holds the tile data permission
  std::string why;         // when not usable: which condition failed
  bool usable() const noexcept { return cpu && os && permitted; }
};

// The CPU and OS conditions only (no request): what detection reports.
AmxSupport amx_capability() noexcept;

// All three, requesting the permission on the first call (thread-safe, once per process).
const AmxSupport& amx_support() noexcept;

}  // namespace adaptcore
