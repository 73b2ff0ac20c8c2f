// Portable fp32 micro-kernels and packing: baseline compiler flags only, so they run on any
// CPU the binary runs on. The path of last resort and the reference for the others' layouts.
#include <utility>

#include "kernels/dot_tile.hpp"
#include "kernels/generic/vec_generic.hpp"
#include "kernels/kernel_tables.hpp"
#include "kernels/tile_kernels.hpp"
#include "kernels/ukernel.hpp"

namespace {
#include "kernels/pack_template.hpp"

using namespace adaptcore::kernels;

// 16 xmm registers on baseline x86-64: 4x8 keeps 8 accumulators + 2 B + 1 broadcast.
constexpr TileKernels kTiles[] = {
    make_tile<VecGeneric, 4, 2>(),
};

constexpr DotKernels kDot{
    dot_table<DotKernelFn, kDotMr, kDotNr,
              DotTile<DotArgs, FmaStep<VecGeneric>, VecValues<VecGeneric>, VecValues<VecGeneric>>>()};

constexpr IsaKernels kGeneric{
    adaptcore::Isa::Generic, VecGeneric::W, false, kTiles, &pack_a_panels<VecGeneric>,
    &pack_b_panels<VecGeneric>, &kDot};
}  // namespace

namespace adaptcore::kernels {
const IsaKernels& generic_kernels() noexcept { return kGeneric; }

const IsaKernels* kernels_for(Isa isa) noexcept {
  switch (isa) {
    case Isa::Generic:
      return &generic_kernels();
    case Isa::Avx2:
      return avx2_kernels();
    case Isa::Avx512:
      return avx512_kernels();
    case Isa::Auto:
      break;
  }
  return nullptr;
}
}  // namespace adaptcore::kernels
