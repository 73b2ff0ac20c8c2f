// The analytical model for low-precision plans (bf16, int8): the fp32 model's structure
// (compute overlapped with memory, plus packing and synchronisation) with the dtype's element
// sizes and the work of its dot-product instruction. See docs/LOWP.md, "Model".
#pragma once

#include "adaptcore/hardware.hpp"
#include "kernels/lowp.hpp"
#include "model/cpu_model.hpp"
#include "plan/plan.hpp"
#include "plan/shape_key.hpp"

namespace adaptcore {

// Bytes of one input element of a dtype (bf16 2, int8 1, fp32 4).
inline double input_bytes(DType d) noexcept {
  return d == DType::Bf16 ? 2.0 : d == DType::U8S8 ? 1.0 : 4.0;
}

class LowpModel {
 public:
  LowpModel(const HardwareProfile& hw, const kernels::LowpKernels& ks) : hw_(hw), ks_(ks) {}
  CostBreakdown predict(const ShapeKey& key, const Plan& plan) const noexcept;

  // Multiply-adds per cycle of one core on this path (the dot instruction issues like an FMA:
  // fma_per_cycle x lanes x multiply-adds per lane), and the peak in GOP/s (2 ops each).
  double macs_per_cycle() const noexcept;
  double peak_gops_per_core() const noexcept { return 2.0 * macs_per_cycle() * hw_.freq_ghz; }
  // Cycles per group step of an m x nr tile: issue, load ports, latency.
  double cycles_per_group(int m, int nr) const noexcept;

 private:
  double level_gbs(double bytes, int threads) const noexcept;
  // Dot-product plans (Plan::dot): nothing packed, B streamed once, A re-read per column tile.
  CostBreakdown predict_dot(const ShapeKey& key, const Plan& plan) const noexcept;

  const HardwareProfile& hw_;
  const kernels::LowpKernels& ks_;
};

}  // namespace adaptcore
