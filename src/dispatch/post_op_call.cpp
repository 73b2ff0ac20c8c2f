#include "dispatch/post_op_call.hpp"

#include "core/operand_bytes.hpp"
#include "core/post_ops.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/post_op_pass.hpp"
#include "plan/candidates.hpp"

namespace adaptcore::detail {

Status run_with_post_ops(GemmProblem prob, Layout layout, int64_t m, int64_t n, const float* c,
                         int64_t ldc, const CallOptions& options, Context& ctx,
                         const CallConfig* cfg) noexcept {
  PostOpChain chain;
  const ByteOperand C = stored_operand(c, m, n, layout == Layout::RowMajor, false, ldc, 4);
  // A and B as the normalised problem reads them (prepacked B: its k x n panel floats).
  const ByteOperand reads[2] = {ByteOperand{prob.a, prob.m, prob.k, prob.a_rs, prob.a_cs, 4},
                                prob.b_panel_nr > 0
                                    ? ByteOperand{prob.b, 1, prob.k * prob.n, prob.k * prob.n, 1, 4}
                                    : ByteOperand{prob.b, prob.k, prob.n, prob.b_rs, prob.b_cs, 4}};
  if (const Status s =
          make_post_op_chain(options, layout, m, n, C, prob.c_transposed, chain, reads);
      s != Status::Ok)
    return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  // A C of a few columns may run as a transposed plan, whose row tiles (C's columns) may have
  // odd heights: its SwiGlu as a pass too (C is at most 15 floats wide there: no cost).
  if (chain.has_output() &&
      chain.ops[static_cast<std::size_t>(chain.count - 1)].kind == PostOpKind::SwiGlu &&
      !prob.c_transposed && prob.n <= kTransposeCMaxN)
    chain.deferred_last = true;
  prob.post = &chain;
  const Status s = cfg != nullptr ? impl_of(ctx).run(prob, *cfg, nullptr, options.residency)
                                  : impl_of(ctx).run(prob, nullptr, options.residency);
  // A deferred SwiGlu: a pass over the finished C.
  if (s == Status::Ok && chain.deferred_last)
    run_post_pass(chain,
                  PostPass{.c = prob.c, .ldc = prob.ldc, .m = prob.m, .n = prob.n, .last = true});
  return s;
}

}  // namespace adaptcore::detail
