#include "model/wq_model.hpp"
#include "core/int_math.hpp"

#include <algorithm>
#include <cmath>

#include "core/wq_problem.hpp"
#include "core/wq_weights.hpp"
#include "model/model_constants.hpp"

namespace adaptcore {
using namespace model_constants;

double WqModel::dots_per_cycle() const noexcept {
  // A tile product of 16 x 16 x 16 quads is 256 vpdpbusd's multiply-adds.
  if (engine_) return kEngineDotsPerTile * hw_.amx_tiles_per_cycle;
  if (!native_) return kGenericDotsPerCycle;
  return dot_bits_ == 512 ? hw_.dot_int8_per_cycle : hw_.fma_per_cycle_at(dot_bits_);
}

double WqModel::cycles_per_quad(int m, int parts, bool int4) const noexcept {
  if (engine_) {
    // Per sub-block of kEngineWqQuads quads, whatever the rows: a product per part and
    // 16-column half, each over half a tile's depth (priced at half a product), its A tiles
    // (16 rows) and two B tiles (one row a quad) through the load ports, and int4 weights
    // widened into a staging block first.
    const double products = parts * 2.0 * kEngineWqProductShare / hw_.amx_tiles_per_cycle;
    const double lines = 16.0 * parts + 2.0 * kEngineWqQuads;
    const double staging = int4 ? 2.0 * kEngineWqQuads / kVectorOpsPerCycle * 2.0 : 0.0;
    return (std::max(products, lines / kLoadsPerCycle) + staging) / kEngineWqQuads;
  }
  const double dots = 2.0 * m * parts;
  const double loads = (int4 ? 1.0 : 2.0) + m * parts;  // weight vectors, broadcasts
  const double unpack = int4 ? 3.0 : 0.0;
  return std::max(dots / dots_per_cycle() + unpack / kVectorOpsPerCycle, loads / kLoadsPerCycle);
}

double WqModel::cycles_per_flush(int m, int parts, bool group_scaled) const noexcept {
  // Per output vector: (shift, add,) subtract, convert, (scale,) multiply-add; zeroing the
  // int32 accumulators is free (renamed). A matrix engine first stores its C tiles (two per
  // part, 16 rows each) and loads them back as vectors.
  const double ops = (parts == 2 ? 5.0 : 3.0) + (group_scaled ? 1.0 : 0.0);
  const double stores = engine_ ? 2.0 * parts * kEngineTileStoreCycles : 0.0;
  return stores + 2.0 * m * (ops + (engine_ ? parts : 0)) / kVectorOpsPerCycle;
}

double WqModel::weight_bytes(const ShapeKey& key) noexcept {
  const double quads = ceil_div(static_cast<double>(key.k), 4.0);
  const double panels = ceil_div(static_cast<double>(key.n), kWqNr);
  return panels * quads * (wq_dtype_int4(key.dtype) ? 64.0 : 128.0);
}

double WqModel::level_gbs(double bytes, int threads) const noexcept {
  if (bytes <= static_cast<double>(hw_.l2_bytes)) return hw_.bw_l2_gbs;
  if (bytes <= static_cast<double>(hw_.l3_bytes)) return hw_.bw_l3_gbs;
  return std::min(hw_.bw_dram_core_gbs, hw_.bw_dram_total_gbs / threads);
}

CostBreakdown WqModel::predict(const ShapeKey& key, const Plan& p) const noexcept {
  CostBreakdown c;
  const int parts = wq_dtype_parts(key.dtype);
  const bool int4 = wq_dtype_int4(key.dtype);
  const double m = static_cast<double>(key.m), k = static_cast<double>(key.k);
  const double mr = p.mr;
  const int threads = p.threads();
  const double tiles = ceil_div(m, mr), panels = ceil_div(static_cast<double>(key.n), kWqNr);
  const double tiles_t = ceil_div(tiles, p.pm), panels_t = ceil_div(panels, p.pn);
  const double quads = ceil_div(k, 4.0);
  const double act_group = key.wq_group > 0 ? key.wq_group : kWqColumnActGroup;
  const double groups = ceil_div(k, act_group);
  const double ghz = hw_.freq_ghz;

  // Compute: every tile x panel of the busiest core; the last tile of a core may be short.
  const double m_last = std::fmod(std::min(m, tiles_t * mr), mr);
  const int rows_last = m_last == 0.0 ? p.mr : static_cast<int>(m_last);
  // Per tile: its quad steps, its groups' flushes, and a fixed part per row of its two output
  // vectors (kWqNr = 32 columns).
  auto tile_cycles = [&](int rows) {
    return quads * cycles_per_quad(rows, parts, int4) +
           groups * cycles_per_flush(rows, parts, key.wq_group > 0) +
           2.0 * rows * kWqEpilogueCyclesPerVector;
  };
  const double cycles = panels_t * ((tiles_t - 1.0) * tile_cycles(p.mr) + tile_cycles(rows_last));
  c.compute_us = cycles / (ghz * 1e3) / kKernelEfficiency;

  // Memory: the core's weight share once per row block (later passes from L2 or L3 when it
  // stays there), the activation parts of a block once per panel, C once.
  const double panel_bytes = quads * (int4 ? 64.0 : 128.0);
  const double w_t = panels_t * panel_bytes;
  const double block_tiles = std::max(1.0, std::floor(static_cast<double>(p.mc) / mr));
  const double passes = ceil_div(tiles_t, block_tiles);
  const double dram = std::min(hw_.bw_dram_core_gbs, hw_.bw_dram_total_gbs / threads);
  const double w_total = weight_bytes(key);
  // The first pass reads the weights from the L3 where they fit and the call finds them there
  // (a repeated call); from DRAM for a cold key (ShapeKey::cold: other operands than the
  // previous call's, a grouped call's experts, or Residency::Memory) or weights beyond the L3.
  const double first_gbs =
      !key.cold && w_total <= static_cast<double>(hw_.l3_bytes) * threads ? hw_.bw_l3_gbs : dram;
  const double weights_us =
      (w_t / first_gbs + (passes - 1.0) * w_t / level_gbs(w_t, threads)) / 1e3;
  const double tile_act = quads * mr * parts * 4.0;
  const double block_act = std::min(block_tiles, tiles_t) * tile_act;
  const double act_gbs = level_gbs(block_act + panel_bytes, threads);
  const double act_us = panels_t * tiles_t * tile_act / act_gbs / 1e3;
  const double c_us = std::min(m, tiles_t * mr) * panels_t * kWqNr * 4.0 / dram / 1e3;
  c.memory_us = weights_us + act_us + c_us;

  // The split: read A (fp32 or bf16), write the parts, on the threads the plan gives it.
  const double split_threads = p.quantize_threads;
  const bool split_parallel = p.quantize_threads > 1;
  const double split_rate = native_ ? kSplitPerCycleNative : kSplitPerCycleGeneric;
  c.pack_us = m * k / split_threads / (split_rate * ghz * 1e3) +
              m * k * (key.a_bf16 ? 2.0 : 4.0) / split_threads / dram / 1e3;
  c.sync_us = threads > 1 ? hw_.fork_join_us * (split_parallel ? 2.0 : 1.0) : 0.0;
  c.total_us = std::max(c.compute_us, c.memory_us) + c.pack_us + c.sync_us;
  c.bound = c.compute_us >= c.memory_us ? "compute" : "memory";
  return c;
}

}  // namespace adaptcore
