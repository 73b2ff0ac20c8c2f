// Measured fp32 arithmetic peak of this machine: T pinned threads each run a loop of independent
// vector FMAs (or multiply + add pairs on the baseline path) at the same time, and the probe
// reports the aggregate GFLOP/s. Used by `adaptcore run`/`adaptcore peak` and the benchmarks to
// state results as a fraction of what the cores really sustain, not of a nominal figure (a Zen 4
// core issues one 512-bit FMA per cycle, not two, and clocks drift under virtualisation). The
// FMA paths run the core's probe loops (hw/fma_probe.hpp), the one FMA probe of the project.
#pragma once

#include <string>
#include <vector>

#include "adaptcore/types.hpp"
#include "measure/cpus.hpp"

namespace adaptcore::measure {

// The instruction mixes that can be probed.
//   Avx512: vfmadd231ps on zmm registers, 24 independent accumulators
//   Avx2:   vfmadd231ps on ymm registers, 14 accumulators (VEX encoding has 16 registers;
//           14 chains still cover 2 pipes x 4 cycles of latency with room to spare)
//   Sse:    mulps + addps on xmm registers (baseline x86-64, what the portable kernels use),
//           7 + 7 independent chains; counted as 4 flops per instruction
//   Bf16Dot: vdpbf16ps on zmm registers (AVX512-BF16), 24 accumulators; 16 lanes x 2
//            multiply-adds = 64 ops per instruction
//   Int8Dot: vpdpbusd on zmm registers (AVX512-VNNI), 24 accumulators; 16 lanes x 4
//            multiply-adds = 128 ops per instruction
// The dot paths report GOP/s in the `gflops` fields (one multiply-add = 2 ops).
enum class FmaPath { Avx512, Avx2, Sse, Bf16Dot, Int8Dot };

const char* to_string(FmaPath p) noexcept;
// True if the running CPU (and OS) supports the instructions of the path.
bool path_supported(FmaPath p) noexcept;
// The probe matching a library ISA path (Generic -> Sse).
FmaPath path_for(Isa isa) noexcept;

struct PeakResult {
  FmaPath path = FmaPath::Sse;
  int threads = 0;
  double gflops = 0.0;             // aggregate of all threads, best trial
  std::vector<double> per_thread;  // each thread's own rate in the best trial
  std::vector<int> cpus;           // CPU each thread was pinned to (-1: not pinned)
};

// Runs `threads` threads concurrently, pinned round-robin to the CPUs this process may use,
// each for about `seconds` after a short warm-up; repeats `trials` times and keeps the best
// aggregate (total flops / span from the first start to the last finish). Returns gflops == 0
// if the path is unsupported.
PeakResult measure_peak(FmaPath path, int threads, double seconds = 0.05, int trials = 3);

}  // namespace adaptcore::measure
