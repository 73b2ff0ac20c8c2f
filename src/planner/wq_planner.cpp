#include "planner/wq_planner.hpp"
#include "core/int_math.hpp"

#include <algorithm>

#include "core/wq_problem.hpp"
#include "core/wq_weights.hpp"
#include "model/wq_model.hpp"
#include "plan/core_grid.hpp"

namespace adaptcore {
namespace {

ShapeClass classify_wq(const ShapeKey& key, const HardwareProfile& hw, int mr) {
  ShapeClass cls;
  const double w = WqModel::weight_bytes(key);
  const double footprint =
      w + 4.0 * static_cast<double>(key.m) * static_cast<double>(key.k + key.n);
  cls.capacity = footprint <= static_cast<double>(hw.l2_bytes)   ? CapacityClass::L2
                 : footprint <= static_cast<double>(hw.l3_bytes) ? CapacityClass::L3
                                                                 : CapacityClass::Dram;
  const int64_t tiles = ceil_div(key.m, mr) * ceil_div(key.n, kWqNr);
  cls.parallel = key.threads == 1             ? ParallelClass::Serial
                 : tiles >= 4LL * key.threads ? ParallelClass::ManyTiles
                                              : ParallelClass::FewTiles;
  return cls;
}

// The depth block (Plan::kc) and the weight prefetch (Plan::prefetch_b) of a plan whose row
// block is set. int8 panels from 3 rows a block on prefetch the next depth block into L2 while
// the block's tiles run (executor_wq.cpp), where the L2 holds two depth blocks and the block's
// split activations besides. The whole depth is one block where that fits; a deeper panel is
// cut into equal blocks of whole activation groups that do (a 14336-deep panel is 458 KB: with
// 8 rows' activations the next one would evict the current one, so it ran without the
// prefetch; in two blocks it has it again: docs/EVIDENCE.md, E4). Blocks are equal because a short
// last one would issue the next panel's prefetch in a burst. Where not even two blocks of 1024
// depth values fit beside the activations, one block and no prefetch.
void set_depth_blocking(const ShapeKey& key, const HardwareProfile& hw, Plan& p) {
  const int64_t group = key.wq_group > 0 ? key.wq_group : kWqColumnActGroup;
  const int64_t depth = ceil_div(key.k, group) * group;
  p.kc = depth;
  p.prefetch_b = false;
  const int64_t rows = std::min(p.mc, key.m);
  if (wq_dtype_int4(key.dtype) || rows < 3) return;
  const double budget = 0.75 * static_cast<double>(hw.l2_bytes) - static_cast<double>(rows) *
                                                                      wq_dtype_parts(key.dtype) *
                                                                      static_cast<double>(key.k);
  auto block_bytes = [](int64_t kc) {
    return static_cast<double>(ceil_div(kc, int64_t{4})) * 128.0;
  };
  if (2.0 * block_bytes(depth) <= budget) {
    p.prefetch_b = true;
    return;
  }
  constexpr int64_t kMinDepthBlock = 1024;
  const int64_t fit = static_cast<int64_t>(budget / 2.0 / 128.0) * 4 / group * group;
  if (fit < std::max(kMinDepthBlock, group)) return;
  const int64_t blocks = ceil_div(depth, fit);
  p.kc = ceil_div(ceil_div(depth, blocks), group) * group;
  p.prefetch_b = true;
}

// The plans of one kernel table, `tile` the index plans name it by (Plan::tile: 0 the table's
// own kernels, 1 the vector kernels beside a matrix engine's).
void add_candidates(const ShapeKey& key, const ShapeClass& cls, const kernels::WqKernels& ks,
                    int tile, const HardwareProfile& hw, std::vector<Plan>& out) {
  const int mr = ks.mr(wq_dtype_parts(key.dtype));
  const int64_t tiles = ceil_div(key.m, int64_t{mr}), panels = ceil_div(key.n, kWqNr);
  for (const CoreGrid& g : core_grids(key.threads, key.m, key.n, key.k, mr, kWqNr, false)) {
    const int64_t tiles_t = ceil_div(tiles, int64_t{g.pm});
    // The activation split (O(mk), before the product) runs on every core of the grid when
    // each gets whole tiles and there is enough of it (2^16 elements) to pay for a second
    // fork/join; else on the calling thread alone.
    const int threads = g.pm * g.pn;
    const int quantize_threads =
        tiles >= threads && key.m * key.k >= (int64_t{1} << 16) ? threads : 1;
    std::vector<int64_t> blocks;
    for (int64_t b :
         {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}, int64_t{16}, int64_t{32}, tiles_t}) {
      b = std::min(b, tiles_t);
      if (std::find(blocks.begin(), blocks.end(), b) == blocks.end()) blocks.push_back(b);
    }
    for (int64_t b : blocks) {
      Plan p;
      p.kind = PlanKind::WeightQuantized;
      p.isa = key.isa;
      p.tile = tile;
      p.mr = mr;
      p.nr = kWqNr;
      p.pack_a = true;   // the split is the packing of A
      p.pack_b = false;  // the weights are packed once, by the handle
      p.mc = b * mr;
      p.nc = ceil_div(panels, int64_t{g.pn}) * kWqNr;
      p.pm = g.pm, p.pn = g.pn, p.pk = 1;
      p.quantize_threads = quantize_threads;
      set_depth_blocking(key, hw, p);
      p.cls = cls;
      out.push_back(p);
    }
  }
}

// The kernels a plan names (Plan::tile), or null.
const kernels::WqKernels* kernels_of(const Plan& p, const kernels::WqKernels& ks) {
  if (p.tile == 0) return &ks;
  return p.tile == 1 ? ks.below : nullptr;
}

}  // namespace

