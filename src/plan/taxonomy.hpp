// The 2D tiling taxonomy: capacity (which memory level holds one core's working set) x
// parallelism (how much independent output work exists per core). The class decides which
// kinds of candidates are worth enumerating; the model then ranks them.
#pragma once

#include "adaptcore/hardware.hpp"
#include "kernels/ukernel.hpp"
#include "plan/plan.hpp"
#include "plan/shape_key.hpp"

namespace adaptcore {

ShapeClass classify(const ShapeKey& key, const HardwareProfile& hw,
                    const kernels::IsaKernels& ks) noexcept;

}  // namespace adaptcore
