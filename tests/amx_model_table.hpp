// The AMX tile on its scalar model (kernels/x86_amx/tile_model.hpp) as a kernel table the
// executor runs on any host: the engine tile alone, its portable packers, no tile state. The
// planner, executor and epilogues meet it as they meet the amx level's tile on an AMX host.
#pragma once

#include <cstdint>

#include "kernels/lowp.hpp"
#include "kernels/lowp_pack_template.hpp"
#include "kernels/wq_tables.hpp"
#include "kernels/x86_amx/amx_tile.hpp"
#include "kernels/x86_amx/amx_wq.hpp"

namespace adaptcore::test {

inline const kernels::LowpKernels& model_engine_kernels(DType dtype) {
  using namespace kernels;
  static constexpr EngineTile kBf16Engine{
      &amx::pack_a_panels<std::uint16_t>,
      &amx::pack_b_panels<std::uint16_t, &pack_b_groups<Bf16Pairs>>, amx::kGroupsPerBlock, nullptr,
      nullptr};
  static constexpr EngineTile kInt8Engine{
      &amx::pack_a_panels<std::uint8_t>,
      &amx::pack_b_panels<std::uint8_t, &pack_b_groups<Int8Quads>>, amx::kGroupsPerBlock, nullptr,
      nullptr};
  static constexpr LowpTile kBf16Tiles[] = {amx::engine_tile<false, amx::ModelOps>(&kBf16Engine)};
  static constexpr LowpTile kInt8Tiles[] = {amx::engine_tile<true, amx::ModelOps>(&kInt8Engine)};
  static const LowpKernels kBf16{DType::Bf16,
                                 Isa::Generic,
                                 "amx-model-bf16",
                                 2,
                                 16,
                                 2.0,
                                 kBf16Tiles,
                                 &pack_a_groups<Bf16Pairs>,
                                 &pack_b_groups<Bf16Pairs>,
                                 nullptr,
                                 nullptr,
                                 nullptr};
  static const LowpKernels kInt8{DType::U8S8,
                                 Isa::Generic,
                                 "amx-model-int8",
                                 4,
                                 16,
                                 4.0,
                                 kInt8Tiles,
                                 &pack_a_groups<Int8Quads>,
                                 &pack_b_groups<Int8Quads>,
                                 nullptr,
                                 nullptr,
                                 nullptr};
  return dtype == DType::Bf16 ? kBf16 : kInt8;
}

template <int P, bool INT4>
using ModelWqTile = kernels::amx::WqEngine<kernels::amx::ModelOps>::Tile<P, INT4>;

// The weight-quantized kernels of the amx level on the model, the portable quantizer writing
// their layout; `below`: the vector kernels the planner weighs against them (null: none).
inline kernels::WqKernels model_engine_wq_kernels(const kernels::WqKernels* below) {
  using namespace kernels;
  WqKernels k = make_wq_kernels<ModelWqTile, amx::kWqTileRows>(
      "amx-model", Isa::Generic, 512, amx::kWqTileRows, amx::kWqTileRows, &wq_quantize_portable);
  k.engine = true;
  k.tile_quads = amx::kWqTileQuads;
  k.below = below;
  return k;
}

}  // namespace adaptcore::test
