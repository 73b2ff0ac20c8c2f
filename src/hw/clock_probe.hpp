// Estimates the core clock by timing a chain of dependent integer additions (one per cycle on
// every x86 core since the P6). /proc and CPUID frequencies are unreliable in virtual machines.
#pragma once

namespace adaptcore {
// Returns GHz; about one millisecond of work. Falls back to 3.0 where it cannot measure.
double measure_clock_ghz() noexcept;
}  // namespace adaptcore
