// A fused epilogue (CallOptions::post_ops) after validation, in the coordinates of the
// normalised problem (GemmProblem): each operation's vector or matrix as element strides over
// the normalised C, so a column-major C (solved as C^T) and a row-major one share one code path.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "adaptcore/types.hpp"
#include "core/operand_bytes.hpp"

namespace adaptcore {

struct PostOpChain {
  struct Op {
    PostOpKind kind = PostOpKind::Relu;
    // Bias, Scale, Residual: element for C(i, j) of the normalised problem at data[i * rs + j *
    // cs] (a vector has one stride 0).
    const float* data = nullptr;
    int64_t rs = 0, cs = 0;
    // SwiGlu, Store: the output, element (i, j) of the normalised problem (SwiGlu: pair j, or
    // with pairs along the rows pair i) at out[i * out_rs + j * out_cs] in float or bf16.
    void* out = nullptr;
    int64_t out_rs = 0, out_cs = 1;
    bool out_bf16 = false;
  };
  std::array<Op, kMaxPostOps> ops{};
  int count = 0;
  // A SwiGlu the executors' blocks may not keep pairs together for: its pairs run along the
  // normalised problem's rows (pairs_along_rows: a column-major C, solved as C^T), or along a
  // C of a few columns that a transposed plan's row tiles of any height may split (set by the
  // fp32 entry). The executors apply the ops before it, the entry point runs it as a pass
  // afterwards (exec/post_op_pass.hpp).
  bool deferred_last = false;
  bool pairs_along_rows = false;
  bool empty() const noexcept { return count == 0; }
  // The operations the executors apply to finished blocks.
  int fused_count() const noexcept { return deferred_last ? count - 1 : count; }
  // Whether the list ends in an output of its own (SwiGlu, Store).
  bool has_output() const noexcept {
    return count > 0 && (ops[static_cast<std::size_t>(count - 1)].kind == PostOpKind::SwiGlu ||
                         ops[static_cast<std::size_t>(count - 1)].kind == PostOpKind::Store);
  }
};

// Validates options.post_ops for a call whose C (m x n, the caller's) is the stored operand `c`
// in `layout`, and normalises them for the problem (c_transposed: the normalised problem is
// C^T). Checks in this order: count (InvalidArgument), kinds, output types and an output
// operation only last (InvalidArgument), SwiGlu with an odd n (InvalidDimension), null data or
// output (NullPointer), leading dimensions of a residual or output (InvalidLeadingDimension),
// size overflow, overlap with C, and of an output with the vectors and R (Aliasing). A call
// writing no element of C (m or n 0) checks only count, kinds and order.
bool is_output_op(PostOpKind k) noexcept;

// `reads`: the call's other operands (A, B as stored or packed), which an output must not
// overlap either (it is written while other cores still read them: Aliasing).
Status make_post_op_chain(const CallOptions& options, Layout layout, int64_t m, int64_t n,
                          const ByteOperand& c, bool c_transposed, PostOpChain& out,
                          std::span<const ByteOperand> reads = {}) noexcept;

}  // namespace adaptcore
