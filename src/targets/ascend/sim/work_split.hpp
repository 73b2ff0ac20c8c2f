// Which output blocks (and which part of K) each core computes, for each distribution. Shared
// by the program builder; the analytical model counts the same quantities in closed form.
#pragma once

#include <cstdint>
#include <vector>

#include "targets/ascend/shape.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend::sim {

struct WorkUnit {
  int32_t tm = 0, tn = 0;  // block row and column (base_m x base_n blocks of C)
  int64_t k0 = 0, k1 = 0;  // K range of this unit
  bool atomic = false;     // partial sum: added into C (zero-filled first)
};

// per_core[c]: the units of core c in the order it runs them. Cores get units round robin in
// swizzled block order (DataParallel, SplitK) or contiguous K-iteration ranges (StreamK tail).
void split_work(const AscendShape& s, const TilingPlan& p, int cores,
                std::vector<std::vector<WorkUnit>>& per_core);

}  // namespace adaptcore::ascend::sim
