#include "exec/executor_small.hpp"

namespace adaptcore {

std::optional<SmallPlan> small_plan(const Plan& p, const GemmProblem& g,
                                    const kernels::IsaKernels& ks) noexcept {
  if (!small_executor_runs(p, g.m, g.n, g.k, g.b_row_unit()) || !plan_matches(p, ks))
    return std::nullopt;
  return SmallPlan{p.is_dot(), p.is_dot() ? 0 : p.tile};
}

}  // namespace adaptcore
