#include "core/problem.hpp"

#include <cstdint>

#include "core/normalise.hpp"
#include "core/operand_bytes.hpp"

namespace adaptcore {
namespace {

bool transposed(Trans t) { return t != Trans::No; }

// op(A) (m x k), op(B) (k x n) and C (m x n) as fp32 operands: the memory checks, then the
// normalised problem.
Status finish(int64_t m, int64_t n, int64_t k, float alpha, const ByteOperand& A,
              const ByteOperand& B, const ByteOperand& C, bool c_col_major, float beta,
              GemmProblem& out) {
  const bool reads_ab = m != 0 && n != 0 && k > 0 && alpha != 0.0f;
  if (const Status s = check_gemm_operands(A, B, C, reads_ab); s != Status::Ok) return s;
  out = normalised_problem(m, n, k, alpha, A, B, C, c_col_major, beta);
  return Status::Ok;
}

}  // namespace

Status make_problem(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                    float beta, float* c, int64_t ldc, GemmProblem& out) noexcept {
  if (const Status s = check_gemm_args(layout, transa, transb, m, n, k, lda, ldb, ldc);
      s != Status::Ok)
    return s;
  const bool row = layout == Layout::RowMajor;
  const ByteOperand A = stored_operand(a, m, k, row, transposed(transa), lda, 4);
  const ByteOperand B = stored_operand(b, k, n, row, transposed(transb), ldb, 4);
  const ByteOperand C = stored_operand(c, m, n, row, false, ldc, 4);
  return finish(m, n, k, alpha, A, B, C, !row, beta, out);
}

Status make_problem(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
                    MatrixView<const float> b, float beta, MatrixView<float> c,
                    GemmProblem& out) noexcept {
  if (!valid_layout(a.layout) || !valid_layout(b.layout) || !valid_layout(c.layout))
    return Status::InvalidLayout;
  if (!valid_trans(transa) || !valid_trans(transb)) return Status::InvalidTranspose;
  if (a.rows < 0 || a.cols < 0 || b.rows < 0 || b.cols < 0 || c.rows < 0 || c.cols < 0)
    return Status::InvalidDimension;
  const bool ta = transposed(transa), tb = transposed(transb);
  const int64_t m = c.rows, n = c.cols;
  const int64_t k = ta ? a.rows : a.cols;
  if ((ta ? a.cols : a.rows) != m || (tb ? b.cols : b.rows) != k || (tb ? b.rows : b.cols) != n)
    return Status::ShapeMismatch;
  // Each view in its own layout; a view is op(X) stored transposed when its Trans says so.
  auto operand = [](const auto& v, int64_t rows, int64_t cols, bool trans) {
    return stored_operand(v.data, rows, cols, v.layout == Layout::RowMajor, trans, v.ld, 4);
  };
  auto ld_ok = [](const auto& v) {
    return v.ld >= min_leading_dim(v.layout == Layout::RowMajor, false, v.rows, v.cols);
  };
  if (!ld_ok(a) || !ld_ok(b) || !ld_ok(c)) return Status::InvalidLeadingDimension;
  const ByteOperand A = operand(a, m, k, ta), B = operand(b, k, n, tb), C = operand(c, m, n, false);
  return finish(m, n, k, alpha, A, B, C, c.layout == Layout::ColMajor, beta, out);
}

Status make_shape_problem(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n,
                          int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                          GemmProblem& out) noexcept {
  static float stand_in_c = 0.0f;
  return make_problem(layout, transa, transb, m, n, k, 0.0f, nullptr, lda, nullptr, ldb, 0.0f,
                      &stand_in_c, ldc, out);
}

}  // namespace adaptcore
