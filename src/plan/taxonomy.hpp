// The 2D tiling taxonomy: capacity (which memory level holds one core's working set) x
// parallelism (how much independent output work exists per core). The class decides which
// kinds of candidates are worth enumerating; the model then ranks them. One classifier for
// every data type: element sizes and the kernels' peak come from the type configuration.
#pragma once

#include "adaptcore/hardware.hpp"
#include "core/shape_key.hpp"
#include "plan/plan.hpp"
#include "plan/type_config.hpp"

namespace adaptcore {

ShapeClass classify(const ShapeKey& key, const HardwareProfile& hw, const TypeConfig& cfg) noexcept;

}  // namespace adaptcore
