#include "hw/fma_probe.hpp"

#include <chrono>

namespace adaptcore {

FmaLoop fma_loop(Isa isa) noexcept {
  switch (isa) {
    case Isa::Avx512: return &probes::fma_loop_avx512;
    case Isa::Avx2: return &probes::fma_loop_avx2;
    default: return nullptr;
  }
}

double measure_fma_gflops(Isa isa, double seconds) noexcept {
  const FmaLoop loop = fma_loop(isa);
  if (loop == nullptr) return 0.0;
  // Iterations between clock reads: about 0.1 M FMAs, tens of microseconds, so detection's
  // sub-millisecond windows overshoot by little.
  constexpr std::uint64_t kChunk = 4096;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  double flops = 0.0, elapsed = 0.0;
  do {
    flops += static_cast<double>(loop(kChunk));
    elapsed = std::chrono::duration<double>(clock::now() - t0).count();
  } while (elapsed < seconds);
  return elapsed > 0.0 ? flops / elapsed * 1e-9 : 0.0;
}

}  // namespace adaptcore
