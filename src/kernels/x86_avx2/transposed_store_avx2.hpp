// The transposed store of an fp32 register tile (AVX2): the tile computed C^T's rows (one per
// column of C, at most 8) with C's rows along the vector lanes, and it writes them into C's rows.
// Plans with Plan::transpose_c run the problem as C^T = op(B)^T op(A)^T so that a C of a few
// columns puts its many rows across the lanes (4167 x 1 x 1: eight rows a vector, where the
// row-wise tile holds one column of one row per vector and stores it alone).
//
// Per vector of 8 rows: a tile of at most 4 rows (C of 1-4 columns) transposes as 4 x 8
// (4 unpacks, 4 shuffles) into 8 half vectors, one per row of C; 5-8 rows as 8 x 8 (8 unpacks,
// 8 shuffles, 8 lane permutes). Each row of C is then stored as its M values with 16-, 8- and
// 4-byte stores, never vmaskmovps (microcoded on AMD cores before Zen 4: VecAvx2::store_n). A C
// of one column stored densely (ldc == 1) takes the vector as it is. alpha is applied to the
// accumulators before the transpose, beta to the rows after it, with the row store's own
// operations (alpha * acc, then fma(beta, c, that)), so the bits are those of a row store.
// Included by the AVX2 unit; the unnamed namespace gives it its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/tile_epilogue.hpp"
#include "kernels/x86_avx2/transpose8x8_avx2.hpp"
#include "kernels/x86_avx2/vec_avx2.hpp"

namespace adaptcore::kernels {
namespace {

struct TransposedStoreAvx2 {
  static constexpr int kMaxRows = 8;  // C^T rows (C columns) one tile stores

  // Tile element (i, j) goes to c[j * ldc + i]: i < M (C's columns), j < n (C's rows).
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void store(const typename V::reg (&acc)[M][L], float* c,
                                           int64_t ldc, int n, const Op& op) {
    static_assert(V::W == 8 && M <= kMaxRows, "8-lane tiles of at most 8 rows");
    const bool source = op.needs_source();
#pragma GCC unroll 4
    for (int v = 0; v < L; ++v) {
      const int rows = n - v * 8;
      if (rows <= 0) break;
      float* base = c + int64_t{v} * 8 * ldc;
      if constexpr (M == 1) {
        if (ldc == 1) {
          store_run(base, op(acc[0][v], TileSlot{0, v * 8, 8}), rows < 8 ? rows : 8, source,
                    _mm256_set1_ps(op.beta));
          continue;
        }
      }
      __m256 x[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i)
        x[i] = i < M ? op(acc[i][v], TileSlot{i, v * 8, 8}) : _mm256_setzero_ps();
      if constexpr (M <= 4)
        store_quarter_rows<M>(x, base, ldc, rows, source, _mm_set1_ps(op.beta));
      else
        store_rows<M>(x, base, ldc, rows, source, _mm256_set1_ps(op.beta));
    }
  }

  // With beta, or asked to for the lines it only writes (`written`), pulls in the tile's rows
  // of C before the depth loop (its rows are ldc apart).
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void prefetch(const float* c, int64_t ldc, int n, const Op& op,
                                              bool written) {
    prefetch_transposed_rows(c, ldc, n, op, written);
  }

 private:
  // C of 1-4 columns: rows j and 4 + j of C are the low and high halves of u[j].
  template <int M>
  [[gnu::always_inline]] static void store_quarter_rows(const __m256 (&x)[8], float* base,
                                                        int64_t ldc, int rows, bool source,
                                                        __m128 vbeta) {
    const __m256 t0 = _mm256_unpacklo_ps(x[0], x[1]), t1 = _mm256_unpackhi_ps(x[0], x[1]);
    const __m256 t2 = _mm256_unpacklo_ps(x[2], x[3]), t3 = _mm256_unpackhi_ps(x[2], x[3]);
    const __m256 u[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE),
                         _mm256_shuffle_ps(t1, t3, 0x44), _mm256_shuffle_ps(t1, t3, 0xEE)};
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      put_row<M>(base, ldc, j, rows, _mm256_castps256_ps128(u[j]), source, vbeta);
      put_row<M>(base, ldc, j + 4, rows, _mm256_extractf128_ps(u[j], 1), source, vbeta);
    }
  }

  // C of 5-8 columns: the 8 x 8 transpose, row r of C in x[r].
  template <int M>
  [[gnu::always_inline]] static void store_rows(__m256 (&x)[8], float* base, int64_t ldc, int rows,
                                                bool source, __m256 vbeta) {
    transpose8x8(x);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) put_row<M>(base, ldc, r, rows, x[r], source, vbeta);
  }

  template <int M>
  [[gnu::always_inline]] static void put_row(float* base, int64_t ldc, int r, int rows, __m128 row,
                                             bool source, __m128 vbeta) {
    if (r >= rows) return;
    float* p = base + int64_t{r} * ldc;
    // The traits' 256-bit forms on the low half: lanes past M are neither read nor written.
    if (source) row = _mm_fmadd_ps(vbeta, _mm256_castps256_ps128(VecAvx2::load_n(p, M)), row);
    VecAvx2::store_n(p, _mm256_castps128_ps256(row), M);
  }
  template <int M>
  [[gnu::always_inline]] static void put_row(float* base, int64_t ldc, int r, int rows, __m256 row,
                                             bool source, __m256 vbeta) {
    if (r >= rows) return;
    float* p = base + int64_t{r} * ldc;
    if (source) row = _mm256_fmadd_ps(vbeta, VecAvx2::load_n(p, M), row);
    VecAvx2::store_n(p, row, M);
  }

  // n consecutive values of C (a dense one-column C): the vector's first n lanes.
  [[gnu::always_inline]] static void store_run(float* p, __m256 out, int n, bool source,
                                               __m256 vbeta) {
    if (source) out = _mm256_fmadd_ps(vbeta, VecAvx2::load_n(p, n), out);
    VecAvx2::store_n(p, out, n);
  }
};

}  // namespace
}  // namespace adaptcore::kernels
