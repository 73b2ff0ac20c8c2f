// The 16 x 16 transpose of 32-bit lanes in registers (4 shuffle stages, 64 shuffles): row i,
// lane j in becomes row j, lane i out. Shared by the packers that turn rows contiguous along
// k into panels (fp32 A and transposed B, low-precision transposed B).
// Included by AVX-512 units; the unnamed namespace gives each its own copy, built with its
// flags.
#pragma once

#include <immintrin.h>

namespace adaptcore::kernels {
namespace {

inline void transpose16x16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    const __m512d a0 = _mm512_castps_pd(t[4 * i]), a1 = _mm512_castps_pd(t[4 * i + 1]);
    const __m512d a2 = _mm512_castps_pd(t[4 * i + 2]), a3 = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
  }
  // r[4i + j] now holds, per 128-bit lane L, element 4L + j of rows 4i..4i+3.
  for (int j = 0; j < 4; ++j) {
    const __m512 b0 = r[j], b1 = r[4 + j], b2 = r[8 + j], b3 = r[12 + j];
    const __m512 c0 = _mm512_shuffle_f32x4(b0, b1, 0x44);  // lanes 0,1 of b0 | 0,1 of b1
    const __m512 c1 = _mm512_shuffle_f32x4(b0, b1, 0xEE);  // lanes 2,3 of b0 | 2,3 of b1
    const __m512 c2 = _mm512_shuffle_f32x4(b2, b3, 0x44);
    const __m512 c3 = _mm512_shuffle_f32x4(b2, b3, 0xEE);
    t[j] = _mm512_shuffle_f32x4(c0, c2, 0x88);       // lane 0 of each block: column j
    t[4 + j] = _mm512_shuffle_f32x4(c0, c2, 0xDD);   // lane 1: column 4 + j
    t[8 + j] = _mm512_shuffle_f32x4(c1, c3, 0x88);   // lane 2: column 8 + j
    t[12 + j] = _mm512_shuffle_f32x4(c1, c3, 0xDD);  // lane 3: column 12 + j
  }
  for (int i = 0; i < 16; ++i) r[i] = t[i];
}

}  // namespace
}  // namespace adaptcore::kernels
