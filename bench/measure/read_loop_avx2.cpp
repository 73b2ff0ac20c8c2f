// AVX2 read loop of the bandwidth measurements; compiled with -mavx2, called only on CPUs with it.
#include <immintrin.h>

#include "measure/read_loops.hpp"

namespace adaptcore::measure::loops {

float read_pass_avx2(const float* p, std::int64_t n) noexcept {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (std::int64_t i = 0; i < n; i += 64) {
    a0 = _mm256_add_ps(a0, _mm256_load_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(p + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(p + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(p + i + 24));
    a4 = _mm256_add_ps(a4, _mm256_load_ps(p + i + 32));
    a5 = _mm256_add_ps(a5, _mm256_load_ps(p + i + 40));
    a6 = _mm256_add_ps(a6, _mm256_load_ps(p + i + 48));
    a7 = _mm256_add_ps(a7, _mm256_load_ps(p + i + 56));
  }
  const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                 _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  alignas(32) float out[8];
  _mm256_store_ps(out, s);
  _mm256_zeroupper();
  return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

}  // namespace adaptcore::measure::loops
