// The 8 x 8 fp32 transpose in AVX2 registers: 8 unpacks, 8 shuffles, 8 lane permutes. Row r
// of the input becomes lane r of every output. Shared by the AVX2 transposed store and the
// transposing packers. Included by the AVX2 unit; the unnamed namespace gives it its own copy.
#pragma once

#include <immintrin.h>

namespace adaptcore::kernels {
namespace {

[[gnu::always_inline]] inline void transpose8x8(__m256 (&x)[8]) {
  __m256 t[8], s[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(x[2 * i], x[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(x[2 * i], x[2 * i + 1]);
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    s[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
    s[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
    s[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
    s[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    x[j] = _mm256_permute2f128_ps(s[j], s[4 + j], 0x20);
    x[j + 4] = _mm256_permute2f128_ps(s[j], s[4 + j], 0x31);
  }
}

}  // namespace
}  // namespace adaptcore::kernels
