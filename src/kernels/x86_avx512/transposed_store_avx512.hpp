// The transposed store of an fp32 register tile (AVX-512): the tile computed C^T's rows (one
// per column of C, at most 8) with C's rows along the vector lanes, and it writes them into C's
// rows. Plans with Plan::transpose_c run the problem as C^T = op(B)^T op(A)^T so that a C of
// a few columns puts its many rows across the lanes (555 x 1 x 2: sixteen rows a vector, where
// the row-wise tile holds one column of one row per 8-lane vector).
//
// Per vector of 16 rows, a tile of at most 8 rows: the accumulators are transposed in registers
// (8 unpacks, 8 shuffles, 8 two-source permutes) into 8 registers of two rows each, then each
// row is one masked 256-bit store of its M values (and, with beta, one masked load). A tile of
// 9-16 rows (C of 9-15 columns, whose row-wise tiles leave 1-7 of 16 lanes idle): the
// 16 x 16 register transpose with the absent rows zero, then one masked 512-bit store a row. alpha
// is applied to the accumulators before the transpose, beta to the rows after it, with the row
// store's own operations (alpha * acc, then fma(beta, c, that)), so the bits are those of a row
// store. Included by the AVX-512 unit; the unnamed namespace gives it its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/tile_epilogue.hpp"
#include "kernels/x86_avx512/flat_transpose_avx512.hpp"
#include "kernels/x86_avx512/transpose16x16_avx512.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"

namespace adaptcore::kernels {
namespace {

struct TransposedStoreAvx512 {
  static constexpr int kMaxRows = 16;  // C^T rows (C columns) one tile stores

  // Tile element (i, j) goes to c[j * ldc + i]: i < M (C's columns), j < n (C's rows).
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void store(const typename V::reg (&acc)[M][L], float* c,
                                           int64_t ldc, int n, const Op& op) {
    static_assert(V::W == 16 && M <= kMaxRows, "16-lane tiles of at most 16 rows");
    if constexpr (M > 8)
      store_wide<V, M, L>(acc, c, ldc, n, op);
    else if (ldc == M)
      store_flat<V, M, L>(acc, c, n, op);
    else
      store_narrow<V, M, L>(acc, c, ldc, n, op);
  }

  // With beta, or asked to for the lines it only writes (`written`), pulls in the tile's rows
  // of C before the depth loop (its rows are ldc apart).
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void prefetch(const float* c, int64_t ldc, int n, const Op& op,
                                              bool written) {
    prefetch_transposed_rows(c, ldc, n, op, written);
  }

 private:
  // The tile's outputs of vector v, row by row (alpha and the output op applied), the rows
  // from M to R zero: the input of an R x 16 register transpose.
  template <class V, int M, int L, class Op, int R>
  [[gnu::always_inline]] static void outputs(const typename V::reg (&acc)[M][L], int v,
                                             const Op& op, __m512 (&x)[R]) {
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
      x[i] = i < M ? op(acc[i][v], TileSlot{i, v * 16, 16}) : _mm512_setzero_ps();
  }

