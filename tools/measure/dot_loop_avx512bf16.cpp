// vdpbf16ps probe loop: 24 independent zmm accumulators, two constant operands of bf16 pairs.
// Compiled with -mavx512f -mavx512bf16; only called after path_supported(FmaPath::Bf16Dot).
#include "measure/fma_loops.hpp"

namespace adaptcore::measure::loops {

std::uint64_t dot_bf16_avx512(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  if (iters == 0) return 0;
  std::uint64_t n = iters;
  // Zeroed operands: the instruction's speed does not depend on the values, and zeros keep
  // the accumulators from ever reaching infinity.
  asm volatile(
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,30,31\n\t"
      "vpxord %%zmm\\i, %%zmm\\i, %%zmm\\i\n\t"
      ".endr\n\t"
      "1:\n\t"
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23\n\t"
      "vdpbf16ps %%zmm30, %%zmm31, %%zmm\\i\n\t"
      ".endr\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper"
      : "+r"(n)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",
        "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31");
  // 16 lanes x 2 multiply-adds (4 flops) per instruction.
  return iters * 24u * 16u * 4u;
#else
  (void)iters;
  return 0;
#endif
}

}  // namespace adaptcore::measure::loops
