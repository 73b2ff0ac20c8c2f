// Baseline x86-64 probe loop for the portable path, which has no FMA: 7 independent addps
// chains and 7 independent mulps chains on xmm registers (4 flops per instruction).
#include "measure/peak_loops.hpp"

namespace adaptcore::measure::loops {

std::uint64_t mul_add_sse(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  if (iters == 0) return 0;
  std::uint64_t n = iters;
  // xmm14 = 0 (addend), xmm15 = 1.0 (multiplier) keep every chain's value constant and normal.
  const float one = 1.0f;
  asm volatile(
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14\n\t"
      "xorps %%xmm\\i, %%xmm\\i\n\t"
      ".endr\n\t"
      "movss %1, %%xmm15\n\t"
      "shufps $0, %%xmm15, %%xmm15\n\t"
      "1:\n\t"
      ".irp i,0,1,2,3,4,5,6\n\t"
      "addps %%xmm14, %%xmm\\i\n\t"
      ".endr\n\t"
      ".irp i,7,8,9,10,11,12,13\n\t"
      "mulps %%xmm15, %%xmm\\i\n\t"
      ".endr\n\t"
      "dec %0\n\t"
      "jnz 1b"
      : "+r"(n)
      : "m"(one)
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
  return iters * 14u * 4u;
#else
  (void)iters;
  return 0;
#endif
}

}  // namespace adaptcore::measure::loops
