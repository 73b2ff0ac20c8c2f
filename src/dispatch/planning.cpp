#include "dispatch/planning.hpp"

#include <array>

#include "core/wq_weights.hpp"
#include "dispatch/kernel_select.hpp"
#include "plan/candidates.hpp"
#include "planner/wq_planner.hpp"

namespace adaptcore {
namespace {

// --- The CPU data types (fp32, bf16, int8): one pipeline over the key's TypeConfig.
bool pipeline_applies(const ShapeKey& key) noexcept { return !is_weight_quantized(key.dtype); }

Explanation pipeline_explain(const ShapeKey& key, const HardwareProfile& hw) {
  TypeConfig cfg;
  if (!type_config_for(hw, key.dtype, key.isa, cfg)) return {};
  return explain_plan(key, hw, cfg);
}

std::string pipeline_check(const ShapeKey& key, const Plan& p, const HardwareProfile& hw) {
  TypeConfig cfg;
  if (!type_config_for(hw, key.dtype, key.isa, cfg))
    return std::string("no ") + to_string(key.dtype) + " kernels on " + to_string(key.isa);
  switch (p.kind) {
    case PlanKind::Blocked: return check_blocked_plan(key, p, cfg);
    case PlanKind::Dot: return check_dot_plan(key, p, cfg);
    case PlanKind::Rows: return check_rows_plan(key, p, cfg);
    case PlanKind::WeightQuantized: break;
  }
  return std::string("a weight-quantized plan for a ") + to_string(key.dtype) + " key";
}

// --- Weight-quantized GEMM: its own algorithm (docs/QUANT.md).
bool wq_applies(const ShapeKey& key) noexcept { return is_weight_quantized(key.dtype); }

Explanation wq_explain(const ShapeKey& key, const HardwareProfile& hw) {
  return explain_wq_plan(key, hw, wq_kernels_for(hw, key.isa));
}

std::string wq_check(const ShapeKey& key, const Plan& p, const HardwareProfile& hw) {
  return check_wq_plan(key, p, wq_kernels_for(hw, key.isa));
}

constexpr std::array kImpls{
    PlanningImpl{"blocked/dot pipeline", &pipeline_applies, &pipeline_explain, &pipeline_check},
    PlanningImpl{"weight-quantized", &wq_applies, &wq_explain, &wq_check},
};

}  // namespace

const PlanningImpl* planning_impl_for(const ShapeKey& key) noexcept {
  for (const PlanningImpl& impl : kImpls)
    if (impl.applies(key)) return &impl;
  return nullptr;
}

Explanation explain_key(const ShapeKey& key, const HardwareProfile& hw) {
  const PlanningImpl* impl = planning_impl_for(key);
  return impl != nullptr ? impl->explain(key, hw) : Explanation{};
}

}  // namespace adaptcore
