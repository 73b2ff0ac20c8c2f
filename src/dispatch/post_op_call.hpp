// The entry points' shared step for a call with a fused epilogue (CallOptions::post_ops): the
// list validated against the caller's C and normalised to the problem, then the one call path.
#pragma once

#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"

namespace adaptcore::detail {

// prob: the validated, normalised problem of a call whose C is m x n in `layout` with leading
// dimension ldc (the caller's). Runs it with options.post_ops on ctx.
Status run_with_post_ops(GemmProblem prob, Layout layout, int64_t m, int64_t n, const float* c,
                         int64_t ldc, const CallOptions& options, Context& ctx) noexcept;

}  // namespace adaptcore::detail
