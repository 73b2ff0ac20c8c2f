// Low-precision tables for levels without the dot-product instructions (generic/tables.hpp).
// Baseline flags only, so they run on any CPU the binary runs on:
//   bf16: each value widened to fp32 while packing (exact: a bf16 is the top half of an fp32),
//         then the level's own fp32 kernels; a bf16 x bf16 product (8 x 8 significant bits)
//         is exact in fp32, so the error is the fp32 accumulation's, as with vdpbf16ps.
//   int8: a portable kernel over the same 4-byte groups as vpdpbusd, exact modulo 2^32.
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "kernels/generic/int8_step_generic.hpp"
#include "kernels/generic/tables.hpp"
#include "kernels/kernel_tables.hpp"
#include "kernels/lowp.hpp"
#include "kernels/lowp_pack_template.hpp"
#include "kernels/tile_kernels.hpp"

namespace {

using namespace adaptcore::kernels;

// 4 rows x 16 columns, one scalar lane per column.
constexpr LowpTile kInt8Tiles[] = {
    make_lowp_tile<DotBytesStep<false>, DotBytesStep<true>, 4, 16>()};

}  // namespace

namespace adaptcore::kernels {

LowpKernels portable_int8_kernels(Isa level) noexcept {
  return {DType::U8S8,
          level,
          "int32-generic",
          4,
          4,
          1.0,
          kInt8Tiles,
          &pack_a_groups<Int8Quads>,
          &pack_b_groups<Int8Quads>,
          nullptr};
}

Bf16ConvertKernels::Bf16ConvertKernels(const IsaKernels& fp32) noexcept {
  const std::size_t count = std::min(fp32.tiles.size(), tiles.size());
  for (std::size_t i = 0; i < count; ++i) {
    tiles[i].mr = fp32.tiles[i].mr;
    tiles[i].nr = fp32.tiles[i].nr;
    tiles[i].fp32 = &fp32.tiles[i];
  }
  table = {DType::Bf16,
           fp32.isa,
           "fp32-convert",
           1,
           fp32.lanes,
           1.0,
           std::span<const LowpTile>(tiles.data(), count),
           &pack_a_groups<Bf16ToF32>,
           &pack_b_groups<Bf16ToF32>,
           nullptr};
}

}  // namespace adaptcore::kernels
