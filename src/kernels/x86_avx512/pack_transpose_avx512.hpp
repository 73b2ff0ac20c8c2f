// Packing of a row-major A block (rows contiguous along k) into mr-row panels with AVX-512:
// 16 depth steps of up to 16 rows are loaded as 16 vectors, transposed in registers
// (4 shuffle stages), and each column is written as one masked store of mr lanes. The scalar
// transpose does one element per instruction; this does 16.
// Include only inside the anonymous namespace of the AVX-512 unit.

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
