// A GEMM problem after validation and normalisation: C is row-major (unit column stride) and
// op(A), op(B) are described by element strides, so every layout/transpose combination is one
// case for the planner and executor. A column-major C is turned into the transposed problem
// C^T = op(B)^T op(A)^T, which is row-major.
#pragma once

#include <cstdint>

#include "adaptcore/types.hpp"

namespace adaptcore {

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;  // op(A)(i, p) = a[i * a_rs + p * a_cs]
  int64_t a_rs = 1, a_cs = 1;
  const float* b = nullptr;  // op(B)(p, j) = b[p * b_rs + j * b_cs]
  int64_t b_rs = 1, b_cs = 1;
  float* c = nullptr;  // C(i, j) = c[i * ldc + j]
  int64_t ldc = 1;
  float alpha = 1.0f, beta = 0.0f;
  // B prepacked (PackedWeights): op(B) as full-depth panels of b_panel_nr columns, panel q
  // (columns q * nr .. q * nr + w - 1, w = min(nr, n - q * nr)) at b + q * nr * k, its element
  // (p, j) at p * w + (j - q * nr) of the panel; b_rs = nr, b_cs = 1 describe a whole panel.
  // Only the blocked executor reads it (plans with B in place and the tile's nr equal to it).
  // 0: B as the caller stores it.
  int b_panel_nr = 0;
  // The problem is the caller's transposed (C^T = op(B)^T op(A)^T: a column-major C, or a
  // single contiguous column): what a fused epilogue's per-column vectors follow.
  bool c_transposed = false;
  // The fused epilogue, normalised to this problem's C (null: none); owned by the entry point
  // for the call's duration.
  const struct PostOpChain* post = nullptr;

  // True when A's rows are contiguous (a_cs == 1) and it is not also column-contiguous.
  bool a_row_unit() const noexcept { return a_rs != 1; }
  // True when B's rows are contiguous, so micro-kernels may read it in place.
  bool b_row_unit() const noexcept { return b_cs == 1; }
};

// The operands of the transposed problem C^T = op(B)^T op(A)^T (Plan::transpose_c): m and n
// exchanged, op(B)^T as A, op(A)^T as B. C and ldc stay C's own: C^T(i, j) = c[j * ldc + i],
// which the transposed-store kernels write (its C is not row-major, unlike every other
// GemmProblem, so only the transposed executor takes it).
inline GemmProblem transposed_operands(const GemmProblem& g) noexcept {
  GemmProblem t = g;
  t.m = g.n, t.n = g.m;
  t.a = g.b, t.a_rs = g.b_cs, t.a_cs = g.b_rs;
  t.b = g.a, t.b_rs = g.a_cs, t.b_cs = g.a_rs;
  return t;
}

// Validates the BLAS-style arguments and builds the normalised problem. Checks, in this
// order: layout, transposes, dimensions, leading dimensions, size overflow, null pointers,
// aliasing of C with A or B.
Status make_problem(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                    float beta, float* c, int64_t ldc, GemmProblem& out) noexcept;

// A shape without operands, as the planner sees it (explain, the command line): validated as a
// call with alpha = 0 (which reads neither A nor B) on a stand-in C that is never touched.
Status make_shape_problem(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n,
                          int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                          GemmProblem& out) noexcept;

// The same from views, each operand with its own layout.
Status make_problem(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
                    MatrixView<const float> b, float beta, MatrixView<float> c,
                    GemmProblem& out) noexcept;

}  // namespace adaptcore
