#include "plan/taxonomy.hpp"

#include <algorithm>

namespace adaptcore {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

ShapeClass classify(const ShapeKey& key, const HardwareProfile& hw,
                    const kernels::IsaKernels& ks) noexcept {
  ShapeClass cls;
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const double footprint = 4.0 * (m * k + k * n + m * n);

  // Capacity: does C fit one register tile, then which cache holds A, B and C together.
  bool one_tile = false;
  for (const auto& t : ks.tiles) one_tile |= key.m <= t.mr && key.n <= t.nr;
  const double l1 = static_cast<double>(hw.l1d_bytes);
  if (one_tile && 4.0 * k * (m + n) <= l1)
    cls.capacity = CapacityClass::Registers;
  else if (footprint <= l1)
    cls.capacity = CapacityClass::L1;
  else if (footprint <= static_cast<double>(hw.l2_bytes))
    cls.capacity = CapacityClass::L2;
  else if (footprint <= static_cast<double>(hw.l3_bytes) * std::max(1, key.threads))
    cls.capacity = CapacityClass::L3;
  else
    cls.capacity = CapacityClass::Dram;

  // Parallelism: serial if one core finishes before another could be woken and joined.
  const double flops = 2.0 * m * n * k;
  const double one_core_us = flops / (hw.peak_gflops_per_core(key.isa) * 1e3);
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

}  // namespace adaptcore
