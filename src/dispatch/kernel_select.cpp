#include "dispatch/kernel_select.hpp"

#include "hw/isa_features.hpp"

namespace adaptcore {

const kernels::IsaKernels* runnable_kernels(Isa isa) noexcept {
  if (isa == Isa::Auto || !detected_hardware().supports(isa)) return nullptr;
  return kernels::kernels_for(isa);
}

bool uses_native_lowp(const HardwareProfile& hw, DType dtype) noexcept {
  // Asked on every low-precision and weight-quantized call: the CPU's set is made once.
  static const FeatureSet cpu = features_of(detected_hardware());
  const FeatureSet level = dtype == DType::Bf16 ? kLevelAvx512Bf16 : kLevelAvx512Vnni;
  return (features_of(hw) & cpu).contains(level);
}

const kernels::LowpKernels* lowp_kernels_for(const HardwareProfile& hw, DType dtype,
                                             Isa isa) noexcept {
  if (dtype == DType::F32 || is_weight_quantized(dtype)) return nullptr;
  return kernels::lowp_kernels_for(dtype, isa, uses_native_lowp(hw, dtype));
}

const kernels::WqKernels& wq_kernels_for(const HardwareProfile& hw, Isa isa) noexcept {
  const bool native = isa == Isa::Avx512 && uses_native_lowp(hw, DType::U8S8);
  const kernels::WqKernels* vnni = native ? kernels::wq_vnni_kernels() : nullptr;
  return vnni != nullptr ? *vnni : kernels::wq_generic_kernels();
}

bool type_config_for(const HardwareProfile& hw, DType dtype, Isa isa, TypeConfig& out) noexcept {
  if (dtype == DType::F32) {
    const kernels::IsaKernels* ks = kernels::kernels_for(isa);
    if (ks == nullptr) return false;
    out = type_config(*ks, hw);
    return true;
  }
  const kernels::LowpKernels* ks = lowp_kernels_for(hw, dtype, isa);
  if (ks == nullptr) return false;
  out = type_config(*ks, hw);
  return true;
}

}  // namespace adaptcore
