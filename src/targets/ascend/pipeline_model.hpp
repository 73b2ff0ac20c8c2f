// The NPU's analytical model (docs/ASCEND.md, "Pipeline model"): per core, the four-stage
// pipeline GM->L1 (MTE2), L1->L0A/L0B (MTE1), cube, L0C->GM (FixPipe). With double buffering
// the steady state of a K iteration is its slowest stage, plus fill and drain per block; rounds
// of blocks per core; the device's HBM and L2 bandwidth shared by the active cores with L2 reuse
// estimated in closed form; relayout and zero-fill pre-passes; kernel launches. Closed forms
// only: no instruction stream (that is the simulator's, which this model must predict).
#pragma once

#include <string>

#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend {

struct NpuCost {
  double total_us = 0;
  double pipeline_us = 0;  // busiest core's pipeline time
  double memory_us = 0;    // device-wide HBM + L2 traffic time
  double prepass_us = 0;   // relayout / zero-fill kernel (launch included), 0 if none
  double launch_us = 0;    // the matmul kernel's launch
  double hbm_bytes = 0;    // estimated HBM traffic of the matmul kernel
  const char* bound = "";  // "mte2", "mte1", "cube", "fix", "hbm" or "launch"
};

NpuCost predict(const AscendProfile& hw, const AscendShape& s, const TilingPlan& p) noexcept;

}  // namespace adaptcore::ascend
