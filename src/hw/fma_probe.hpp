// FMA throughput probes: how many vector FMAs per cycle one core really sustains on a path.
// Needed because it differs from the ISA's nominal width: Zen 4 runs a 512-bit FMA as two
// 256-bit halves (one zmm FMA per cycle), Zen 5 and server Intel parts issue two per cycle.
#pragma once

#include "adaptcore/types.hpp"

namespace adaptcore {

// Sustained fp32 GFLOP/s of one thread on `isa` over about `seconds` of work; 0 if the path is
// not compiled in. The caller must check the CPU supports the path.
double measure_fma_gflops(Isa isa, double seconds) noexcept;

namespace probes {
double fma_gflops_avx512(double seconds) noexcept;
double fma_gflops_avx2(double seconds) noexcept;
}  // namespace probes

}  // namespace adaptcore
