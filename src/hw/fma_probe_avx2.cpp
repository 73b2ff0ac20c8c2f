// AVX2 FMA probe loop: 14 independent ymm accumulators (VEX encoding reaches ymm0-15 only), two
// constant operands. Compiled with -mavx2 -mfma; called only on CPUs that have them.
#include "hw/fma_probe.hpp"

namespace adaptcore::probes {

std::uint64_t fma_loop_avx2(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  if (iters == 0) return 0;
  std::uint64_t n = iters;
  asm volatile(
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
      "vxorps %%ymm\\i, %%ymm\\i, %%ymm\\i\n\t"
      ".endr\n\t"
      "1:\n\t"
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13\n\t"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm\\i\n\t"
      ".endr\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper"
      : "+r"(n)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
  return iters * 14u * 8u * 2u;
#else
  (void)iters;
  return 0;
#endif
}

}  // namespace adaptcore::probes
