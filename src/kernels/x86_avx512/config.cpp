// The avx512 level (AVX-512F + VL on top of avx2): its fp32 kernels, and bf16 and int8 over
// them the portable way. The weight-quantized kernels stay the generic level's.
#include "kernels/generic/tables.hpp"
#include "kernels/registry_entry.hpp"
#include "kernels/x86_avx512/tables.hpp"

namespace adaptcore::kernels {

const Level& level_avx512() noexcept { return fp32_level<Isa::Avx512, &avx512_kernels>(); }

}  // namespace adaptcore::kernels
