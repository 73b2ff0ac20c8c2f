#include "plan/candidates.hpp"

#include <algorithm>
#include <array>

namespace adaptcore {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_down(int64_t v, int64_t q) { return std::max(q, v / q * q); }

struct Grid {
  int pm, pn, pk;
};

// Core grids for t threads: every factorisation pm * pn * pk = t that leaves each core at least
// one register tile (and, for split-K, at least 64 depth steps).
void grids_for(int t, const ShapeKey& key, int mr, int nr, bool allow_split_k,
               std::vector<Grid>& out) {
  for (int pk = 1; pk <= t; ++pk) {
    if (t % pk != 0 || (pk > 1 && (!allow_split_k || key.k < 64 * pk))) continue;
    const int rest = t / pk;
    for (int pm = 1; pm <= rest; ++pm) {
      if (rest % pm != 0) continue;
      const int pn = rest / pm;
      if (pm > ceil_div(key.m, mr) || pn > ceil_div(key.n, nr)) continue;
      out.push_back({pm, pn, pk});
    }
  }
}

}  // namespace

std::vector<Plan> enumerate_candidates(const ShapeKey& key, const ShapeClass& cls,
                                       const HardwareProfile& hw,
                                       const kernels::IsaKernels& ks) {
  std::vector<Plan> out;
  out.reserve(192);  // the most a shape gets on 2 to 8 threads; planning is on the miss path
  const bool small = cls.capacity == CapacityClass::Registers || cls.capacity == CapacityClass::L1;
  const bool split_k_ok = cls.parallel == ParallelClass::FewTiles;

  for (int ti = 0; ti < static_cast<int>(ks.tiles.size()); ++ti) {
    const auto& tile = ks.tiles[static_cast<std::size_t>(ti)];
    const int mr = tile.mr, nr = tile.nr;

    std::vector<Grid> grids;
    grids_for(1, key, mr, nr, false, grids);
    if (cls.parallel != ParallelClass::Serial) grids_for(key.threads, key, mr, nr, split_k_ok, grids);

    // kc: long enough to amortise loading and storing the C tile (its cost per depth step
    // falls as 1/kc), short enough that the A block and a B sliver stay in L2. The kernels
    // stream both slivers from L2 at full speed, so L1 does not bound kc.
    const int64_t kc_max = std::max<int64_t>(64, round_down(hw.l2_bytes / (4 * (2 * mr + nr) * 8), 64));
    const int64_t kcs[2] = {std::min<int64_t>(256, kc_max), std::min<int64_t>(512, kc_max)};
    // B read in place from memory is kc concurrent row streams, and the prefetchers follow
    // only a few at full speed (the executor's prefetch of the next block helps, not fully):
    // decode shapes of at most 8 rows get 8-deep blocks too (measured 1.05-1.35x faster than
    // 32-deep ones at 1 to 4 rows; at 16 rows 1.1-1.4x slower, the C tile being reloaded
    // every 8 steps).
    constexpr int64_t kKcDecode = 8, kKcStreaming = 32;

    for (int pack_a = 0; pack_a < 2; ++pack_a) {
      for (int pack_b = 0; pack_b < 2; ++pack_b) {
        if (!pack_b && !key.b_row_unit) continue;  // kernels read B rows in place only
        // Small problems: packing cannot amortise; offer it only where it is required.
        if (small && (pack_a || (pack_b && key.b_row_unit))) continue;
        // In-place row-major A needs one address register per row; past 8 rows the kernel
        // spills them inside its depth loop.
        if (!pack_a && key.a_row_unit && mr > 8) continue;
        std::array<int64_t, 3> opts{};
        std::size_t n_opts = 0;
        if (pack_b) {
          opts = {kcs[0], kcs[1], 0}, n_opts = 2;
        } else if (key.m <= 8) {
          opts = {kKcDecode, kKcStreaming, kcs[0]}, n_opts = 3;
        } else {
          opts = {kKcStreaming, kcs[0], 0}, n_opts = 2;
        }
        std::array<int64_t, 3> used{};
        std::size_t n_used = 0;
        for (std::size_t kci = 0; kci < n_opts; ++kci) {
          int64_t kc = opts[kci];
          if (key.k <= kc + kc / 4) kc = key.k;  // one depth block; avoid a thin remainder
          if (std::find(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(n_used), kc) !=
              used.begin() + static_cast<std::ptrdiff_t>(n_used))
            continue;  // same as an earlier option
          used[n_used++] = kc;
          for (const Grid& g : grids) {
            const int64_t m_t = std::min(key.m, ceil_div(ceil_div(key.m, mr), g.pm) * mr);
            const int64_t n_t = std::min(key.n, ceil_div(ceil_div(key.n, nr), g.pn) * nr);
            Plan p;
            p.isa = ks.isa;
            p.tile = ti;
            p.mr = mr;
            p.nr = nr;
            p.pack_a = pack_a != 0;
            p.pack_b = pack_b != 0;
            p.kc = std::max<int64_t>(1, kc);
            // mc: the packed A block (mc x kc) and the B sliver it meets (kc x nr) share L2
            // with C lines and the next sliver: both in a third of L2 (measured best on Zen 4
            // against a half or more, which lets set conflicts evict the sliver). nc: the
            // packed B panel in half of this core's L3 share.
            const int64_t a_room = hw.l2_bytes / 3 - 4 * p.kc * nr;
            p.mc = p.pack_a ? std::min(m_t, round_down(std::max<int64_t>(0, a_room) / (4 * p.kc), mr))
                            : m_t;
            p.nc = p.pack_b ? std::min(n_t, round_down(hw.l3_bytes / (2 * 4 * p.kc), nr)) : n_t;
            p.mc = std::max<int64_t>(1, p.mc);
            p.nc = std::max<int64_t>(1, p.nc);
            p.pm = g.pm, p.pn = g.pn, p.pk = g.pk;
            p.cls = cls;
            p.tail = TailStrategy::Masked;
            out.push_back(p);
            const bool has_tail = key.m % mr != 0 || key.n % nr != 0;
            if (p.pack_a && p.pack_b && has_tail) {
              p.tail = TailStrategy::Padded;
              out.push_back(p);
            }
          }
        }
      }
    }
  }
  // Dot-product kernels: only where A rows and B columns are contiguous along k (typically B
  // stored transposed, weights [N, K]); they read B once, in order, with no packing.
  if (key.a_k_unit && key.b_k_unit && ks.dot != nullptr) {
    std::vector<Grid> grids;
    grids_for(1, key, kernels::kDotMr, kernels::kDotNr, false, grids);
    if (cls.parallel != ParallelClass::Serial)
      grids_for(key.threads, key, kernels::kDotMr, kernels::kDotNr, false, grids);
    for (const Grid& g : grids) {
      Plan p;
      p.isa = ks.isa;
      p.dot = true;
      p.mr = kernels::kDotMr;
      p.nr = kernels::kDotNr;
      p.mc = key.m, p.nc = key.n, p.kc = std::max<int64_t>(1, key.k);
      p.pm = g.pm, p.pn = g.pn, p.pk = 1;
      p.cls = cls;
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace adaptcore
