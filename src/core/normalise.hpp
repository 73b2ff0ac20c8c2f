// The normalised fp32 problem of validated operands (make_problem and the tiny-call path share
// it, so both give the same problem and hence the same key): C row-major with unit column
// stride, op(A) and op(B) as element strides, a column-major C (or a contiguous single column
// of C with op(A) contiguous down its columns) turned into the transposed problem
// C^T = op(B)^T op(A)^T.
#pragma once

#include "core/operand_bytes.hpp"
#include "core/problem.hpp"

namespace adaptcore {

// op(A) (m x k), op(B) (k x n) and C (m x n) as stored operands, already checked.
inline GemmProblem normalised_problem(int64_t m, int64_t n, int64_t k, float alpha,
                                      const ByteOperand& A, const ByteOperand& B,
                                      const ByteOperand& C, bool c_col_major, float beta) noexcept {
  GemmProblem p;
  p.alpha = alpha;
  p.beta = beta;
  p.c = static_cast<float*>(const_cast<void*>(C.ptr));
  // A single column of C stored contiguously is also a single row: when op(A) is contiguous
  // down its columns, the transposed problem C^T = op(B)^T op(A)^T reads op(A)^T by rows and
  // puts the m outputs across the vector lanes, where the problem as given puts one output in
  // each vector (509 x 1 x 61 TT: one lane of sixteen).
  const bool one_column_swap = n == 1 && m > 1 && C.rs == 1 && A.rs == 1 && A.cs != 1;
  if (!c_col_major && !one_column_swap) {
    p.m = m, p.n = n, p.k = k;
    p.a = static_cast<const float*>(A.ptr), p.a_rs = A.rs, p.a_cs = A.cs;
    p.b = static_cast<const float*>(B.ptr), p.b_rs = B.rs, p.b_cs = B.cs;
    p.ldc = C.rs;
  } else {
    p.m = n, p.n = m, p.k = k;
    p.a = static_cast<const float*>(B.ptr), p.a_rs = B.cs, p.a_cs = B.rs;
    p.b = static_cast<const float*>(A.ptr), p.b_rs = A.cs, p.b_cs = A.rs;
    p.ldc = C.cs;
    p.c_transposed = true;
  }
  // Strides of a dimension of extent 1 are never used; make them unit so the planner sees the
  // cheapest access mode (e.g. n == 1 makes any B readable in place).
  if (p.m == 1) p.a_rs = 1;
  if (p.k == 1) p.a_cs = 1, p.b_rs = 1;
  if (p.n == 1) p.b_cs = 1;
  return p;
}

}  // namespace adaptcore
