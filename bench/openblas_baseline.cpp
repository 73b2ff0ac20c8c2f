#include "openblas_baseline.hpp"

#include <cblas.h>

namespace adaptcore::bench {

void openblas_threads(int threads) { openblas_set_num_threads(threads); }

std::string openblas_config() {
  const char* s = openblas_get_config();
  return s != nullptr ? s : "?";
}

std::string openblas_corename() {
  const char* s = openblas_get_corename();
  return s != nullptr ? s : "?";
}

void openblas_sgemm_nn(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b,
                       float beta, float* c) {
  const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n), K = static_cast<blasint>(k);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, a, K, b, N, beta, c, N);
}

}  // namespace adaptcore::bench
