// The OpenBLAS baseline: sgemm through its CBLAS entry point, plus what it reports about
// itself (build configuration and the kernel core it selected at run time).
#pragma once

#include <cstdint>
#include <string>

namespace adaptcore::bench {

void openblas_threads(int threads);
std::string openblas_config();    // openblas_get_config()
std::string openblas_corename();  // openblas_get_corename(): the kernels that actually run
// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C, dense leading dimensions.
void openblas_sgemm_nn(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b,
                       float beta, float* c);

}  // namespace adaptcore::bench
