#include "plan/lowp_planner.hpp"

#include <algorithm>

#include "model/lowp_model.hpp"

namespace adaptcore {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_down(int64_t v, int64_t q) { return std::max(q, v / q * q); }

// B read in place (row-major op(B)) for few rows: packing B would read and write all of it for
// a product that reads it once. Depths of 8 to 64 rows: the sliver is kc row streams
// (the model's DRAM stream term decides); one block of all the core's rows and columns.
void add_direct_b_candidates(const ShapeKey& key, const ShapeClass& cls,
                             const kernels::LowpKernels& ks, std::vector<Plan>& out) {
  const kernels::LowpDirectTile* t = ks.direct_b;
  if (t == nullptr || !key.b_row_unit || key.m > 8 * t->mr) return;
  // int8 in place wins only for a single row: at 4096 x 4096, 2 threads, m = 1 29 vs 23 GOP/s
  // packed, but m = 2 45 vs 55 and m = 4 54 vs 76 (median of 3). Its epilogue undoes the
  // 4-row interleave of 4 column vectors per call, and the shallow depth blocks that keep the
  // row streams efficient give each call too little work to hide it; the model does not see
  // that cost yet.
  if (key.dtype == DType::U8S8 && key.m > 1) return;
  std::vector<std::pair<int, int>> grids{{1, 1}};
  if (cls.parallel != ParallelClass::Serial && key.threads > 1 &&
      key.n >= static_cast<int64_t>(key.threads) * t->nr)
    grids.emplace_back(1, key.threads);  // split N: each core streams its own columns
  for (const int64_t kc0 : {8, 16, 32, 64, 256}) {
    const int64_t kc = std::min<int64_t>(kc0, key.k);
    for (const auto& [pm, pn] : grids) {
      Plan p;
      p.isa = ks.isa;
      p.tile = 0;
      p.mr = t->mr;
      p.nr = t->nr;
      p.pack_a = true;
      p.pack_b = false;
      p.kc = std::max<int64_t>(1, kc);
      p.mc = std::max<int64_t>(1, key.m);
      p.nc = std::max<int64_t>(1, ceil_div(ceil_div(key.n, t->nr), pn) * t->nr);
      p.pm = pm, p.pn = pn, p.pk = 1;
      p.cls = cls;
      p.tail = TailStrategy::Masked;
      out.push_back(p);
    }
    if (kc == key.k) break;
  }
}

// Core grids pm x pn of the key's threads (one core, and every split with at least one mr x nr
// tile per core unless the shape is serial).
std::vector<std::pair<int, int>> core_grids(const ShapeKey& key, const ShapeClass& cls, int mr,
                                            int nr) {
  std::vector<std::pair<int, int>> grids{{1, 1}};
  if (cls.parallel == ParallelClass::Serial) return grids;
  for (int pm = 1; pm <= key.threads; ++pm) {
    if (key.threads % pm != 0) continue;
    const int pn = key.threads / pm;
    if (pm > ceil_div(key.m, mr) || pn > ceil_div(key.n, nr)) continue;
    if (pm * pn > 1) grids.emplace_back(pm, pn);
  }
  return grids;
}

// Dot-product kernels where A's rows and B's columns are both contiguous along k (B stored
// N x K, the usual weight layout): nothing packed, B read once in order as nr streams. Core
// grids as for the packed tiles, the whole depth in one call.
void add_dot_candidates(const ShapeKey& key, const ShapeClass& cls,
                        const kernels::LowpKernels& ks, std::vector<Plan>& out) {
  if (ks.dot == nullptr || !key.a_k_unit || !key.b_k_unit) return;
  const int mr = kernels::kLowpDotMr, nr = kernels::kLowpDotNr;
  for (const auto& [pm, pn] : core_grids(key, cls, mr, nr)) {
    Plan p;
    p.isa = ks.isa;
    p.tile = 0;
    p.dot = true;
    p.mr = mr;
    p.nr = nr;
    p.pack_a = p.pack_b = false;
    p.kc = std::max<int64_t>(1, key.k);
    p.mc = std::max<int64_t>(1, std::min(key.m, ceil_div(ceil_div(key.m, mr), pm) * mr));
    p.nc = std::max<int64_t>(1, std::min(key.n, ceil_div(ceil_div(key.n, nr), pn) * nr));
    p.pm = pm, p.pn = pn, p.pk = 1;
    p.cls = cls;
    p.tail = TailStrategy::Masked;
    out.push_back(p);
  }
}

}  // namespace

