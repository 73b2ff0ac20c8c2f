// The planning implementations, in order (oneDNN's implementation-list idea): the first that
// applies to a key plans it. The CPU data types share one pipeline (planner/planner.hpp over the
// key's TypeConfig); weight-quantized GEMM is a different algorithm behind the same interface
// (planner/wq_planner.hpp). Kernel tables come from kernel_select.hpp, so the planner, the
// plan-file check and the executor agree on them.
#pragma once

#include <string>

#include "adaptcore/hardware.hpp"
#include "core/shape_key.hpp"
#include "planner/planner.hpp"

namespace adaptcore {

struct PlanningImpl {
  const char* name;
  bool (*applies)(const ShapeKey& key) noexcept;
  // Candidates, costs and the choice for a key (throws only bad_alloc).
  Explanation (*explain)(const ShapeKey& key, const HardwareProfile& hw);
  // Whether a plan of a plan file can run for a key with profile hw: "" or the reason.
  std::string (*check)(const ShapeKey& key, const Plan& plan, const HardwareProfile& hw);
};

// The implementation for a key (the last one, weight-quantized or not, always applies to its
// dtypes; null for none).
const PlanningImpl* planning_impl_for(const ShapeKey& key) noexcept;
Explanation explain_key(const ShapeKey& key, const HardwareProfile& hw);

}  // namespace adaptcore
