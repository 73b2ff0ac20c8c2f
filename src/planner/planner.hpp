// The planner of the CPU data types (fp32, bf16, int8): classify, enumerate candidates,
// predict each with the analytical model, pick the cheapest. Deterministic and free of trial
// runs. The weight-quantized algorithm has its own planner behind the same Explanation
// (wq_planner.hpp).
#pragma once

#include "adaptcore/hardware.hpp"
#include "core/shape_key.hpp"
#include "model/cpu_model.hpp"
#include "plan/plan.hpp"
#include "plan/type_config.hpp"
#include "planner/select.hpp"

namespace adaptcore {

using CandidateCost = Ranked<Plan, CostBreakdown>;
using Explanation = Ranking<ShapeClass, Plan, CostBreakdown>;

Explanation explain_plan(const ShapeKey& key, const HardwareProfile& hw, const TypeConfig& cfg);
Plan make_plan(const ShapeKey& key, const HardwareProfile& hw, const TypeConfig& cfg);

}  // namespace adaptcore
