// The grouped (Mixture-of-Experts) executor: follows a schedule of (expert, column chunk)
// units, each a one-core plan over that expert's prepacked panels, in up to three parallel
// phases: gather the routed rows of A (when the call gathers), the units (each core its own
// list, in order), and the weighted combine of the routed rows into C's tokens (when the call
// scatters), token by token in routed-row order so the sums do not depend on the schedule.
#pragma once

#include <vector>

#include "core/grouped_problem.hpp"
#include "core/lowp_problem.hpp"
#include "core/problem.hpp"
#include "core/wq_problem.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/lowp.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

// One scheduled unit: expert e's rows over columns [col0, col0 + cols), on `core`, by `plan`
// (a one-core plan of unit_problem's key).
struct GroupedWork {
  int64_t expert = 0, col0 = 0, cols = 0;
  int core = 0;
  Plan plan;
};

// The distance between the rows of the gathered A (k floats) and of the scattered results (n
// floats): whole cache lines, and never a multiple of 4 KiB (rows a page apart share L1 sets).
int64_t grouped_row_stride(int64_t floats) noexcept;

// The unit's GEMM: expert e's rows, read from `a` (rows lda apart: A itself, or the gathered
// copy), over the chunk's panels, into `c` (rows ldc apart: C itself, or the results buffer;
// beta 0 there). Pointers may be null (for its key); the fused epilogue is the executor's.
GemmProblem unit_problem(const GroupedProblem& g, int64_t e, int64_t col0, int64_t cols,
                         const float* a, int64_t lda, float* c, int64_t ldc, float beta) noexcept;

// The same for quantized experts: the chunk of columns of the expert's quantized panels.
WqProblem unit_wq_problem(const GroupedProblem& g, int64_t e, int64_t col0, int64_t cols,
                          const float* a, int64_t lda, float* c, int64_t ldc, float beta) noexcept;

// The same for bf16 experts: the chunk's bf16 panels, bf16 activations, an fp32 C.
LowpProblem unit_lowp_problem(const GroupedProblem& g, int64_t e, int64_t col0, int64_t cols,
                              const bf16* a, int64_t lda, float* c, int64_t ldc,
                              float beta) noexcept;

// Runs the units on `cores` tasks (wks: the weight-quantized kernels, for quantized experts;
// lks: the bf16 kernels, for bf16 experts, else unused).
// core_us (cores entries, or null): each task's time in the unit phase, measured. predicted_us: the
// schedule's busiest core (the pool's wake-up rule).
Status execute_grouped(const GroupedProblem& g, const std::vector<GroupedWork>& units, int cores,
                       const kernels::IsaKernels& ks, const kernels::WqKernels& wks,
                       const kernels::LowpKernels* lks, ThreadPool& pool, double predicted_us,
                       double* core_us) noexcept;

}  // namespace adaptcore
