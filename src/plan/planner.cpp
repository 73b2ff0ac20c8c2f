#include "plan/planner.hpp"

#include "plan/candidates.hpp"
#include "plan/taxonomy.hpp"

namespace adaptcore {

Explanation explain_plan(const ShapeKey& key, const HardwareProfile& hw, const TypeConfig& cfg) {
  const ShapeClass cls = classify(key, hw, cfg);
  const CpuModel model(hw, cfg);
  return rank_by_model(
      cls, enumerate_candidates(key, cls, hw, cfg),
      [&](const Plan& p) { return model.predict(key, p); },
      [](Plan& p, const CostBreakdown& c) { p.predicted_us = c.total_us; });
}

Plan make_plan(const ShapeKey& key, const HardwareProfile& hw, const TypeConfig& cfg) {
  const Explanation e = explain_plan(key, hw, cfg);
  return e.candidates.at(e.chosen).plan;
}

}  // namespace adaptcore
