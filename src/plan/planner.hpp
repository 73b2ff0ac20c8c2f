// The planner: classify, enumerate candidates, predict each with the analytical model, pick the
// cheapest. Deterministic (ties keep enumeration order) and free of trial runs.
#pragma once

#include <vector>

#include "adaptcore/hardware.hpp"
#include "kernels/ukernel.hpp"
#include "model/cpu_model.hpp"
#include "plan/plan.hpp"
#include "plan/shape_key.hpp"

namespace adaptcore {

struct CandidateCost {
  Plan plan;
  CostBreakdown cost;
};

struct Explanation {
  ShapeClass cls;
  std::vector<CandidateCost> candidates;
  std::size_t chosen = 0;
};

Plan make_plan(const ShapeKey& key, const HardwareProfile& hw, const kernels::IsaKernels& ks);
Explanation explain_plan(const ShapeKey& key, const HardwareProfile& hw,
                         const kernels::IsaKernels& ks);

}  // namespace adaptcore
