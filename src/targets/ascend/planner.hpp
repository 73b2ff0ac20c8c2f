// The NPU planner: classify, enumerate candidates, predict each with the pipeline model, keep
// the cheapest (ties keep enumeration order). The same flow and the same selection as the CPU
// planner (plan/select.hpp), over the NPU's own taxonomy, candidates and model: its shape
// (half-precision cube units, L0/L1 buffers, AI cores) shares no term with the CPU's, so the
// taxonomy, candidates and model stay its own (docs/ASCEND.md).
#pragma once

#include <vector>

#include "plan/select.hpp"
#include "targets/ascend/pipeline_model.hpp"
#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend {

// The CPU planner's ranking types and selection (plan/select.hpp) over the NPU's plans and
// costs.
using NpuCandidate = Ranked<TilingPlan, NpuCost>;
using NpuExplanation = Ranking<NpuClass, TilingPlan, NpuCost>;

NpuExplanation explain_plan(const AscendShape& s, const AscendProfile& hw);
TilingPlan make_plan(const AscendShape& s, const AscendProfile& hw);

}  // namespace adaptcore::ascend
