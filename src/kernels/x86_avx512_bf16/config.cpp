// The avx512_bf16 level (AVX512-BF16 on top of avx512_vnni): bf16 GEMM on vdpbf16ps. The
// other tables stay the levels' below.
#include "kernels/registry_entry.hpp"
#include "kernels/x86_avx512_bf16/tables.hpp"

namespace adaptcore::kernels {

const Level& level_avx512_bf16() noexcept {
  static const Level level{Isa::Avx512Bf16, nullptr, &bf16_avx512_kernels()};
  return level;
}

}  // namespace adaptcore::kernels
