// Core grids: the ways of giving `threads` cores a pm x pn x pk share of C (pk > 1: split-K),
// written once for every plan kind.
#pragma once

#include <cstdint>
#include <vector>

#include "core/int_math.hpp"

namespace adaptcore {

struct CoreGrid {
  int pm = 1, pn = 1, pk = 1;
  friend bool operator==(const CoreGrid&, const CoreGrid&) = default;
};

// One core, then (for more than one thread) every factorisation pm * pn * pk = threads that
// leaves each core at least one mr x nr tile; pk > 1 only when split_k and each part keeps at
// least 64 depth steps. Ordered by pk, then pm.
inline std::vector<CoreGrid> core_grids(int threads, int64_t m, int64_t n, int64_t k, int mr,
                                        int nr, bool split_k) {
  std::vector<CoreGrid> out{{1, 1, 1}};
  if (threads <= 1) return out;
  for (int pk = 1; pk <= threads; ++pk) {
    if (threads % pk != 0 || (pk > 1 && (!split_k || k < 64 * pk))) continue;
    const int rest = threads / pk;
    for (int pm = 1; pm <= rest; ++pm) {
      if (rest % pm != 0) continue;
      const int pn = rest / pm;
      if (pm > ceil_div(m, int64_t{mr}) || pn > ceil_div(n, int64_t{nr})) continue;
      out.push_back({pm, pn, pk});
    }
  }
  return out;
}

// The busiest core's extent of `total` when split over `parts` cores in whole units.
inline int64_t core_share(int64_t total, int64_t unit, int parts) noexcept {
  return std::min(total, ceil_div(ceil_div(total, unit), int64_t{parts}) * unit);
}

}  // namespace adaptcore
