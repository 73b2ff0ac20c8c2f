// The body of the zmm throughput probes, one macro for every instruction probed: 24 independent
// accumulators (zmm0-23), each updated once per iteration by `insn` with the two constant
// registers zmm30 and zmm31 as its other operands, so nothing but the instruction's issue rate
// limits the loop. Used by the core's FMA probe (vfmadd231ps, fma_probe_avx512.cpp) and by the
// dot-product probes of `adaptcore peak` (vdpbf16ps, vpdpbusd, bench/measure/dot_loops.cpp).
// A unit expanding it must be compiled with AVX-512 enabled (the clobbers name xmm16 and up)
// and run it only on CPUs with the instruction. `n` (a std::uint64_t lvalue, > 0) counts the
// iterations down to 0.
//
// Zeroed operands: the instructions' speed does not depend on the values, and zeros keep stale
// denormals from slowing the FMAs and the accumulators from reaching infinity or wrapping.
#pragma once

#if defined(__x86_64__)
#define ADAPTCORE_ZMM_PROBE(insn, n)                                                              \
  asm volatile(                                                                                   \
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,30,31\n\t"            \
      "vpxord %%zmm\\i, %%zmm\\i, %%zmm\\i\n\t"                                                   \
      ".endr\n\t"                                                                                 \
      "1:\n\t"                                                                                    \
      ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23\n\t" insn             \
      " %%zmm30, %%zmm31, %%zmm\\i\n\t"                                                           \
      ".endr\n\t"                                                                                 \
      "dec %0\n\t"                                                                                \
      "jnz 1b\n\t"                                                                                \
      "vzeroupper"                                                                                \
      : "+r"(n)                                                                                   \
      :                                                                                           \
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",     \
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", \
        "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31")
#endif

namespace adaptcore::probes {
// Accumulators and fp32 lanes of the zmm probe: one iteration issues 24 instructions of 16 lanes.
inline constexpr unsigned kZmmAccumulators = 24, kZmmLanes = 16;
}  // namespace adaptcore::probes
