#include "exec/executor_small.hpp"

#include <algorithm>

namespace adaptcore {

using kernels::AMode;

std::optional<SmallPlan> small_plan(const Plan& p, const GemmProblem& g,
                                    const kernels::IsaKernels& ks) noexcept {
  if (p.pm != 1 || p.pn != 1 || p.pk != 1) return std::nullopt;
  if (p.is_dot()) {
    // The dot tiles read A rows and B columns along k in place (the plan's validity); a dot
    // plan that packs B needs a workspace.
    if (ks.dot == nullptr || p.mr != kernels::kDotMr || p.nr != kernels::kDotNr || p.pack_b)
      return std::nullopt;
    return SmallPlan{true, 0};
  }
  if (p.tile < 0 || static_cast<std::size_t>(p.tile) >= ks.tiles.size() || p.tile > 63)
    return std::nullopt;
  const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(p.tile)];
  if (p.mr != t.mr || p.nr != t.nr || p.pack_a || p.pack_b || p.tail == TailStrategy::Padded)
    return std::nullopt;
  if (!g.b_row_unit() || g.k > p.kc || g.m > kSmallTileDim || g.n > kSmallTileDim ||
      g.k > kSmallTileDim)
    return std::nullopt;
  return SmallPlan{false, p.tile};
}

}  // namespace adaptcore
