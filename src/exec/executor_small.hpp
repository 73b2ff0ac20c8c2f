// The small-problem executor: a one-thread plan that reads A and B in place over the whole depth
// (a dot-product plan, or a register-tile plan with nothing packed and k within one depth
// block) runs as loops of kernel calls on the calling thread: no pool, no workspace, C from
// registers. The same kernels in the same depth order as execute() would run, so the results
// are the same bits.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/problem.hpp"
#include "exec/executor.hpp"
#include "kernels/ukernel.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

// What the small executor needs of a plan, in one byte (the tiny-call table's payload):
// bit 0 set, bit 1 dot-product tiles, bit 2 C stored transposed (Plan::transpose_c), bits 3..7
// the register tile's index in the kernel table.
struct SmallPlan {
  bool dot = false;
  bool transposed = false;
  int tile = 0;

  std::uint8_t encode() const noexcept {
    return static_cast<std::uint8_t>(1u | (dot ? 2u : 0u) | (transposed ? 4u : 0u) |
                                     static_cast<unsigned>(tile) << 3);
  }
  static SmallPlan decode(std::uint8_t b) noexcept {
    return {(b & 2u) != 0, (b & 4u) != 0, b >> 3};
  }
};

// The plan as a small plan, when it is one for this problem and kernel table.
std::optional<SmallPlan> small_plan(const Plan& plan, const GemmProblem& prob,
                                    const kernels::IsaKernels& ks) noexcept;

namespace small_detail {

// How a register tile reads A (in place), and the kernel arguments every tile of the problem
// shares (B's row stride `ldb`; the operand addresses and the column count are per tile).
inline kernels::AMode a_mode(const GemmProblem& g) noexcept {
  return g.a_row_unit() ? kernels::AMode::RowUnit : kernels::AMode::ColUnit;
}
inline kernels::UKernelArgs tile_args(const GemmProblem& g, int64_t ldb) noexcept {
  return {.k = g.k,
          .a = nullptr,
          .a_stride = a_mode(g) == kernels::AMode::ColUnit ? g.a_cs : g.a_rs,
          .b = nullptr,
          .ldb = ldb,
          .c = nullptr,
          .ldc = g.ldc,
          .alpha = g.alpha,
          .beta = g.beta,
          .n = 0};
}

// Register tiles with A and B in place, each over the whole depth.
inline void run_tiles(const GemmProblem& g, const kernels::TileKernels& t) {
  const kernels::AMode mode = a_mode(g);
  kernels::UKernelArgs args = tile_args(g, g.b_rs);
  if (g.m <= t.mr && g.n <= t.nr) {  // one tile: most tiny calls
    args.a = g.a, args.b = g.b, args.c = g.c, args.n = static_cast<int>(g.n);
    t.get(mode, static_cast<int>(g.m))(args);
    return;
  }
  for (int64_t i = 0; i < g.m; i += t.mr) {
    const int mv = static_cast<int>(std::min<int64_t>(t.mr, g.m - i));
    const kernels::UKernelFn fn = t.get(mode, mv);
    args.a = g.a + i * g.a_rs;
    for (int64_t j = 0; j < g.n; j += t.nr) {
      args.n = static_cast<int>(std::min<int64_t>(t.nr, g.n - j));
      args.b = g.b + j;
      args.c = g.c + i * g.ldc + j;
      fn(args);
    }
  }
}

// A transposed plan: the tiles of C^T = op(B)^T op(A)^T stored into C transposed, op(A)^T
// read in place (A stored transposed) or packed on the stack (kSmallPackFloats). Out of line:
// the tiny-call path inlines run_small.
void run_transposed(const GemmProblem& g, const kernels::TileKernels& t,
                    const kernels::IsaKernels& ks) noexcept;

}  // namespace small_detail

// Runs the problem; `sp` must come from small_plan (or a table filled from it) for a problem
// with the same key and this kernel table. Inline: the tiny-call path keeps the problem in
// registers instead of passing it through memory.
inline void run_small(SmallPlan sp, const GemmProblem& g, const kernels::IsaKernels& ks) noexcept {
  if (sp.dot)
    run_dot_whole(GemmProblem(g), ks);  // a copy: the tile path keeps g in registers
  else if (sp.transposed)
    small_detail::run_transposed(g, ks.tiles[static_cast<std::size_t>(sp.tile)], ks);
  else
    small_detail::run_tiles(g, ks.tiles[static_cast<std::size_t>(sp.tile)]);
}

}  // namespace adaptcore
