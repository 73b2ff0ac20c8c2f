/* Calls the installed libadaptcore_blas.so through its CBLAS entry (declared here as a program
 * linking any CBLAS would, the enums passed as their int values). */
#include <stdio.h>

void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);

int main(void) {
  const float a[2 * 2] = {1, 2, 3, 4};
  const float b[2 * 2] = {5, 6, 7, 8};
  float c[2 * 2] = {0, 0, 0, 0};
  cblas_sgemm(101, 111, 111, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
  if (c[0] != 19 || c[1] != 22 || c[2] != 43 || c[3] != 50) return 1;
  printf("cblas_sgemm: ok\n");
  return 0;
}
