#include "plan/wq_planner.hpp"

#include <algorithm>

#include "core/wq_problem.hpp"
#include "core/wq_weights.hpp"
#include "model/wq_model.hpp"

namespace adaptcore {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

ShapeClass classify_wq(const ShapeKey& key, const HardwareProfile& hw, int mr) {
  ShapeClass cls;
  const double w = WqModel::weight_bytes(key);
  const double footprint = w + 4.0 * static_cast<double>(key.m) * static_cast<double>(key.k + key.n);
  cls.capacity = footprint <= static_cast<double>(hw.l2_bytes)   ? CapacityClass::L2
                 : footprint <= static_cast<double>(hw.l3_bytes) ? CapacityClass::L3
                                                                 : CapacityClass::Dram;
  const int64_t tiles = ceil_div(key.m, mr) * ceil_div(key.n, kWqNr);
  cls.parallel = key.threads == 1               ? ParallelClass::Serial
                 : tiles >= 4LL * key.threads ? ParallelClass::ManyTiles
                                                : ParallelClass::FewTiles;
  return cls;
}

std::vector<Plan> candidates(const ShapeKey& key, const ShapeClass& cls,
                             const kernels::WqKernels& ks) {
  const int mr = ks.mr(wq_dtype_parts(key.dtype));
  const int64_t tiles = ceil_div(key.m, mr), panels = ceil_div(key.n, kWqNr);
  std::vector<std::pair<int, int>> grids;
  for (int t : {key.threads, 1}) {
    for (int pm = 1; pm <= t; ++pm) {
      if (t % pm != 0) continue;
      const int pn = t / pm;
      if (pm > tiles || pn > panels) continue;
      if (std::find(grids.begin(), grids.end(), std::pair{pm, pn}) == grids.end())
        grids.emplace_back(pm, pn);
    }
  }
  std::vector<Plan> out;
  for (const auto& [pm, pn] : grids) {
    const int64_t tiles_t = ceil_div(tiles, pm);
    std::vector<int64_t> blocks;
    for (int64_t b : {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}, int64_t{16}, int64_t{32},
                      tiles_t}) {
      b = std::min(b, tiles_t);
      if (std::find(blocks.begin(), blocks.end(), b) == blocks.end()) blocks.push_back(b);
    }
    for (int64_t b : blocks) {
      Plan p;
      p.isa = key.isa;
      p.tile = 0;
      p.mr = mr;
      p.nr = kWqNr;
      p.pack_a = true;  // the split is the packing of A
      p.pack_b = false; // the weights are packed once, by the handle
      p.mc = b * mr;
      p.nc = ceil_div(panels, pn) * kWqNr;
      p.kc = key.wq_group > 0 ? key.wq_group : kWqColumnActGroup;
      p.pm = pm, p.pn = pn, p.pk = 1;
      p.cls = cls;
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace

Explanation explain_wq_plan(const ShapeKey& key, const HardwareProfile& hw,
                            const kernels::WqKernels& ks) {
  Explanation e;
  e.cls = classify_wq(key, hw, ks.mr(wq_dtype_parts(key.dtype)));
  const WqModel model(hw, ks);
  for (Plan& p : candidates(key, e.cls, ks)) {
    CandidateCost cc{p, model.predict(key, p)};
    cc.plan.predicted_us = cc.cost.total_us;
    e.candidates.push_back(cc);
  }
  // Compute-bound candidates often tie on the predicted time (the memory streams hide under
  // the dot products in the model); among those within 1% the one moving the fewest bytes
  // wins, since on the machine the streams do take issue slots and cache bandwidth from the
  // kernel (256 x 4096 x 4096, 2 threads: 2-tile row blocks re-streaming the weights from L3
  // ran at 280-327 GFLOP/s, 64-tile blocks at 342-373).
  double best = e.candidates.at(0).cost.total_us;
  for (const CandidateCost& c : e.candidates) best = std::min(best, c.cost.total_us);
  e.chosen = e.candidates.size();
  for (std::size_t i = 0; i < e.candidates.size(); ++i) {
    const CostBreakdown& c = e.candidates[i].cost;
    if (c.total_us > best * 1.01) continue;
    if (e.chosen == e.candidates.size() || c.memory_us < e.candidates[e.chosen].cost.memory_us)
      e.chosen = i;
  }
  return e;
}

Plan make_wq_plan(const ShapeKey& key, const HardwareProfile& hw, const kernels::WqKernels& ks) {
  const Explanation e = explain_wq_plan(key, hw, ks);
  return e.candidates.at(e.chosen).plan;
}

}  // namespace adaptcore
