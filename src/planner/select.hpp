// The last step of every planner (CPU data types, weight-quantized, the NPU target): predict
// each candidate with a model and keep the cheapest, deterministically (ties keep enumeration
// order) and without trial runs.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace adaptcore {

template <class PlanT, class CostT>
struct Ranked {
  PlanT plan;
  CostT cost;
};

// Candidates with their predicted costs and the index of the chosen one.
template <class ClassT, class PlanT, class CostT>
struct Ranking {
  ClassT cls{};
  std::vector<Ranked<PlanT, CostT>> candidates;
  std::size_t chosen = 0;
};

// A cost's instruction time, where its type has one.
template <class CostT>
double compute_of(const CostT& c) {
  if constexpr (requires { c.compute_us; })
    return c.compute_us;
  else
    return 0.0;
}

// Predicts every plan (predict(plan) -> cost with a `total_us`), records the prediction in the
// plan through set_predicted(plan, cost), and chooses the cheapest.
template <class ClassT, class PlanT, class Predict, class SetPredicted>
auto rank_by_model(const ClassT& cls, std::vector<PlanT> plans, Predict predict,
                   SetPredicted set_predicted) {
  using CostT = decltype(predict(plans.front()));
  Ranking<ClassT, PlanT, CostT> r;
  r.cls = cls;
  r.candidates.reserve(plans.size());
  for (PlanT& p : plans) {
    CostT cost = predict(p);
    set_predicted(p, cost);
    r.candidates.push_back({std::move(p), std::move(cost)});
  }
  for (std::size_t i = 1; i < r.candidates.size(); ++i) {
    const CostT& c = r.candidates[i].cost;
    const CostT& best = r.candidates[r.chosen].cost;
    if (c.total_us < best.total_us) {
      r.chosen = i;
    } else if constexpr (requires { c.memory_us; }) {
      // A tie (plans that differ only where the bound term does not see it, such as a row
      // block that leaves a short second one): the one moving less data; moving as much, the
      // one with fewer instructions, which keeps its lead wherever memory turns out faster
      // than the profile says.
      if (c.total_us == best.total_us &&
          (c.memory_us < best.memory_us ||
           (c.memory_us == best.memory_us && compute_of(c) < compute_of(best))))
        r.chosen = i;
    }
  }
  return r;
}

}  // namespace adaptcore
