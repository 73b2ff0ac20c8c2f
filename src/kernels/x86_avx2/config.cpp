// The avx2 level (AVX2 + FMA3): its fp32 kernels, and bf16 and int8 over them the portable
// way. Compiled with baseline flags: it only points at the tables its units built.
#include "kernels/generic/tables.hpp"
#include "kernels/registry_entry.hpp"
#include "kernels/x86_avx2/tables.hpp"

namespace adaptcore::kernels {

const Level& level_avx2() noexcept {
  static const Bf16ConvertKernels bf16(avx2_kernels());
  static const LowpKernels int8 = portable_int8_kernels(Isa::Avx2);
  static const Level level{Isa::Avx2, &avx2_kernels(), &bf16.table, &int8};
  return level;
}

}  // namespace adaptcore::kernels
