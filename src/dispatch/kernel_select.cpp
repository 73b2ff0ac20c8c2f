#include "dispatch/kernel_select.hpp"

#include "hw/amx_support.hpp"
#include "kernels/registry.hpp"

namespace adaptcore {

const kernels::IsaKernels* runnable_kernels(Isa isa) noexcept {
  if (isa == Isa::Auto || !detected_hardware().supports(isa)) return nullptr;
  return kernels::kernels_for(isa);
}

namespace {

// The level whose bf16, int8 and weight-quantized tables a call at `isa` runs: the highest the
// profile and the CPU allow. The amx level's tables run the tile unit, which also needs the
// process's permission: asked here, on the first such call at that level, never before (and
// never for fp32); refused, the level below serves (hw/amx_support.hpp says why; `adaptcore
// hw` prints it).
Isa runnable_lowp_level(const HardwareProfile& hw, Isa isa) noexcept {
  const Isa level = lowp_level(hw, isa);
  if (level == Isa::Amx && !amx_support().usable())
    return lowp_level(hw, kernels::lattice_row(Isa::Amx)->below);
  return level;
}

}  // namespace

Isa lowp_level(const HardwareProfile& hw, Isa isa) noexcept {
  // Asked on every low-precision and weight-quantized call: the CPU's set is read once.
  static const FeatureSet cpu = detected_hardware().features;
  return kernels::clamp_level(isa, hw.features & cpu);
}

const kernels::LowpKernels* lowp_kernels_for(const HardwareProfile& hw, DType dtype,
                                             Isa isa) noexcept {
  if (dtype == DType::F32 || is_weight_quantized(dtype) || !kernels::built(isa)) return nullptr;
  return kernels::lowp_kernels_for(dtype, runnable_lowp_level(hw, isa));
}

const kernels::WqKernels& wq_kernels_for(const HardwareProfile& hw, Isa isa) noexcept {
  // A built level (generic at least), and every built level has them.
  return *kernels::wq_kernels_for(runnable_lowp_level(hw, isa));
}

bool type_config_for(const HardwareProfile& hw, DType dtype, Isa isa, TypeConfig& out) noexcept {
  if (dtype == DType::F32) {
    const kernels::IsaKernels* ks = kernels::kernels_for(isa);
    if (ks == nullptr) return false;
    out = type_config(*ks, hw);
  } else {
    const kernels::LowpKernels* ks = lowp_kernels_for(hw, dtype, isa);
    if (ks == nullptr) return false;
    out = type_config(*ks, hw);
  }
  out.isa = isa;
  return true;
}

}  // namespace adaptcore
