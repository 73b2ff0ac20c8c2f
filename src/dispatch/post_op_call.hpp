// The entry points' shared step for a call with a fused epilogue (CallOptions::post_ops): the
// list validated against the caller's C and normalised to the problem, then the one call path.
#pragma once

#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"
#include "dispatch/call_config.hpp"

namespace adaptcore::detail {

// prob: the validated, normalised problem of a call whose C is m x n in `layout` with leading
// dimension ldc (the caller's). Runs it with options.post_ops on ctx, on the caller's snapshot of
// its configuration when given (run_lowp's cfg).
Status run_with_post_ops(GemmProblem prob, Layout layout, int64_t m, int64_t n, const float* c,
                         int64_t ldc, const CallOptions& options, Context& ctx,
                         const CallConfig* cfg = nullptr) noexcept;

}  // namespace adaptcore::detail
