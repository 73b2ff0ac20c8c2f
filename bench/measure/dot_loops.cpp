// The dot-product probe loops: the core's zmm probe body (hw/zmm_probe_asm.hpp) with vdpbf16ps
// and vpdpbusd. Each runs only after path_supported() found its instruction on the CPU; the unit
// is compiled with the flags of both so the assembler accepts them.
#include "hw/zmm_probe_asm.hpp"
#include "measure/peak_loops.hpp"

namespace adaptcore::measure::loops {

using probes::kZmmAccumulators;
using probes::kZmmLanes;

std::uint64_t dot_bf16_avx512(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  std::uint64_t n = iters;
  if (n != 0) ADAPTCORE_ZMM_PROBE("vdpbf16ps", n);
#endif
  return iters * kZmmAccumulators * kZmmLanes * 4u;  // 2 multiply-adds per lane
}

std::uint64_t dot_int8_vnni(std::uint64_t iters) noexcept {
#if defined(__x86_64__)
  std::uint64_t n = iters;
  if (n != 0) ADAPTCORE_ZMM_PROBE("vpdpbusd", n);
#endif
  return iters * kZmmAccumulators * kZmmLanes * 8u;  // 4 multiply-adds per lane
}

}  // namespace adaptcore::measure::loops