Explanation explain_wq_plan(const ShapeKey& key, const HardwareProfile& hw,
                            const kernels::WqKernels& ks) {
  const ShapeClass cls = classify_wq(key, hw, ks.mr(wq_dtype_parts(key.dtype)));
  std::vector<Plan> plans;
  add_candidates(key, cls, ks, 0, hw, plans);
  if (ks.below != nullptr) add_candidates(key, cls, *ks.below, 1, hw, plans);
  const WqModel own(hw, ks.dot_bits, ks.engine);
  const WqModel below(hw, ks.below != nullptr ? ks.below->dot_bits : 0,
                      ks.below != nullptr && ks.below->engine);
  Explanation e = rank_by_model(
      cls, std::move(plans),
      [&](const Plan& p) { return (p.tile == 0 ? own : below).predict(key, p); },
      [](Plan& p, const CostBreakdown& c) { p.predicted_us = c.total_us; });
  // Compute-bound candidates often tie on the predicted time (the memory streams hide under
  // the dot products in the model); among those within 1% the one moving the fewest bytes
  // wins, since on the machine the streams do take issue slots and cache bandwidth from the
  // kernel (docs/QUANT.md, "Model").
  const double best = e.candidates.at(e.chosen).cost.total_us;
  std::size_t pick = e.candidates.size();
  for (std::size_t i = 0; i < e.candidates.size(); ++i) {
    const CostBreakdown& c = e.candidates[i].cost;
    if (c.total_us > best * 1.01) continue;
    if (pick == e.candidates.size() || c.memory_us < e.candidates[pick].cost.memory_us) pick = i;
  }
  e.chosen = pick;
  return e;
}

std::string check_wq_plan(const ShapeKey& key, const Plan& p, const kernels::WqKernels& ks) {
  if (p.kind != PlanKind::WeightQuantized) return "not a weight-quantized plan";
  const kernels::WqKernels* used = kernels_of(p, ks);
  if (used == nullptr) return "weight-quantized plan naming kernels the table does not have";
  if (p.mr != used->mr(wq_dtype_parts(key.dtype)) || p.nr != kWqNr)
    return "mr x nr does not match the weight-quantized tile";
  if (!p.pack_a || p.pack_b) return "weight-quantized plan with other packing than A's split";
  const int64_t group = key.wq_group > 0 ? key.wq_group : kWqColumnActGroup;
  if (p.kc < group || p.kc % group != 0)
    return "weight-quantized plan whose depth block is not whole activation groups";
  if (p.mc % p.mr != 0) return "weight-quantized row block not a whole number of tiles";
  if (p.pk != 1) return "weight-quantized plan with split-K";
  if (p.quantize_threads != 1 && p.quantize_threads != p.threads())
    return "weight-quantized plan splitting the activations on other than 1 or all its threads";
  if (p.tail != TailStrategy::Masked) return "weight-quantized plan with a padded tail";
  return "";
}

Plan make_wq_plan(const ShapeKey& key, const HardwareProfile& hw, const kernels::WqKernels& ks) {
  const Explanation e = explain_wq_plan(key, hw, ks);
  return e.candidates.at(e.chosen).plan;
}

}  // namespace adaptcore
