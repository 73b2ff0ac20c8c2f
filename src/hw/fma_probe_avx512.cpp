// AVX-512 FMA probe loop; compiled with -mavx512f, called only on CPUs that have it.
#include "hw/fma_probe.hpp"
#include "hw/zmm_probe_asm.hpp"

namespace adaptcore::probes {

std::uint64_t fma_loop_avx512(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  std::uint64_t n = iters;
  if (n != 0) ADAPTCORE_ZMM_PROBE("vfmadd231ps", n);
  return iters * kZmmAccumulators * kZmmLanes * 2u;  // 1 multiply-add per lane
#else
  (void)iters;
  return 0;
#endif
}

}  // namespace adaptcore::probes
