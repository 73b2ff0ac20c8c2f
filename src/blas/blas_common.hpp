// Shared by the CBLAS and Fortran BLAS entry points of libadaptcore_blas.so: the reference
// SGEMM's dimension checks (CBLAS numbers them one higher) and the hand-over of a validated call
// to the core on the default context. Not installed; every symbol here is hidden by the
// library's version script (exports.map).
#pragma once

#include <cstdint>
#include <cstdio>

#include "adaptcore/adaptcore.hpp"

namespace adaptcore::blas {

// The dimension and leading-dimension checks of the reference Fortran SGEMM(TRANSA, TRANSB, M,
// N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC), after its two transpose checks: the first failure
// as the reference's INFO (M 3, N 4, K 5, LDA 8, LDB 10, LDC 13), or 0. ta / tb: op(A) / op(B)
// is transposed.
inline int sgemm_dimension_info(bool ta, bool tb, int m, int n, int k, int lda, int ldb,
                                int ldc) noexcept {
  auto max1 = [](int v) { return v > 1 ? v : 1; };
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < max1(ta ? k : m)) return 8;
  if (ldb < max1(tb ? n : k)) return 10;
  if (ldc < max1(m)) return 13;
  return 0;
}

// Runs C = alpha * op(A) * op(B) + beta * C after the BLAS layer has checked the arguments with
// the reference rules and numbering. The core may still refuse the call for a reason reference
// BLAS has no parameter number for (a NULL operand that must be read, C overlapping A or B,
// out of memory): that is reported on stderr, like a BLAS argument error, and C is left as is.
inline void run_gemm(const char* routine, Layout layout, Trans transa, Trans transb, int m, int n,
                     int k, float alpha, const float* a, int lda, const float* b, int ldb,
                     float beta, float* c, int ldc) noexcept {
  // Reference quick return: nothing is read or written.
  if (m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f)) return;
  Status s = Status::InternalError;
  try {
    s = gemm(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
             default_context());
  } catch (...) {
    s = Status::InternalError;
  }
  if (s != Status::Ok)
    std::fprintf(stderr, "adaptcore: %s not computed: %s\n", routine, to_string(s));
}

}  // namespace adaptcore::blas
