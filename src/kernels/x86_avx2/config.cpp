// The avx2 level (AVX2 + FMA3): its fp32 kernels, and bf16 and int8 over them the portable
// way. Compiled with baseline flags: it only points at the tables its units built.
#include "kernels/generic/tables.hpp"
#include "kernels/registry_entry.hpp"
#include "kernels/x86_avx2/tables.hpp"

namespace adaptcore::kernels {

const Level& level_avx2() noexcept { return fp32_level<Isa::Avx2, &avx2_kernels>(); }

}  // namespace adaptcore::kernels
