// A fused epilogue (CallOptions::post_ops) after validation, in the coordinates of the
// normalised problem (GemmProblem): each operation's vector or matrix as element strides over
// the normalised C, so a column-major C (solved as C^T) and a row-major one share one code path.
#pragma once

#include <array>
#include <cstdint>

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
  };
  std::array<Op, kMaxPostOps> ops{};
  int count = 0;
  bool empty() const noexcept { return count == 0; }
};

// Validates options.post_ops for a call whose C (m x n, the caller's) is the stored operand `c`
// in `layout`, and normalises them for the problem (c_transposed: the normalised problem is
// C^T). Checks in this order: count (InvalidArgument), kinds (InvalidArgument), null data
// (NullPointer), residual leading dimension (InvalidLeadingDimension), size overflow, overlap
// with C (Aliasing). A call writing no element of C (m or n 0) checks only count and kinds.
Status make_post_op_chain(const CallOptions& options, Layout layout, int64_t m, int64_t n,
                          const ByteOperand& c, bool c_transposed, PostOpChain& out) noexcept;

}  // namespace adaptcore
