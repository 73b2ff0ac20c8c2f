// CBLAS cblas_sgemm on the adaptcore engine.
//
// The system cblas.h is deliberately not included: the prototype below is the standard one,
// with the CBLAS enums passed as plain int (the same ABI), so that out-of-range values can be
// checked without undefined enum conversions.
//
// Argument errors follow reference CBLAS (netlib, LAPACK's CBLAS/src) in order and numbering,
// counting Order as parameter 1: layout 1, TransA 2, TransB 3, then the checks of the Fortran
// SGEMM the reference forwards to, with the Fortran INFO shifted by one. A row-major call is
// forwarded as the column-major call C^T = op(B)^T op(A)^T, so its checks run in the order
// N, M, K, ldb, lda, ldc and report the row-major call's own positions (M 4, N 5, K 6, lda 9,
// ldb 11, ldc 14). Unlike the reference, which calls cblas_xerbla and exit(-1), the message
// "Parameter N to routine cblas_sgemm was incorrect" is printed on stderr and the call returns
// without touching C.
#include <cstdio>

#include "blas/blas_common.hpp"

namespace {

enum : int {
  kCblasRowMajor = 101,
  kCblasColMajor = 102,
  kCblasNoTrans = 111,
  kCblasTrans = 112,
  kCblasConjTrans = 113,
};

bool valid_trans(int t) { return t == kCblasNoTrans || t == kCblasTrans || t == kCblasConjTrans; }
int max1(int v) { return v > 1 ? v : 1; }

void report(int param) {
  std::fprintf(stderr, "Parameter %d to routine cblas_sgemm was incorrect\n", param);
}

// The first incorrect parameter by reference CBLAS rules, or 0.
int check(int layout, int transa, int transb, int m, int n, int k, int lda, int ldb, int ldc) {
  if (layout != kCblasRowMajor && layout != kCblasColMajor) return 1;
  if (!valid_trans(transa)) return 2;
  if (!valid_trans(transb)) return 3;
  const bool ta = transa != kCblasNoTrans, tb = transb != kCblasNoTrans;
  if (layout == kCblasColMajor) {
    // SGEMM(TA, TB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
    if (m < 0) return 4;
    if (n < 0) return 5;
    if (k < 0) return 6;
    if (lda < max1(ta ? k : m)) return 9;
    if (ldb < max1(tb ? n : k)) return 11;
    if (ldc < max1(m)) return 14;
  } else {
    // SGEMM(TB, TA, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc)
    if (n < 0) return 5;
    if (m < 0) return 4;
    if (k < 0) return 6;
    if (ldb < max1(tb ? k : n)) return 11;
    if (lda < max1(ta ? m : k)) return 9;
    if (ldc < max1(n)) return 14;
  }
  return 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void cblas_sgemm(
    int layout, int transa, int transb, const int M, const int N, const int K, const float alpha,
    const float* A, const int lda, const float* B, const int ldb, const float beta, float* C,
    const int ldc) {
  if (const int bad = check(layout, transa, transb, M, N, K, lda, ldb, ldc); bad != 0) {
    report(bad);
    return;
  }
  using adaptcore::Layout;
  using adaptcore::Trans;
  adaptcore::blas::run_gemm("cblas_sgemm", static_cast<Layout>(layout),
                            transa == kCblasNoTrans ? Trans::No : Trans::Yes,
                            transb == kCblasNoTrans ? Trans::No : Trans::Yes, M, N, K, alpha, A,
                            lda, B, ldb, beta, C, ldc);
}
