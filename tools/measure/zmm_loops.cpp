// The zmm probe loops: 24 independent accumulators, each updated once per iteration by one
// instruction whose two other operands are constant registers, so nothing but that
// instruction's issue rate limits the loop. One body serves vfmadd231ps, vdpbf16ps and
// vpdpbusd; each loop runs only after path_supported() found its instruction on the CPU. The
// unit is compiled with the flags of all three so the assembler accepts them.
#include "measure/fma_loops.hpp"

namespace adaptcore::measure::loops {
namespace {

#if defined(__x86_64__)
// Zeroed operands: the instructions' speed does not depend on the values, zeros keep stale
// denormals from slowing the FMAs and the accumulators from reaching infinity or wrapping.
#define ADAPTCORE_ZMM_PROBE(insn, n)                                                          \
  asm volatile(                                                                               \
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,30,31\n\t"        \
      "vpxord %%zmm\\i, %%zmm\\i, %%zmm\\i\n\t"                                              \
      ".endr\n\t"                                                                             \
      "1:\n\t"                                                                                \
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23\n\t"              \
      insn " %%zmm30, %%zmm31, %%zmm\\i\n\t"                                                  \
      ".endr\n\t"                                                                             \
      "dec %0\n\t"                                                                            \
      "jnz 1b\n\t"                                                                            \
      "vzeroupper"                                                                            \
      : "+r"(n)                                                                               \
      :                                                                                       \
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",      \
        "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31")
#endif

constexpr std::uint64_t kAccumulators = 24, kLanes = 16;

}  // namespace

std::uint64_t fma_avx512(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  std::uint64_t n = iters;
  if (n != 0) ADAPTCORE_ZMM_PROBE("vfmadd231ps", n);
#endif
  return iters * kAccumulators * kLanes * 2u;  // 1 multiply-add per lane
}

std::uint64_t dot_bf16_avx512(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  std::uint64_t n = iters;
  if (n != 0) ADAPTCORE_ZMM_PROBE("vdpbf16ps", n);
#endif
  return iters * kAccumulators * kLanes * 4u;  // 2 multiply-adds per lane
}

std::uint64_t dot_int8_vnni(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  std::uint64_t n = iters;
  if (n != 0) ADAPTCORE_ZMM_PROBE("vpdpbusd", n);
#endif
  return iters * kAccumulators * kLanes * 8u;  // 4 multiply-adds per lane
}

}  // namespace adaptcore::measure::loops
