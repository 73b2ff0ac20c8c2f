// Packing of fp32 operands whose panel lines (rows of A, columns of op(B)) are contiguous along
// k, with AVX2: 8 depth steps of up to 8 lines are loaded as 8 vectors, transposed in registers
// (transpose8x8_avx2.hpp) and each depth step written with the panel's lanes (16-, 8- and 4-byte
// stores for a panel narrower than a vector: VecAvx2::store_n). The scalar transpose of
// pack_template.hpp moves one element per instruction. Other layouts go to pack_template.hpp.
// Included by the AVX2 fp32 unit.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/pack_template.hpp"
#include "kernels/x86_avx2/transpose8x8_avx2.hpp"
#include "kernels/x86_avx2/vec_avx2.hpp"

namespace adaptcore::kernels {
namespace {

// `lines` (<= lanes <= 8) lines of depth k, line l at src + l * ld, into o[p * width + l] for
// l < lanes (lanes past `lines` zero): blocks of 8 depth steps through the vector transpose,
// the last 1-7 steps loaded under a mask of the steps left (masked loads never fault past them).
inline void transpose_lines_avx2(const float* src, int64_t ld, int lines, int lanes, int64_t k,
                                 int64_t width, float* o) {
  int64_t p0 = 0;
  for (; p0 + 8 <= k; p0 += 8) {
    __m256 r[8];
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l)
      r[l] = l < lines ? _mm256_loadu_ps(src + l * ld + p0) : _mm256_setzero_ps();
    transpose8x8(r);
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) VecAvx2::store_n(o + (p0 + q) * width, r[q], lanes);
  }
  const int left = static_cast<int>(k - p0);
  if (left > 0) {
    const __m256i steps = VecAvx2::mask(left);
    __m256 r[8];
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l)
      r[l] = l < lines ? _mm256_maskload_ps(src + l * ld + p0, steps) : _mm256_setzero_ps();
    transpose8x8(r);
    for (int q = 0; q < left; ++q) VecAvx2::store_n(o + (p0 + q) * width, r[q], lanes);
  }
}

// TransposeFn (ukernel.hpp): 8 rows of the source at a time are 8 lines of `cols` steps for the
// line transpose, each column then one store of up to 8 values.
void transpose_block_avx2(int64_t rows, int64_t cols, const float* src, int64_t ld, float* out,
                          int64_t out_ld) {
  for (int64_t i0 = 0; i0 < rows; i0 += 8) {
    const int lines = static_cast<int>(rows - i0 < 8 ? rows - i0 : 8);
    transpose_lines_avx2(src + i0 * ld, ld, lines, lines, cols, out_ld, out + i0);
  }
}

// Same contract as pack_a_panels; the vector transpose when a_cs == 1 and mr <= 8.
void pack_a_rows_avx2(int64_t m, int64_t k, const float* a, int64_t a_rs, int64_t a_cs, int mr,
                      float* out) {
  if (a_cs != 1 || a_rs == 1 || mr > 8) {
    pack_a_panels<VecAvx2>(m, k, a, a_rs, a_cs, mr, out);
    return;
  }
  for (int64_t i0 = 0; i0 < m; i0 += mr) {
    const int mv = static_cast<int>(m - i0 < mr ? m - i0 : mr);
    transpose_lines_avx2(a + i0 * a_rs, a_rs, mv, mr, k, mr, out + i0 * k);
  }
}

// Same contract as pack_b_panels; the vector transpose, 8 columns at a time, when op(B) is
// stored transposed (b_rs == 1) and nr is a multiple of 8.
void pack_b_cols_avx2(int64_t k, int64_t n, const float* b, int64_t b_rs, int64_t b_cs, int nr,
                      float* out) {
  if (b_rs != 1 || b_cs == 1 || nr % 8 != 0) {
    pack_b_panels<VecAvx2>(k, n, b, b_rs, b_cs, nr, out);
    return;
  }
  for (int64_t j0 = 0; j0 < n; j0 += nr) {
    const int nv = static_cast<int>(n - j0 < nr ? n - j0 : nr);
    for (int jb = 0; jb < nr; jb += 8) {
      const int cols = nv - jb < 8 ? (nv - jb > 0 ? nv - jb : 0) : 8;
      transpose_lines_avx2(b + (j0 + jb) * b_cs, b_cs, cols, 8, k, nr, out + j0 * k + jb);
    }
  }
}

}  // namespace
}  // namespace adaptcore::kernels
