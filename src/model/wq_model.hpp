// The analytical model of weight-quantized plans (docs/QUANT.md, "Model"): vpdpbusd issue per
// quad plus the per-group flush, the packed weights streamed once per row block (from DRAM
// when they do not stay in cache), the activation parts from the level holding a row block,
// C once, the activation split (O(mk), before the product) and the pool's fork/join.
#pragma once

#include "adaptcore/hardware.hpp"
#include "core/shape_key.hpp"
#include "model/cpu_model.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

class WqModel {
 public:
  // dot_bits: the width of the dot-product vectors the kernels issue (WqKernels::dot_bits);
  // 0: the portable kernel's rate. engine: the kernels are a matrix engine's tile products
  // (WqKernels::engine, amx_tiles_per_cycle), whatever the rows of a tile.
  WqModel(const HardwareProfile& hw, int dot_bits, bool engine = false)
      : hw_(hw), native_(dot_bits > 0 || engine), dot_bits_(dot_bits), engine_(engine) {}
  CostBreakdown predict(const ShapeKey& key, const Plan& plan) const noexcept;

  // vpdpbusd-equivalent instructions one core issues per cycle (16 lanes x 4 multiply-adds).
  double dots_per_cycle() const noexcept;
  // The dot-product peak of one core in GOP/s (2 ops per multiply-add), as `adaptcore run`
  // reports efficiency against it. Two parts do twice the multiply-adds of the GEMM.
  double peak_gops_per_core() const noexcept { return dots_per_cycle() * 128.0 * hw_.freq_ghz; }
  // Cycles of one quad step and of one group's flush for an m-row tile.
  double cycles_per_quad(int m, int parts, bool int4) const noexcept;
  double cycles_per_flush(int m, int parts, bool group_scaled) const noexcept;
  // Packed weight bytes of a shape (what decode streams).
  static double weight_bytes(const ShapeKey& key) noexcept;

 private:
  double level_gbs(double bytes, int threads) const noexcept;

  const HardwareProfile& hw_;
  bool native_;
  int dot_bits_;
  bool engine_;
};

}  // namespace adaptcore
