#include "hw/fma_probe.hpp"

#include <chrono>

namespace adaptcore {

FmaLoop fma_loop(int vector_bits, FeatureSet have) noexcept {
#if defined(__x86_64__)
  if (vector_bits == 512 && have.has(Feature::Avx512F)) return &probes::fma_loop_avx512;
  if (vector_bits == 256 && have.contains(FeatureSet(Feature::Fma3) | Feature::Avx2))
    return &probes::fma_loop_avx2;
#else
  (void)vector_bits, (void)have;
#endif
  return nullptr;
}

double measure_fma_gflops(int vector_bits, double seconds) noexcept {
  const FmaLoop loop = fma_loop(vector_bits, FeatureSet(~0u));
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
