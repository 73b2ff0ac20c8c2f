// The low-precision executor: follows a plan for a bf16 or int8 problem. Same core grid and
// BLIS loop order as the fp32 executor, but both operands are always packed (packing converts
// them into the kernels' 32-bit group layout), and an epilogue per block of C applies what the
// kernels cannot: the int8 zero-point compensation and the rounding of a bf16 C.
#pragma once

#include "adaptcore/types.hpp"
#include "core/lowp_problem.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/lowp.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

Status execute(const Plan& plan, const LowpProblem& prob, const kernels::LowpKernels& ks,
               ThreadPool& pool) noexcept;

// The whole call when nothing needs multiplying: bf16 with k == 0 or alpha == 0 (C = beta C),
// int8 with k == 0 (C = beta C; the zero-point terms vanish). Returns false otherwise.
bool lowp_trivial(const LowpProblem& prob) noexcept;
// Whether lowp_trivial would do the whole call (writing C, or for m or n 0 nothing).
bool lowp_needs_no_product(const LowpProblem& prob) noexcept;

}  // namespace adaptcore
