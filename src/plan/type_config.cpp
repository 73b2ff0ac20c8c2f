#include "plan/type_config.hpp"

#include <algorithm>

namespace adaptcore {
namespace {

// One accumulator update: an FMA takes 4 cycles on the cores this library targets; the
// dot-product instructions (vdpbf16ps, vpdpbusd) 5, and the low-precision paths plan with 5
// even on their fp32 fallback (a conservative figure for ranking their own candidates).
constexpr double kFmaLatency = 4.0;
constexpr double kDotLatency = 5.0;
// The portable int8 kernel: scalar-ish code the compiler vectorises with 16-bit multiplies;
// about 4 multiply-adds per cycle (used only where nothing else exists, so a rough figure
// suffices for ranking its own candidates).
constexpr double kGenericInt8MacsPerCycle = 4.0;
// In-place B for low precision pays only for decode-like calls: up to 8 row tiles. int8 wins
// only at a single row (docs/LOWP.md, "In-place B": its epilogue undoes a 4-row interleave of
// 4 column vectors per call, which the model does not price).
constexpr int64_t kDirectBTiles = 8;
// A matrix-engine tile product (16 rows, 16 columns of 32-bit accumulators, 16 depth steps)
// counted in 16-lane vector instructions of one depth step, the unit of TypeConfig's rates.
constexpr int kEngineLanes = 16;
constexpr double kVectorsPerTileProduct = 16.0 * 16.0;

template <class Tiles>
void copy_tiles(const Tiles& from, TypeConfig& cfg) {
  cfg.tile_count = static_cast<int>(std::min<std::size_t>(from.size(), TypeConfig::kMaxTiles));
  for (int i = 0; i < cfg.tile_count; ++i)
    cfg.tiles[static_cast<std::size_t>(i)] = {from[static_cast<std::size_t>(i)].mr,
                                              from[static_cast<std::size_t>(i)].nr};
}

}  // namespace

TypeConfig type_config(const kernels::IsaKernels& ks, const HardwareProfile& hw) noexcept {
  TypeConfig cfg;
  cfg.dtype = DType::F32;
  cfg.isa = ks.isa;
  cfg.in_bytes = 4;
  cfg.group = 1;
  cfg.lanes = ks.lanes;
  cfg.macs_per_lane = 1.0;
  cfg.instr_per_cycle = hw.fma_per_cycle_at(32 * ks.lanes);
  cfg.latency_cycles = kFmaLatency;
  cfg.chained_vectors = kernels::kChainVectors;
  copy_tiles(ks.tiles, cfg);
  // A narrow tile's vectors issue at the rate of the path with that width (AVX-512's 8-lane
  // tile at the AVX2 rate: two a cycle where a 512-bit FMA issues once).
  for (int i = 0; i < cfg.tile_count; ++i) {
    const int lanes = ks.tiles[static_cast<std::size_t>(i)].lanes;
    if (lanes == ks.lanes) continue;
    TileShape& t = cfg.tiles[static_cast<std::size_t>(i)];
    t.lanes = lanes;
    t.instr_per_cycle = hw.fma_per_cycle_at(32 * lanes);
  }
  for (int i = 0; i < cfg.tile_count; ++i)
    cfg.tiles[static_cast<std::size_t>(i)].transposed_c =
        ks.tiles[static_cast<std::size_t>(i)].has_transposed_store();
  cfg.in_place_a = cfg.in_place_b = cfg.split_k = cfg.padded_tail = cfg.prefetch_b = true;
  // A transposing pack of A keeps half the profile's rate on every level: at the full rate the
  // model prefers packing A for in-place-B shapes where the tile it then takes runs slower
  // (docs/MODEL.md, "Fitted constants": F23, and "Still wrong").
  cfg.transposing_pack_share = 0.5;
  cfg.transposing_pack_b_share = ks.pack_costs.transposing_pack_b_share;
  if (ks.dot != nullptr) cfg.dot = {kernels::kDotMr, kernels::kDotNr};
  cfg.dot_pack_b = ks.dot != nullptr;
  cfg.dot_pack_cycles = ks.pack_costs.dot_pack_cycles;
  cfg.rows = ks.rows != nullptr;
  return cfg;
}

TypeConfig type_config(const kernels::LowpKernels& ks, const HardwareProfile& hw) noexcept {
  TypeConfig cfg;
  cfg.dtype = ks.dtype;
  cfg.isa = ks.isa;
  cfg.in_bytes = input_bytes(ks.dtype);
  cfg.group = ks.group;
  cfg.lanes = ks.lanes;
  cfg.macs_per_lane = ks.macs_per_lane;
  cfg.instr_per_cycle = hw.fma_per_cycle_at(32 * ks.lanes);
  // The dot-product instructions issue at their own rates (HardwareProfile::dot_*_per_cycle).
  if (ks.lanes == 16 && ks.dtype == DType::Bf16 && ks.macs_per_lane == 2.0)
    cfg.instr_per_cycle = hw.dot_bf16_per_cycle;
  if (ks.lanes == 16 && ks.dtype == DType::U8S8 && ks.macs_per_lane == 4.0)
    cfg.instr_per_cycle = hw.dot_int8_per_cycle;
  if (ks.dtype == DType::U8S8 && ks.macs_per_lane < 4.0)  // the portable int8 kernel
    cfg.instr_per_cycle = kGenericInt8MacsPerCycle / (ks.lanes * ks.macs_per_lane);
  cfg.latency_cycles = kDotLatency;
  copy_tiles(ks.tiles, cfg);
  for (int i = 0; i < cfg.tile_count; ++i) {
    const kernels::LowpTile& from = ks.tiles[static_cast<std::size_t>(i)];
    if (from.engine == nullptr) continue;
    TileShape& t = cfg.tiles[static_cast<std::size_t>(i)];
    t.engine = true;
    t.depth_block = from.engine->depth_block;
    t.lanes = kEngineLanes;
    t.instr_per_cycle = kVectorsPerTileProduct * hw.amx_tiles_per_cycle;
  }
  if (ks.direct_b != nullptr) {
    cfg.direct_b = {ks.direct_b->mr, ks.direct_b->nr};
    cfg.direct_b_cycles = ks.direct_b->shuffle_cycles;
    cfg.direct_b_max_m = ks.dtype == DType::U8S8 ? 1 : kDirectBTiles * ks.direct_b->mr;
  }
  if (ks.dot != nullptr) cfg.dot = {kernels::kLowpDotMr, kernels::kLowpDotNr};
  return cfg;
}

}  // namespace adaptcore
