#include "targets/ascend/planner.hpp"

#include "targets/ascend/candidates.hpp"
#include "targets/ascend/taxonomy.hpp"

namespace adaptcore::ascend {

NpuExplanation explain_plan(const AscendShape& s, const AscendProfile& hw) {
  const NpuClass cls = classify(s, hw);
  return rank_by_model(
      cls, enumerate_candidates(s, cls, hw), [&](const TilingPlan& p) { return predict(hw, s, p); },
      [](TilingPlan& p, const NpuCost& c) { p.predicted_us = c.total_us; });
}

TilingPlan make_plan(const AscendShape& s, const AscendProfile& hw) {
  const NpuExplanation e = explain_plan(s, hw);
  return e.candidates.at(e.chosen).plan;
}

}  // namespace adaptcore::ascend
