// CBLAS cblas_sgemm on the adaptcore engine.
//
// The system cblas.h is deliberately not included: the prototype below is the standard one,
// with the CBLAS enums passed as plain int (the same ABI), so that out-of-range values can be
// checked without undefined enum conversions.
//
// Argument errors follow reference CBLAS (netlib, LAPACK's CBLAS/src) in order and numbering,
// counting Order as parameter 1: layout 1, TransA 2, TransB 3, then the checks of the Fortran
// SGEMM the reference forwards to, with the Fortran INFO shifted by one. The first failure is
// passed to cblas_xerbla(p, "cblas_sgemm", form, ...) and the call returns without touching C.
//
// Row-major numbering: the reference forwards a row-major call as the column-major call
// C^T = op(B)^T op(A)^T, i.e. SGEMM(TB, TA, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc), so
// its checks run in the order N, M, K, ldb, lda, ldc and cblas_xerbla receives the positions
// in that transposed call: N 4, M 5, K 6, ldb 9, lda 11, ldc 14 (M and N, lda and ldb
// exchanged with respect to the row-major call's own positions M 4, N 5, lda 9, ldb 11).
// Handlers undo the exchange: the reference cblas_xerbla looks at the library's RowMajorStrg
// flag, the CBLAS test programs (xscblat3) at their own copy of it. The default below does the
// same with a flag set only while cblas_sgemm reports a row-major error, so the message names
// the row-major call's own parameter.
//
// cblas_xerbla: the library carries a weak default that prints the reference message on stderr
// and returns (the reference one calls exit(-1); a library should not end the program). It is
// exported (exports.map) and called through the PLT, so a program's own cblas_xerbla (or one
// of a library loaded earlier) takes precedence, as for xerbla_ (fortran_sgemm.cpp).
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "blas/blas_common.hpp"

namespace {
// Set while cblas_sgemm reports an error of a row-major call (see above).
thread_local bool t_row_major_error = false;
}  // namespace

extern "C" __attribute__((weak, visibility("default"))) void cblas_xerbla(int p, const char* rout,
                                                                          const char* form, ...) {
  if (t_row_major_error && rout != nullptr && std::strstr(rout, "gemm") != nullptr) {
    // The reference's exchange for the gemm routines, undone: the row-major call's own position.
    if (p == 4)
      p = 5;
    else if (p == 5)
      p = 4;
    else if (p == 9)
      p = 11;
    else if (p == 11)
      p = 9;
  }
  if (p != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, rout);
  if (form != nullptr) {
    std::va_list args;
    va_start(args, form);
    std::vfprintf(stderr, form, args);
    va_end(args);
  }
}

namespace {

enum : int {
  kCblasRowMajor = 101,
  kCblasColMajor = 102,
  kCblasNoTrans = 111,
  kCblasTrans = 112,
  kCblasConjTrans = 113,
};

bool valid_trans(int t) { return t == kCblasNoTrans || t == kCblasTrans || t == kCblasConjTrans; }

// The first incorrect parameter by reference CBLAS rules, as the reference passes it to
// cblas_xerbla (row-major: positions in the transposed column-major call), or 0.
int check(int layout, int transa, int transb, int m, int n, int k, int lda, int ldb, int ldc) {
  if (layout != kCblasRowMajor && layout != kCblasColMajor) return 1;
  if (!valid_trans(transa)) return 2;
  if (!valid_trans(transb)) return 3;
  const bool ta = transa != kCblasNoTrans, tb = transb != kCblasNoTrans;
  // Fortran INFO + 1 (Order is CBLAS parameter 1). Column-major: SGEMM(TA, TB, M, N, K, alpha, A,
  // lda, B, ldb, beta, C, ldc); row-major: SGEMM(TB, TA, N, M, K, alpha, B, ldb, A, lda, beta, C,
  // ldc), the transposed call.
  const int info = layout == kCblasColMajor
                       ? adaptcore::blas::sgemm_dimension_info(ta, tb, m, n, k, lda, ldb, ldc)
                       : adaptcore::blas::sgemm_dimension_info(tb, ta, n, m, k, ldb, lda, ldc);
  return info == 0 ? 0 : info + 1;
}

// Reports parameter p (reference numbering) to cblas_xerbla, with the reference's forms.
void report(int p, int layout, int transa, int transb) {
  t_row_major_error = layout == kCblasRowMajor;
  switch (p) {
    case 1: cblas_xerbla(1, "cblas_sgemm", "Illegal layout setting, %d\n", layout); break;
    case 2: cblas_xerbla(2, "cblas_sgemm", "Illegal TransA setting, %d\n", transa); break;
    case 3: cblas_xerbla(3, "cblas_sgemm", "Illegal TransB setting, %d\n", transb); break;
    default: cblas_xerbla(p, "cblas_sgemm", ""); break;
  }
  t_row_major_error = false;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void cblas_sgemm(
    int layout, int transa, int transb, const int M, const int N, const int K, const float alpha,
    const float* A, const int lda, const float* B, const int ldb, const float beta, float* C,
    const int ldc) {
  if (const int bad = check(layout, transa, transb, M, N, K, lda, ldb, ldc); bad != 0) {
    report(bad, layout, transa, transb);
    return;
  }
  using adaptcore::Layout;
  using adaptcore::Trans;
  adaptcore::blas::run_gemm("cblas_sgemm", static_cast<Layout>(layout),
                            transa == kCblasNoTrans ? Trans::No : Trans::Yes,
                            transb == kCblasNoTrans ? Trans::No : Trans::Yes, M, N, K, alpha, A,
                            lda, B, ldb, beta, C, ldc);
}
