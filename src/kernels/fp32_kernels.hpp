// The kernel table (IsaKernels, ukernel.hpp) of a level's fp32 kernels, from its vector traits V
// and its register tiles: every tile with both A modes and every row count, the 4x4 dot-product
// tiles, and the level's pack functions. A level's unit names only what is its own:
//   using Path = Fp32Kernels<VecAvx2, Tile<6, 2>, Tile<4, 3>>;
//   constexpr IsaKernels kAvx2 = Path::table(Isa::Avx2, false, &pack_a..., &pack_b...);
// Included by the levels' fp32 units; the unnamed namespace gives each its own copy.
#pragma once

#include <type_traits>

#include "adaptcore/types.hpp"
#include "kernels/dot_tile.hpp"
#include "kernels/kernel_tables.hpp"
#include "kernels/pack_template.hpp"
#include "kernels/post_ops_impl.hpp"
#include "kernels/rank_k_rows.hpp"
#include "kernels/tile_kernels.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore::kernels {
namespace {

// A register tile of MR rows x NV vectors of the path's vectors, or of its own (narrower)
// vector traits Own; with TransposedStore, also its kernels that store C transposed.
template <int MR, int NV, class Own = void, class TransposedStore = void>
struct Tile {
  template <class V>
  static constexpr TileKernels make() {
    if constexpr (std::is_void_v<Own>)
      return make_tile<V, MR, NV, TransposedStore>();
    else
      return make_tile<Own, MR, NV, TransposedStore>();
  }
};

template <class V, class... Tiles>
struct Fp32Kernels {
  static constexpr TileKernels tiles[] = {Tiles::template make<V>()...};
  static constexpr DotKernels dot{
      dot_table<DotKernelFn, kDotMr, kDotNr,
                DotTile<DotArgs, FmaStep<V>, VecValues<V>, VecValues<V>>>()};

  // broadcast_is_free: the broadcast of A folds into the FMA's memory operand (AVX-512).
  static constexpr IsaKernels table(Isa isa, bool broadcast_is_free, PackAFn pack_a, PackBFn pack_b,
                                    TransposeFn transpose = &transpose_block,
                                    PackCosts costs = {}) {
    return {isa,    V::W, broadcast_is_free,   tiles,     pack_a,
            pack_b, &dot, &RowsKernel<V>::run, transpose, &apply_post_ops,
            costs};
  }
};

}  // namespace
}  // namespace adaptcore::kernels
