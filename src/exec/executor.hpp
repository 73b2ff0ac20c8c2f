// The executor: follows a plan. Splits C over the plan's core grid, runs the cache-blocked loop
// nest (B panel -> A block -> micro-tiles) with or without packing on each core, and reduces
// split-K partials in a fixed order so results do not depend on thread timing.
#pragma once

#include "adaptcore/types.hpp"
#include "core/problem.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/ukernel.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

Status execute(const Plan& plan, const GemmProblem& prob, const kernels::IsaKernels& ks,
               ThreadPool& pool) noexcept;

// Whether the plan's core grid and register or dot tile are this kernel table's (a plan from a
// cache or file filled for another table must not run: part of C would stay unwritten).
bool plan_matches(const Plan& plan, const kernels::IsaKernels& ks) noexcept;

// The whole problem as one thread's dot-product block (A rows and B columns contiguous along
// k), on the calling thread: what execute() runs for a one-thread dot plan.
void run_dot_whole(const GemmProblem& prob, const kernels::IsaKernels& ks) noexcept;

// C = post(beta * C) over m x n (beta == 0 writes zeros without reading; post: the problem's
// fused epilogue, on ks's path): the whole GEMM when alpha == 0 or k == 0.
void scale_c(const GemmProblem& prob, const kernels::IsaKernels& ks) noexcept;

}  // namespace adaptcore
