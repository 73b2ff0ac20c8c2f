#include "targets/ascend/planner.hpp"

#include "targets/ascend/candidates.hpp"
#include "targets/ascend/taxonomy.hpp"

namespace adaptcore::ascend {

NpuExplanation explain_plan(const AscendShape& s, const AscendProfile& hw) {
  NpuExplanation e;
  e.cls = classify(s, hw);
  for (TilingPlan& p : enumerate_candidates(s, e.cls, hw)) {
    const NpuCost cost = predict(hw, s, p);
    p.predicted_us = cost.total_us;
    e.candidates.push_back({p, cost});
  }
  for (std::size_t i = 1; i < e.candidates.size(); ++i)
    if (e.candidates[i].cost.total_us < e.candidates[e.chosen].cost.total_us) e.chosen = i;
  return e;
}

TilingPlan make_plan(const AscendShape& s, const AscendProfile& hw) {
  const NpuClass cls = classify(s, hw);
  TilingPlan best;
  double best_us = -1;
  for (const TilingPlan& p : enumerate_candidates(s, cls, hw)) {
    const double t = predict(hw, s, p).total_us;
    if (best_us < 0 || t < best_us) {
      best = p;
      best_us = t;
    }
  }
  best.predicted_us = best_us;
  return best;
}

}  // namespace adaptcore::ascend
