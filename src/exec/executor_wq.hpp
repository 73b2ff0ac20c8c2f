// The weight-quantized executor: splits the activations into int8 parts (one pass over A,
// spread over the threads when there is enough of it), then runs the plan's core grid over
// row tiles x weight panels, each panel of the packed weights read where it lies (no copy).
#pragma once

#include "adaptcore/types.hpp"
#include "core/wq_problem.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/wq.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

Status execute(const Plan& plan, const WqProblem& prob, const kernels::WqKernels& ks,
               ThreadPool& pool) noexcept;

}  // namespace adaptcore
