#include "exec/executor_small.hpp"

namespace adaptcore {

std::optional<SmallPlan> small_plan(const Plan& p, const GemmProblem& g,
                                    const kernels::IsaKernels& ks) noexcept {
  if (p.pm != 1 || p.pn != 1 || p.pk != 1 || p.kind == PlanKind::Rows || p.transpose_c ||
      !plan_matches(p, ks))
    return std::nullopt;
  // The dot tiles read A rows and B columns along k in place (the plan's validity); a dot plan
  // that packs B needs a workspace.
  if (p.is_dot()) return p.pack_b ? std::nullopt : std::optional<SmallPlan>(SmallPlan{true, 0});
  if (p.tile > 63 || p.pack_a || p.pack_b || p.tail == TailStrategy::Padded) return std::nullopt;
  if (!g.b_row_unit() || g.k > p.kc || g.m > kSmallTileDim || g.n > kSmallTileDim ||
      g.k > kSmallTileDim)
    return std::nullopt;
  return SmallPlan{false, p.tile};
}

}  // namespace adaptcore
