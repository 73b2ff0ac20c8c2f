// Packing of a row-major A block (rows contiguous along k) into mr-row panels with AVX-512:
// 16 depth steps of up to 16 rows are loaded as 16 vectors, transposed in registers
// (4 shuffle stages), and each column is written as one masked store of mr lanes. The scalar
// transpose does one element per instruction; this does 16.
// Include only inside the anonymous namespace of the AVX-512 unit.

#include "kernels/x86_avx512/transpose16x16_avx512.hpp"

// Same contract as pack_a_panels; used when a_cs == 1 and mr <= 16.
void pack_a_rows_avx512(int64_t m, int64_t k, const float* a, int64_t a_rs, int64_t a_cs,
                        int mr, float* out) {
  if (a_cs != 1 || mr > 16) {
    pack_a_panels<VecAvx512>(m, k, a, a_rs, a_cs, mr, out);
    return;
  }
  const __mmask16 store_mask = static_cast<__mmask16>((1u << static_cast<unsigned>(mr)) - 1u);
  for (int64_t i0 = 0; i0 < m; i0 += mr) {
    const int mv = static_cast<int>(m - i0 < mr ? m - i0 : mr);
    float* o = out + i0 * k;
    const float* src = a + i0 * a_rs;
    int64_t p0 = 0;
    for (; p0 + 16 <= k; p0 += 16) {
      __m512 r[16];
      for (int i = 0; i < 16; ++i)
        r[i] = i < mv ? _mm512_loadu_ps(src + i * a_rs + p0) : _mm512_setzero_ps();
      transpose16x16(r);
      for (int q = 0; q < 16; ++q) _mm512_mask_storeu_ps(o + (p0 + q) * mr, store_mask, r[q]);
    }
    for (; p0 < k; ++p0) {
      for (int i = 0; i < mv; ++i) o[p0 * mr + i] = src[i * a_rs + p0];
      for (int i = mv; i < mr; ++i) o[p0 * mr + i] = 0.0f;
    }
  }
}

// Packing of a B stored transposed (op(B) columns contiguous along k, b_rs == 1) into nr-column
// panels: blocks of 16 columns x 16 depth steps are transposed in registers and stored as full
// vectors. Same contract as pack_b_panels; other cases go to it.
void pack_b_cols_avx512(int64_t k, int64_t n, const float* b, int64_t b_rs, int64_t b_cs, int nr,
                        float* out) {
  if (b_rs != 1 || nr % 16 != 0) {
    pack_b_panels<VecAvx512>(k, n, b, b_rs, b_cs, nr, out);
    return;
  }
  for (int64_t j0 = 0; j0 < n; j0 += nr) {
    const int nv = static_cast<int>(n - j0 < nr ? n - j0 : nr);
    float* o = out + j0 * k;
    for (int jb = 0; jb < nr; jb += 16) {
      const int cols = nv - jb < 16 ? (nv - jb > 0 ? nv - jb : 0) : 16;
      const float* src = b + (j0 + jb) * b_cs;
      int64_t p0 = 0;
      for (; p0 + 16 <= k; p0 += 16) {
        __m512 r[16];
        for (int j = 0; j < 16; ++j)
          r[j] = j < cols ? _mm512_loadu_ps(src + j * b_cs + p0) : _mm512_setzero_ps();
        transpose16x16(r);
        for (int q = 0; q < 16; ++q) _mm512_storeu_ps(o + (p0 + q) * nr + jb, r[q]);
      }
      for (; p0 < k; ++p0) {
        for (int j = 0; j < 16; ++j) o[p0 * nr + jb + j] = j < cols ? src[j * b_cs + p0] : 0.0f;
      }
    }
  }
}
