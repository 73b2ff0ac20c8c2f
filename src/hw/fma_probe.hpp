// The FMA throughput probe: how many vector FMAs per cycle one core really sustains on a path.
// Needed because it differs from the ISA's nominal width: some cores run a 512-bit FMA as two
// 256-bit halves (one zmm FMA per cycle), others issue two per cycle (docs/MODEL.md, "Hardware
// profile"). This is the project's only FMA probe: detection compares the two widths with it,
// calibration (tools/calibrate) measures the issue rate with it, and `adaptcore peak`
// (bench/measure/peak_probe) runs its loops on every thread at once.
#pragma once

#include <cstdint>

#include "adaptcore/types.hpp"

namespace adaptcore {

namespace probes {
// `iters` iterations of independent vector FMAs on constant operands (24 zmm accumulators;
// 14 ymm, as VEX reaches ymm0-15 only); returns the flops executed. The caller must check that
// the CPU supports the path. 2 FMA pipes x 4-5 cycles of latency need at most 10 chains.
std::uint64_t fma_loop_avx512(std::uint64_t iters) noexcept;  // fma_probe_avx512.cpp
std::uint64_t fma_loop_avx2(std::uint64_t iters) noexcept;    // fma_probe_avx2.cpp
}  // namespace probes

using FmaLoop = std::uint64_t (*)(std::uint64_t iters) noexcept;
// The probe loop of a path; nullptr for a path without FMA (generic).
FmaLoop fma_loop(Isa isa) noexcept;

// Sustained fp32 GFLOP/s of the calling thread on `isa` over about `seconds` of wall time; 0 if
// the path has no FMA loop. The caller must check that the CPU supports the path.
double measure_fma_gflops(Isa isa, double seconds) noexcept;

}  // namespace adaptcore
