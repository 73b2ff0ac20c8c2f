// Shared by the CBLAS and Fortran BLAS entry points of libadaptcore_blas.so: hands a validated
// call to the core on the default context. Not installed; every symbol here is hidden by the
// library's version script (exports.map).
#pragma once

#include <cstdint>
#include <cstdio>

#include "adaptcore/adaptcore.hpp"

namespace adaptcore::blas {

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
