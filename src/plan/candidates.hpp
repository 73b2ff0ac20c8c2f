// The composable optimisation library: independent options (register tile, packing of A and
// of B, cache blocking, core grid with split-K, tail strategy) combined into candidate plans.
// The shape class prunes combinations that cannot win (e.g. packing in the register class).
#pragma once

#include <vector>

#include "adaptcore/hardware.hpp"
#include "kernels/ukernel.hpp"
#include "plan/plan.hpp"
#include "plan/shape_key.hpp"

namespace adaptcore {

std::vector<Plan> enumerate_candidates(const ShapeKey& key, const ShapeClass& cls,
                                       const HardwareProfile& hw,
                                       const kernels::IsaKernels& ks);

}  // namespace adaptcore