ShapeClass classify_lowp(const ShapeKey& key, const HardwareProfile& hw,
                         const kernels::LowpKernels& ks) noexcept {
  ShapeClass cls;
  const double eb = input_bytes(key.dtype);
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const double footprint = eb * (m * k + k * n) + 4.0 * m * n;
  bool one_tile = false;
  for (const auto& t : ks.tiles) one_tile |= key.m <= t.mr && key.n <= t.nr;
  const double l1 = static_cast<double>(hw.l1d_bytes);
  if (one_tile && eb * k * (m + n) <= l1)
    cls.capacity = CapacityClass::Registers;
  else if (footprint <= l1)
    cls.capacity = CapacityClass::L1;
  else if (footprint <= static_cast<double>(hw.l2_bytes))
    cls.capacity = CapacityClass::L2;
  else if (footprint <= static_cast<double>(hw.l3_bytes) * std::max(1, key.threads))
    cls.capacity = CapacityClass::L3;
  else
    cls.capacity = CapacityClass::Dram;

  // Serial when one core at this path's peak finishes before a second could be woken.
  const double one_core_us = 2.0 * m * n * k / (LowpModel(hw, ks).peak_gops_per_core() * 1e3);
  const auto& main_tile = ks.tiles.front();
  const int64_t tiles = ceil_div(key.m, main_tile.mr) * ceil_div(key.n, main_tile.nr);
  if (key.threads <= 1 || one_core_us < 2.0 * hw.fork_join_us)
    cls.parallel = ParallelClass::Serial;
  else if (tiles >= 4 * static_cast<int64_t>(key.threads))
    cls.parallel = ParallelClass::ManyTiles;
  else
    cls.parallel = ParallelClass::FewTiles;
  return cls;
}

std::vector<Plan> enumerate_lowp_candidates(const ShapeKey& key, const ShapeClass& cls,
                                            const HardwareProfile& hw,
                                            const kernels::LowpKernels& ks) {
  std::vector<Plan> out;
  const int64_t pw = 4 / ks.group;  // packed bytes per k value (4 per 32-bit group)
  for (int ti = 0; ti < static_cast<int>(ks.tiles.size()); ++ti) {
    const auto& tile = ks.tiles[static_cast<std::size_t>(ti)];
    const int mr = tile.mr, nr = tile.nr;
    // Core grids pm x pn (no split-K: the kernels write C directly, and integer partials would
    // need their own reduction; FewTiles shapes use the finer tiles instead).
    const std::vector<std::pair<int, int>> grids = core_grids(key, cls, mr, nr);
    // kc in k values: the packed B sliver (kc x nr) and A block share L2 as for fp32, and the
    // same packed bytes hold 2x (bf16) or 4x (int8) more depth; multiples of 4 keep every
    // block on whole groups.
    const int64_t kc_max =
        std::max<int64_t>(64, round_down(hw.l2_bytes / (pw * (2 * mr + nr) * 8), 64));
    const int64_t scale = ks.group;  // 256 and 512 fp32-equivalent depths
    const int64_t kcs[2] = {std::min<int64_t>(256 * scale, kc_max),
                            std::min<int64_t>(512 * scale, kc_max)};
    int64_t used[2] = {-1, -1};
    for (int kci = 0; kci < 2; ++kci) {
      int64_t kc = kcs[kci];
      if (key.k <= kc + kc / 4) kc = key.k;
      if (kc == used[0]) continue;
      used[kci] = kc;
      for (const auto& [pm, pn] : grids) {
        const int64_t m_t = std::min(key.m, ceil_div(ceil_div(key.m, mr), pm) * mr);
        const int64_t n_t = std::min(key.n, ceil_div(ceil_div(key.n, nr), pn) * nr);
        Plan p;
        p.isa = ks.isa;
        p.tile = ti;
        p.mr = mr;
        p.nr = nr;
        p.pack_a = p.pack_b = true;
        p.kc = std::max<int64_t>(1, kc);
        const int64_t a_room = hw.l2_bytes / 3 - pw * p.kc * nr;
        p.mc = std::min(m_t, round_down(std::max<int64_t>(0, a_room) / (pw * p.kc), mr));
        p.nc = std::min(n_t, round_down(hw.l3_bytes / (2 * pw * p.kc), nr));
        p.mc = std::max<int64_t>(1, p.mc);
        p.nc = std::max<int64_t>(1, p.nc);
        p.pm = pm, p.pn = pn, p.pk = 1;
        p.cls = cls;
        p.tail = TailStrategy::Masked;
        out.push_back(p);
      }
    }
  }
  add_direct_b_candidates(key, cls, ks, out);
  add_dot_candidates(key, cls, ks, out);
  return out;
}

Explanation explain_lowp_plan(const ShapeKey& key, const HardwareProfile& hw,
                              const kernels::LowpKernels& ks) {
  Explanation e;
  e.cls = classify_lowp(key, hw, ks);
  const LowpModel model(hw, ks);
  for (Plan& p : enumerate_lowp_candidates(key, e.cls, hw, ks)) {
    const CostBreakdown cost = model.predict(key, p);
    p.predicted_us = cost.total_us;
    e.candidates.push_back({p, cost});
  }
  for (std::size_t i = 1; i < e.candidates.size(); ++i)
    if (e.candidates[i].cost.total_us < e.candidates[e.chosen].cost.total_us) e.chosen = i;
  return e;
}

Plan make_lowp_plan(const ShapeKey& key, const HardwareProfile& hw,
                    const kernels::LowpKernels& ks) {
  const Explanation e = explain_lowp_plan(key, hw, ks);
  return e.candidates[e.chosen].plan;
}

}  // namespace adaptcore
