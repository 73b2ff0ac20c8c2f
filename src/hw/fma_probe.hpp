// The FMA throughput probe: how many vector FMAs per cycle one core really sustains at a vector
// width.
// Needed because it differs from the ISA's nominal width: some cores run a 512-bit FMA as two
// 256-bit halves (one zmm FMA per cycle), others issue two per cycle (docs/MODEL.md, "Hardware
// profile"). This is the project's only FMA probe: detection compares the two widths with it,
// calibration (tools/calibrate) measures the issue rate with it, and `adaptcore peak`
// (bench/measure/peak_probe) runs its loops on every thread at once.
#pragma once

#include <cstdint>

#include "adaptcore/hardware.hpp"

namespace adaptcore {

namespace probes {
// `iters` iterations of independent vector FMAs on constant operands (24 zmm accumulators;
// 14 ymm, as VEX reaches ymm0-15 only); returns the flops executed. The caller must check that
// the CPU has the features. 2 FMA pipes x 4-5 cycles of latency need at most 10 chains.
std::uint64_t fma_loop_avx512(std::uint64_t iters) noexcept;  // fma_probe_avx512.cpp
std::uint64_t fma_loop_avx2(std::uint64_t iters) noexcept;    // fma_probe_avx2.cpp
}  // namespace probes

using FmaLoop = std::uint64_t (*)(std::uint64_t iters) noexcept;
// The probe loop at a vector width (512 or 256 bits on x86-64) where `have` holds the features
// it needs; nullptr otherwise (no loop for that width in this build, or features missing).
FmaLoop fma_loop(int vector_bits, FeatureSet have) noexcept;

// Sustained fp32 GFLOP/s of the calling thread at a vector width over about `seconds` of wall
// time; 0 if there is no loop for the width. The caller must check the CPU has its features
// (fma_loop with the CPU's set).
double measure_fma_gflops(int vector_bits, double seconds) noexcept;

}  // namespace adaptcore
