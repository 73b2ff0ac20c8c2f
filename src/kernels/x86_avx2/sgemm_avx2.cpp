// AVX2 + FMA3 fp32 micro-kernels and packing. Compiled with -mavx2 -mfma only; reached through
// the registry (config.cpp) after the context checked the CPU supports both.
#include "kernels/fp32_kernels.hpp"
#include "kernels/pack_template.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/x86_avx2/pack_transpose_avx2.hpp"
#include "kernels/x86_avx2/tables.hpp"
#include "kernels/x86_avx2/transposed_store_avx2.hpp"
#include "kernels/x86_avx2/vec_avx2.hpp"

namespace {

using namespace adaptcore::kernels;

// 16 ymm registers: 6x16 (12 accumulators + 2 B + 1 broadcast) is the compute tile; 4x24 (12
// accumulators + 3 B + 1) reads B more efficiently for short M. Both also store transposed
// (Plan::transpose_c: C of at most 6 or 4 columns, its rows along the lanes).
using Avx2 = Fp32Kernels<VecAvx2, Tile<6, 2, void, TransposedStoreAvx2>,
                         Tile<4, 3, void, TransposedStoreAvx2>>;

// The B packer transposes 8 lines in registers, as fast as the row-major copy on Zen 3 (B stored
// transposed at 14-17 GB/s warm against 10-13 for rows), and so does the dot plans' block
// transpose (docs/MODEL.md, "Fitted constants": F23, F24).
constexpr PackCosts kPackCosts{1.0, 0.5};
constexpr IsaKernels kAvx2 = Avx2::table(adaptcore::Isa::Avx2, false, &pack_a_rows_avx2,
                                         &pack_b_cols_avx2, &transpose_block_avx2, kPackCosts);
}  // namespace

namespace adaptcore::kernels {
const IsaKernels& avx2_kernels() noexcept { return kAvx2; }
}  // namespace adaptcore::kernels
