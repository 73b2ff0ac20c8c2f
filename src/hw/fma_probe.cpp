#include "hw/fma_probe.hpp"

namespace adaptcore {

double measure_fma_gflops(Isa isa, double seconds) noexcept {
  switch (isa) {
    case Isa::Avx512: return probes::fma_gflops_avx512(seconds);
    case Isa::Avx2: return probes::fma_gflops_avx2(seconds);
    default: return 0.0;
  }
}

}  // namespace adaptcore
