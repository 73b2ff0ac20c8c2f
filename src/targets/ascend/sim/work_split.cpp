#include "targets/ascend/sim/work_split.hpp"

#include <algorithm>

namespace adaptcore::ascend::sim {
namespace {

// Block (tm, tn) of the i-th block in swizzled order: groups of `swz` block rows are walked
// column by column, so consecutive blocks (on neighbouring cores) share B panels and the few A
// panels of the group stay in L2.
void swizzled(int64_t i, int64_t tiles_m, int64_t tiles_n, int swz, int32_t& tm, int32_t& tn) {
  const int64_t group = swz * tiles_n;
  const int64_t g = i / group, r = i % group;
  const int64_t rows = std::min<int64_t>(swz, tiles_m - g * swz);
  tm = static_cast<int32_t>(g * swz + r % rows);
  tn = static_cast<int32_t>(r / rows);
}

}  // namespace

void split_work(const AscendShape& s, const TilingPlan& p, int cores,
                std::vector<std::vector<WorkUnit>>& per_core) {
  const int64_t tiles_m = ceil_div(s.m, p.base_m), tiles_n = ceil_div(s.n, p.base_n);
  const int64_t tiles = tiles_m * tiles_n;
  const int swz = std::max(1, p.swizzle);
  per_core.assign(static_cast<std::size_t>(std::max(1, cores)), {});
  auto block = [&](int64_t i, WorkUnit& u) { swizzled(i, tiles_m, tiles_n, swz, u.tm, u.tn); };

  if (p.dist == Distribution::SplitK) {
    const int64_t slice = round_up(ceil_div(s.k, std::max(1, p.split_k)), p.base_k);
    const int64_t slices = ceil_div(s.k, slice);
    for (int64_t i = 0; i < tiles * slices; ++i) {
      WorkUnit u;
      block(i / slices, u);
      u.k0 = (i % slices) * slice;
      u.k1 = std::min(s.k, u.k0 + slice);
      u.atomic = slices > 1;
      per_core[static_cast<std::size_t>(i % cores)].push_back(u);
    }
    return;
  }
  int64_t dp_tiles = tiles;
  if (p.dist == Distribution::StreamK) dp_tiles = (tiles / cores) * cores;
  for (int64_t i = 0; i < dp_tiles; ++i) {
    WorkUnit u;
    block(i, u);
    u.k0 = 0;
    u.k1 = s.k;
    per_core[static_cast<std::size_t>(i % cores)].push_back(u);
  }
  if (dp_tiles == tiles) return;
  // Stream-K tail: the K iterations of the remaining blocks, in equal contiguous ranges.
  const int64_t kiters = ceil_div(s.k, p.base_k);
  const int64_t tail = tiles - dp_tiles;
  const int64_t total = tail * kiters;
  for (int64_t c = 0; c < cores; ++c) {
    int64_t it = total * c / cores;
    const int64_t end = total * (c + 1) / cores;
    while (it < end) {
      const int64_t t = it / kiters, first = it % kiters;
      const int64_t last = std::min(kiters, first + (end - it));
      WorkUnit u;
      block(dp_tiles + t, u);
      u.k0 = first * p.base_k;
      u.k1 = std::min(s.k, last * p.base_k);
      u.atomic = !(first == 0 && last == kiters);
      per_core[static_cast<std::size_t>(c)].push_back(u);
      it += last - first;
    }
  }
}

}  // namespace adaptcore::ascend::sim
