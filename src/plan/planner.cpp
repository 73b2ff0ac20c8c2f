#include "plan/planner.hpp"

#include "plan/candidates.hpp"
#include "plan/taxonomy.hpp"

namespace adaptcore {

Explanation explain_plan(const ShapeKey& key, const HardwareProfile& hw,
                         const kernels::IsaKernels& ks) {
  Explanation e;
  e.cls = classify(key, hw, ks);
  const CpuModel model(hw, ks);
  for (Plan& p : enumerate_candidates(key, e.cls, hw, ks)) {
    const CostBreakdown cost = model.predict(key, p);
    p.predicted_us = cost.total_us;
    e.candidates.push_back({p, cost});
  }
  for (std::size_t i = 1; i < e.candidates.size(); ++i)
    if (e.candidates[i].cost.total_us < e.candidates[e.chosen].cost.total_us) e.chosen = i;
  return e;
}

Plan make_plan(const ShapeKey& key, const HardwareProfile& hw, const kernels::IsaKernels& ks) {
  const ShapeClass cls = classify(key, hw, ks);
  const CpuModel model(hw, ks);
  Plan best;
  double best_us = -1;
  for (Plan& p : enumerate_candidates(key, cls, hw, ks)) {
    const double t = model.predict(key, p).total_us;
    if (best_us < 0 || t < best_us) {
      best = p;
      best_us = t;
    }
  }
  best.predicted_us = best_us;
  return best;
}

}  // namespace adaptcore
