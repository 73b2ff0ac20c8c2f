// AVX2 + FMA3 fp32 micro-kernels and packing. Compiled with -mavx2 -mfma only; reached through
// avx2_kernels() after the context checked the CPU supports both.
#include <utility>

#include "kernels/dot_tile.hpp"
#include "kernels/kernel_tables.hpp"
#include "kernels/tile_kernels.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/x86_avx2/vec_avx2.hpp"

namespace {
#include "kernels/pack_template.hpp"

using namespace adaptcore::kernels;

// 16 ymm registers: 6x16 (12 accumulators + 2 B + 1 broadcast) is the compute tile; 4x24 (12
// accumulators + 3 B + 1) reads B more efficiently for short M.
constexpr TileKernels kTiles[] = {
    make_tile<VecAvx2, 6, 2>(),
    make_tile<VecAvx2, 4, 3>(),
};

constexpr DotKernels kDot{
    dot_table<DotKernelFn, kDotMr, kDotNr,
              DotTile<DotArgs, FmaStep<VecAvx2>, VecValues<VecAvx2>, VecValues<VecAvx2>>>()};

constexpr IsaKernels kAvx2{
    adaptcore::Isa::Avx2, VecAvx2::W, false, kTiles, &pack_a_panels<VecAvx2>,
    &pack_b_panels<VecAvx2>, &kDot};
}  // namespace

namespace adaptcore::kernels {
const IsaKernels* avx2_kernels() noexcept { return &kAvx2; }
}  // namespace adaptcore::kernels
