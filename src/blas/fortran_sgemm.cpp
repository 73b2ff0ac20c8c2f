// Fortran BLAS SGEMM (sgemm_, column-major, arguments by reference) on the adaptcore engine.
//
// Argument checks follow reference BLAS SGEMM exactly, in order: INFO 1 transa, 2 transb
// (each one of N/T/C, either case), 3 m < 0, 4 n < 0, 5 k < 0, 8 lda < max(1, rows of A),
// 10 ldb < max(1, rows of B), 13 ldc < max(1, m); the first failure is passed to
// XERBLA('SGEMM ', INFO) and the call returns. The hidden Fortran lengths of the two
// character arguments are not needed (only the first character is read) and not declared.
//
// xerbla_: the library carries a weak default that prints the reference message and returns.
// The reference XERBLA executes STOP; a library should not end the program, so this one lets
// SGEMM return with C untouched. A program (or another library loaded earlier) that defines
// its own xerbla_ takes precedence: xerbla_ is exported (exports.map), so the call below binds
// through the PLT to the first definition in the dynamic symbol search order, which is the
// executable's; when linked statically, a strong definition replaces the weak one.
#include <cstdio>

#include "blas/blas_common.hpp"

extern "C" {

__attribute__((weak, visibility("default"))) void xerbla_(const char* srname, const int* info,
                                                          int srname_len) {
  int len = srname_len;
  while (len > 0 && srname[len - 1] == ' ') --len;  // LEN_TRIM
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", len,
               srname, *info);
}

}  // extern "C"

namespace {

char upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

}  // namespace

extern "C" __attribute__((visibility("default"))) void sgemm_(
    const char* transa, const char* transb, const int* m, const int* n, const int* k,
    const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
    const float* beta, float* c, const int* ldc) {
  const char ta = upper(*transa), tb = upper(*transb);
  const bool nota = ta == 'N', notb = tb == 'N';
  int info = 0;
  if (!nota && ta != 'C' && ta != 'T')
    info = 1;
  else if (!notb && tb != 'C' && tb != 'T')
    info = 2;
  else
    info = adaptcore::blas::sgemm_dimension_info(!nota, !notb, *m, *n, *k, *lda, *ldb, *ldc);
  if (info != 0) {
    xerbla_("SGEMM ", &info, 6);
    return;
  }
  using adaptcore::Trans;
  adaptcore::blas::run_gemm("SGEMM", adaptcore::Layout::ColMajor, nota ? Trans::No : Trans::Yes,
                            notb ? Trans::No : Trans::Yes, *m, *n, *k, *alpha, a, *lda, b, *ldb,
                            *beta, c, *ldc);
}
