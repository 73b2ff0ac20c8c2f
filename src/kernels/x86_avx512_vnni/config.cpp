// The avx512_vnni level (AVX512-VNNI + BW on top of avx512): int8 and weight-quantized GEMM on
// vpdpbusd. fp32 and bf16 stay the avx512 level's.
#include "kernels/registry_entry.hpp"
#include "kernels/x86_avx512_vnni/tables.hpp"

namespace adaptcore::kernels {

const Level& level_avx512_vnni() noexcept {
  static const Level level{Isa::Avx512Vnni, nullptr, nullptr, &int8_vnni_kernels(),
                           &wq_vnni_kernels()};
  return level;
}

}  // namespace adaptcore::kernels
