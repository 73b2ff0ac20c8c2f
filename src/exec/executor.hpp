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

// C = beta * C over m x n (beta == 0 writes zeros without reading): the whole GEMM when
// alpha == 0 or k == 0.
void scale_c(const GemmProblem& prob) noexcept;

}  // namespace adaptcore
