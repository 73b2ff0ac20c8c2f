// Packing of fp32 operands whose panel lines (rows of A, columns of op(B)) are contiguous along
// k, with AVX-512: 16 depth steps of up to 16 lines are loaded as 16 vectors, transposed in
// registers (4 shuffle stages) and each depth step written as one store of the panel's lanes.
// The scalar transpose does one element per instruction; this does 16. Other layouts go to
// pack_template.hpp. Included by the AVX-512 fp32 unit.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/pack_template.hpp"
#include "kernels/x86_avx512/flat_transpose_avx512.hpp"
#include "kernels/x86_avx512/transpose16x16_avx512.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"

namespace adaptcore::kernels {
namespace {

// Lines of K <= 8 steps stored back to back: the run of lines * K floats as K vectors (zeros
// past it), deinterleaved into one vector per step (flat_transpose_avx512.hpp).
template <int K>
void deinterleave_lines(const float* src, int lines, __mmask16 store, int64_t width, float* o) {
  __m512 x[K];
  const int floats = lines * K;
#pragma GCC unroll 8
  for (int j = 0; j < K; ++j) {
    const int valid = floats - 16 * j;
    const __mmask16 m = valid >= 16 ? static_cast<__mmask16>(0xFFFF)
                        : valid <= 0
                            ? static_cast<__mmask16>(0)
                            : static_cast<__mmask16>((1u << static_cast<unsigned>(valid)) - 1u);
    x[j] = _mm512_maskz_loadu_ps(m, src + 16 * j);
  }
#pragma GCC unroll 8
  for (int q = 0; q < K; ++q) {
    const __m512 out = K == 1 ? x[0] : Deinterleave<K>::gather(x, q);
    _mm512_mask_storeu_ps(o + q * width, store, out);
  }
}

// `lines` (<= lanes <= 16) lines of depth k, line l at src + l * ld, into o[p * width + l] for
// l < lanes (lanes past `lines` zero): whole blocks of 16 depth steps through the vector
// transpose, each stored under `store` (the first `lanes` lanes), the rest one by one.
inline void transpose_lines_avx512(const float* src, int64_t ld, int lines, int lanes,
                                   __mmask16 store, int64_t k, int64_t width, float* o) {
  // A few steps of lines stored back to back (a dense A of a shallow product, packed for the
  // transposed plans): one run, deinterleaved.
  if (ld == k && k <= 8) {
    switch (k) {
      case 1: return deinterleave_lines<1>(src, lines, store, width, o);
      case 2: return deinterleave_lines<2>(src, lines, store, width, o);
      case 3: return deinterleave_lines<3>(src, lines, store, width, o);
      case 4: return deinterleave_lines<4>(src, lines, store, width, o);
      case 5: return deinterleave_lines<5>(src, lines, store, width, o);
      case 6: return deinterleave_lines<6>(src, lines, store, width, o);
      case 7: return deinterleave_lines<7>(src, lines, store, width, o);
      case 8: return deinterleave_lines<8>(src, lines, store, width, o);
      default: break;
    }
  }
  int64_t p0 = 0;
  for (; p0 + 16 <= k; p0 += 16) {
    __m512 r[16];
    for (int l = 0; l < 16; ++l)
      r[l] = l < lines ? _mm512_loadu_ps(src + l * ld + p0) : _mm512_setzero_ps();
    transpose16x16(r);
    for (int q = 0; q < 16; ++q) _mm512_mask_storeu_ps(o + (p0 + q) * width, store, r[q]);
  }
  // The last steps: two or more through the same transpose, the lines loaded under a mask of
  // the steps left (a panel of a few depth steps, as the transposed plans of a shallow A pack,
  // spent a third of its time on one-by-one copies: 5462 x 2 x 3).
  const int64_t left = k - p0;
  if (left >= 2) {
    const auto steps = static_cast<__mmask16>((1u << static_cast<unsigned>(left)) - 1u);
    __m512 r[16];
    for (int l = 0; l < 16; ++l)
      r[l] = l < lines ? _mm512_maskz_loadu_ps(steps, src + l * ld + p0) : _mm512_setzero_ps();
    transpose16x16(r);
    for (int q = 0; q < left; ++q) _mm512_mask_storeu_ps(o + (p0 + q) * width, store, r[q]);
    return;
  }
  for (; p0 < k; ++p0) {
    for (int l = 0; l < lanes; ++l) o[p0 * width + l] = l < lines ? src[l * ld + p0] : 0.0f;
  }
}

// TransposeFn (ukernel.hpp): 16 rows of the source at a time are 16 lines of `cols` steps
// for the line transpose, each column then one store of up to 16 values (a row-major B of at
// most 8 columns stored densely goes through the deinterleave: 19 x 2 x 931's copy of B was a
// third of the call element by element).
void transpose_block_avx512(int64_t rows, int64_t cols, const float* src, int64_t ld, float* out,
                            int64_t out_ld) {
  for (int64_t i0 = 0; i0 < rows; i0 += 16) {
    const int lines = static_cast<int>(rows - i0 < 16 ? rows - i0 : 16);
    transpose_lines_avx512(src + i0 * ld, ld, lines, lines, VecAvx512::mask(lines), cols, out_ld,
                           out + i0);
  }
}

// Same contract as pack_a_panels; the vector transpose when a_cs == 1 and mr <= 16.
void pack_a_rows_avx512(int64_t m, int64_t k, const float* a, int64_t a_rs, int64_t a_cs, int mr,
                        float* out) {
  if (a_cs != 1 || mr > 16) {
    pack_a_panels<VecAvx512>(m, k, a, a_rs, a_cs, mr, out);
    return;
  }
  const __mmask16 lanes = static_cast<__mmask16>((1u << static_cast<unsigned>(mr)) - 1u);
  for (int64_t i0 = 0; i0 < m; i0 += mr) {
    const int mv = static_cast<int>(m - i0 < mr ? m - i0 : mr);
    transpose_lines_avx512(a + i0 * a_rs, a_rs, mv, mr, lanes, k, mr, out + i0 * k);
  }
}

// Same contract as pack_b_panels; the vector transpose, 16 columns at a time, when op(B) is
// stored transposed (b_rs == 1) and nr is a multiple of 16.
void pack_b_cols_avx512(int64_t k, int64_t n, const float* b, int64_t b_rs, int64_t b_cs, int nr,
                        float* out) {
  if (b_rs != 1 || nr % 16 != 0) {
    pack_b_panels<VecAvx512>(k, n, b, b_rs, b_cs, nr, out);
    return;
  }
  for (int64_t j0 = 0; j0 < n; j0 += nr) {
    const int nv = static_cast<int>(n - j0 < nr ? n - j0 : nr);
    for (int jb = 0; jb < nr; jb += 16) {
      const int cols = nv - jb < 16 ? (nv - jb > 0 ? nv - jb : 0) : 16;
      transpose_lines_avx512(b + (j0 + jb) * b_cs, b_cs, cols, 16, 0xFFFF, k, nr,
                             out + j0 * k + jb);
    }
  }
}

}  // namespace
}  // namespace adaptcore::kernels
