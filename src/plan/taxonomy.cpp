#include "plan/taxonomy.hpp"

#include <algorithm>

#include "core/int_math.hpp"

namespace adaptcore {

ShapeClass classify(const ShapeKey& key, const HardwareProfile& hw,
                    const TypeConfig& cfg) noexcept {
  ShapeClass cls;
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const double eb = cfg.in_bytes;
  const double footprint = eb * (m * k + k * n) + 4.0 * m * n;  // C accumulates in 32 bits

  // Capacity: does C fit one register tile, then which cache holds A, B and C together.
  bool one_tile = false;
  for (int t = 0; t < cfg.tile_count; ++t)
    one_tile |= key.m <= cfg.tile(t).mr && key.n <= cfg.tile(t).nr;
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

  // Parallelism: serial if one core at the kernels' peak finishes before another could be
  // woken and joined.
  // Operands in memory (ShapeKey::cold): one core also waits for their bytes at its DRAM rate.
  // So does a core writing a C beyond L1 (a line from L2 and one back per store: a rank-1
  // update's stores take about four times its multiply-adds, docs/EVIDENCE.md E9), counted at
  // the L2 rate.
  double one_core_us = 2.0 * m * n * k / (cfg.peak_gops_per_core(hw) * 1e3);
  if (key.cold) one_core_us = std::max(one_core_us, footprint / (hw.bw_dram_core_gbs * 1e3));
  if (4.0 * m * n > static_cast<double>(hw.l1d_bytes))
    one_core_us = std::max(one_core_us, 8.0 * m * n / (hw.bw_l2_gbs * 1e3));
  const TileShape& main_tile = cfg.tile(0);
  const int64_t tiles =
      ceil_div(key.m, int64_t{main_tile.mr}) * ceil_div(key.n, int64_t{main_tile.nr});
  if (key.threads <= 1 || one_core_us < 2.0 * hw.fork_join_us)
    cls.parallel = ParallelClass::Serial;
  else if (tiles >= 4 * static_cast<int64_t>(key.threads))
    cls.parallel = ParallelClass::ManyTiles;
  else
    cls.parallel = ParallelClass::FewTiles;
  return cls;
}

}  // namespace adaptcore
