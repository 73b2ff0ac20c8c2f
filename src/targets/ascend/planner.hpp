// The NPU planner: classify, enumerate candidates, predict each with the pipeline model, keep
// the cheapest (ties keep enumeration order). The same flow as the CPU planner
// (src/plan/planner.cpp), over the NPU's own taxonomy, candidates and model.
#pragma once

#include <vector>

#include "targets/ascend/pipeline_model.hpp"
#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend {

struct NpuCandidate {
  TilingPlan plan;
  NpuCost cost;
};

struct NpuExplanation {
  NpuClass cls;
  std::vector<NpuCandidate> candidates;
  std::size_t chosen = 0;
};

NpuExplanation explain_plan(const AscendShape& s, const AscendProfile& hw);
TilingPlan make_plan(const AscendShape& s, const AscendProfile& hw);

}  // namespace adaptcore::ascend
