#include "exec/executor_small.hpp"

namespace adaptcore {

std::optional<SmallPlan> small_plan(const Plan& p, const GemmProblem& g,
                                    const kernels::IsaKernels& ks) noexcept {
  if (g.b_panel_nr != 0 || g.post != nullptr ||
      !small_executor_runs(p, g.m, g.n, g.k, g.b_row_unit()) || !plan_matches(p, ks))
    return std::nullopt;
  // A transposed plan reads op(A)^T in place only where A is stored transposed (its rows are
  // op(A)'s columns).
  if (p.transpose_c && !p.pack_b && g.a_rs != 1) return std::nullopt;
  return SmallPlan{p.is_dot(), p.transpose_c, p.is_dot() ? 0 : p.tile};
}

namespace small_detail {

void run_transposed(const GemmProblem& given, const kernels::TileKernels& t,
                    const kernels::IsaKernels& ks) noexcept {
  const GemmProblem g = transposed_operands(given);  // C^T: g.m columns of C, g.n rows
  // The executor's panels of one depth block: nr columns of op(A)^T each, k steps.
  alignas(64) float packed[kSmallPackFloats];
  const bool pack = g.b_cs != 1;
  if (pack) ks.pack_b(g.k, g.n, g.b, g.b_rs, g.b_cs, t.nr, packed);
  const kernels::AMode mode = a_mode(g);
  kernels::UKernelArgs args = tile_args(g, pack ? t.nr : g.b_rs);
  for (int64_t i = 0; i < g.m; i += t.mr) {
    const int mv = static_cast<int>(std::min<int64_t>(t.mr, g.m - i));
    const kernels::UKernelFn fn = t.get_tc(mode, mv);
    args.a = g.a + i * g.a_rs;
    for (int64_t j = 0; j < g.n; j += t.nr) {
      args.n = static_cast<int>(std::min<int64_t>(t.nr, g.n - j));
      args.b = pack ? packed + j * g.k : g.b + j;
      args.c = g.c + j * g.ldc + i;  // C^T(i, j)
      fn(args);
    }
  }
}

}  // namespace small_detail
}  // namespace adaptcore
