// Planning of low-precision (bf16, int8) shapes: the same taxonomy, candidate options and
// argmin over the model as fp32, with the dtype's element size, kernels and peak. Plans are
// ordinary `Plan`s (both operands packed, no split-K, no dot tiles), cached under keys whose
// dtype differs from fp32's.
#pragma once

#include <vector>

#include "adaptcore/hardware.hpp"
#include "kernels/lowp.hpp"
#include "plan/planner.hpp"

namespace adaptcore {

ShapeClass classify_lowp(const ShapeKey& key, const HardwareProfile& hw,
                         const kernels::LowpKernels& ks) noexcept;
std::vector<Plan> enumerate_lowp_candidates(const ShapeKey& key, const ShapeClass& cls,
                                            const HardwareProfile& hw,
                                            const kernels::LowpKernels& ks);
Plan make_lowp_plan(const ShapeKey& key, const HardwareProfile& hw,
                    const kernels::LowpKernels& ks);
Explanation explain_lowp_plan(const ShapeKey& key, const HardwareProfile& hw,
                              const kernels::LowpKernels& ks);

}  // namespace adaptcore
