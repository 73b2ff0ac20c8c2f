// Planning of weight-quantized shapes (W8A16, W8A8, W4A16, W4A8): the path's one register tile
// per part count, candidate row blocks (how many row tiles share each weight panel while it is
// in L1/L2) and core grids (split N: every core streams its own weights once; split M: both
// read all of them), argmin over WqModel. Plans are ordinary `Plan`s cached under keys whose
// dtype is weight-quantized (mr x 32 tile, mc the row block, kc the activation group).
#pragma once

#include <string>

#include "adaptcore/hardware.hpp"
#include "kernels/wq.hpp"
#include "plan/planner.hpp"

namespace adaptcore {

Plan make_wq_plan(const ShapeKey& key, const HardwareProfile& hw, const kernels::WqKernels& ks);
Explanation explain_wq_plan(const ShapeKey& key, const HardwareProfile& hw,
                            const kernels::WqKernels& ks);
// The validator of a weight-quantized plan for a key and kernels: "" or the reason.
std::string check_wq_plan(const ShapeKey& key, const Plan& p, const kernels::WqKernels& ks);

}  // namespace adaptcore