  // At most 8 rows, C padded (ldc > M): the 8 x 16 transpose, 256-bit row stores.
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void store_narrow(const typename V::reg (&acc)[M][L], float* c,
                                                  int64_t ldc, int n, const Op& op) {
    const __mmask8 cols = static_cast<__mmask8>((1u << M) - 1u);
    const bool source = op.needs_source();
    const __m256 vbeta = _mm256_set1_ps(op.beta);
#pragma GCC unroll 4
    for (int v = 0; v < L; ++v) {
      const int rows = n - v * 16;
      if (rows <= 0) break;
      __m512 x[8];
      outputs<V, M, L>(acc, v, op, x);
      // Per 128-bit lane L: t0 = x0[4L], x1[4L], x0[4L+1], x1[4L+1]; t1 the next two.
      __m512 t[8], u[8];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]);
      }
      // u[q] (q < 4), per lane L: columns 0-3 of row 4L + q; u[4 + q] columns 4-7.
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        u[4 * h + 0] = _mm512_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
        u[4 * h + 1] = _mm512_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
        u[4 * h + 2] = _mm512_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
        u[4 * h + 3] = _mm512_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
      }
      // y[q]: row q | row 4 + q (columns 0-7 each); z[q]: row 8 + q | row 12 + q.
      const __m512i lo = _mm512_set_epi32(23, 22, 21, 20, 7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
      const __m512i hi =
          _mm512_set_epi32(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8);
      float* base = c + int64_t{v} * 16 * ldc;
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        const __m512 y = _mm512_permutex2var_ps(u[q], lo, u[4 + q]);
        const __m512 z = _mm512_permutex2var_ps(u[q], hi, u[4 + q]);
        put_row(base, ldc, q, rows, _mm512_castps512_ps256(y), cols, source, vbeta);
        put_row(base, ldc, q + 4, rows, _mm512_extractf32x8_ps(y, 1), cols, source, vbeta);
        put_row(base, ldc, q + 8, rows, _mm512_castps512_ps256(z), cols, source, vbeta);
        put_row(base, ldc, q + 12, rows, _mm512_extractf32x8_ps(z, 1), cols, source, vbeta);
      }
    }
  }

  // 9-16 rows: C's rows come out of the 16 x 16 transpose whole (a dense C too: its rows are
  // then M floats apart, each store masked to its own M).
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void store_wide(const typename V::reg (&acc)[M][L], float* c,
                                                int64_t ldc, int n, const Op& op) {
    const __mmask16 cols = static_cast<__mmask16>((1u << M) - 1u);
    const bool source = op.needs_source();
    const __m512 vbeta = _mm512_set1_ps(op.beta);
#pragma GCC unroll 4
    for (int v = 0; v < L; ++v) {
      const int rows = n - v * 16;
      if (rows <= 0) break;
      __m512 x[16];
      outputs<V, M, L>(acc, v, op, x);
      transpose16x16(x);
      float* base = c + int64_t{v} * 16 * ldc;
#pragma GCC unroll 16
      for (int r = 0; r < 16; ++r) {
        if (r >= rows) break;
        float* p = base + int64_t{r} * ldc;
        __m512 row = x[r];
        if (source) row = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(cols, p), row);
        _mm512_mask_storeu_ps(p, cols, row);
      }
    }
  }

  // ldc == M (a C stored densely): the tile's rows of C are one run of n * M floats, M
  // whole vectors per vector of rows (flat_transpose_avx512.hpp).
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void store_flat(const typename V::reg (&acc)[M][L], float* c, int n,
                                                const Op& op) {
    const bool source = op.needs_source();
    const __m512 vbeta = _mm512_set1_ps(op.beta);
#pragma GCC unroll 4
    for (int v = 0; v < L; ++v) {
      const int rows = n - v * 16;
      if (rows <= 0) break;
      __m512 x[M];
#pragma GCC unroll 8
      for (int i = 0; i < M; ++i) x[i] = op(acc[i][v], TileSlot{i, v * 16, 16});
      float* base = c + int64_t{v} * 16 * M;
      const int floats = (rows < 16 ? rows : 16) * M;
#pragma GCC unroll 8
      for (int q = 0; q < M; ++q) {
        const int valid = floats - 16 * q;
        if (valid <= 0) break;
        __m512 out;
        if constexpr (M == 1)
          out = x[0];
        else
          out = Interleave<M>::gather(x, q);
        float* p = base + 16 * q;
        const __mmask16 lanes =
            valid >= 16 ? static_cast<__mmask16>(0xFFFF)
                        : static_cast<__mmask16>((1u << static_cast<unsigned>(valid)) - 1u);
        if (source) out = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(lanes, p), out);
        _mm512_mask_storeu_ps(p, lanes, out);
      }
    }
  }

  [[gnu::always_inline]] static void put_row(float* base, int64_t ldc, int r, int rows, __m256 row,
                                             __mmask8 cols, bool source, __m256 vbeta) {
    if (r >= rows) return;
    float* p = base + int64_t{r} * ldc;
    if (source) row = _mm256_fmadd_ps(vbeta, _mm256_maskz_loadu_ps(cols, p), row);
    _mm256_mask_storeu_ps(p, cols, row);
  }
};

}  // namespace
}  // namespace adaptcore::kernels
