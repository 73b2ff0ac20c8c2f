// Packing routines, written once over a vector-traits type V (see tile_mainloop.hpp) and
// instantiated per ISA unit; the unnamed namespace gives each unit its own copy, built with
// its flags.
//
// Packed layouts (what the micro-kernel reads with AMode::ColUnit and ldb == nr):
//   A: panels of mr rows; panel r holds out[r * mr * k + p * mr + i] = op(A)(r * mr + i, p)
//   B: panels of nr cols; panel s holds out[s * nr * k + p * nr + j] = op(B)(p, s * nr + j)
// Rows or columns past the edge are zero, so a full tile computed on them adds nothing. (The
// fp32 executor packs a last A panel of fewer rows on its own, as wide as its rows, read with
// that stride by the tile of that height: exec/executor.cpp, pack_a.)
#pragma once

#include <cstdint>

namespace adaptcore::kernels {
namespace {

// Copies `lines` lines (rows of A or columns of B) of depth k, element (l, p) at
// src[l * line_stride + p * depth_stride], into a panel of `width` lines, out[p * width + l],
// the lines past `lines` zero. Transposes in blocks of 8 depth steps to keep both sides in L1.
inline void transpose_into_panel(const float* src, int64_t line_stride, int64_t depth_stride,
                                 int lines, int width, int64_t k, float* o) {
  constexpr int64_t kBlock = 8;
  int64_t p0 = 0;
  for (; p0 + kBlock <= k; p0 += kBlock) {
    for (int l = 0; l < lines; ++l) {
      const float* s = src + l * line_stride + p0 * depth_stride;
#pragma GCC unroll 8
      for (int64_t p = 0; p < kBlock; ++p) o[(p0 + p) * width + l] = s[p * depth_stride];
    }
    for (int l = lines; l < width; ++l) {
#pragma GCC unroll 8
      for (int64_t p = 0; p < kBlock; ++p) o[(p0 + p) * width + l] = 0.0f;
    }
  }
  for (; p0 < k; ++p0) {
    for (int l = 0; l < lines; ++l) o[p0 * width + l] = src[l * line_stride + p0 * depth_stride];
    for (int l = lines; l < width; ++l) o[p0 * width + l] = 0.0f;
  }
}

// TransposeFn (ukernel.hpp), element by element in blocks of 8 rows (the portable form).
inline void transpose_block(int64_t rows, int64_t cols, const float* src, int64_t ld, float* out,
                            int64_t out_ld) {
  for (int64_t i0 = 0; i0 < rows; i0 += 8) {
    const int64_t i1 = i0 + 8 < rows ? i0 + 8 : rows;
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = i0; i < i1; ++i) out[j * out_ld + i] = src[i * ld + j];
  }
}

template <class V>
void pack_a_panels(int64_t m, int64_t k, const float* a, int64_t a_rs, int64_t a_cs, int mr,
                   float* out) {
  for (int64_t i0 = 0; i0 < m; i0 += mr) {
    const int mv = static_cast<int>(m - i0 < mr ? m - i0 : mr);
    float* o = out + i0 * k;
    const float* src = a + i0 * a_rs;
    if (a_rs == 1) {
      // Columns of the panel are contiguous in the source: a short copy per depth step.
      for (int64_t p = 0; p < k; ++p) {
        const float* s = src + p * a_cs;
        float* d = o + p * mr;
        int i = 0;
        for (; i < mv; ++i) d[i] = s[i];
        for (; i < mr; ++i) d[i] = 0.0f;
      }
    } else {
      // Rows contiguous, or no unit stride at all.
      transpose_into_panel(src, a_rs, a_cs, mv, mr, k, o);
    }
  }
}

// Source rows a row-major B is packed in at once (pack_b_panels): few enough that their
// streams stay few and their lines out of each other's L1 sets, enough that each panel gets a
// contiguous run (8 x nr floats). Measured against 1 (row by row), 4, 12, 16 and 32 rows with
// adaptcore_bench_pack_rate (docs/MODEL.md, "Packing out of DRAM").
inline constexpr int64_t kPackBRows = 8;

template <class V>
void pack_b_panels(int64_t k, int64_t n, const float* b, int64_t b_rs, int64_t b_cs, int nr,
                   float* out) {
  constexpr int W = V::W;
  using reg_t = typename V::reg;
  if (b_cs == 1) {
    // Rows contiguous in the source: a few rows at a time (kPackBRows), each panel's slice of
    // them in turn. Reading the source row by row across all panels stored one row's pieces a
    // panel apart (nr * k floats, a multiple of 4 KiB for the usual depths): every store of
    // the row fell into the same L1 sets and missed. A few rows per panel write a contiguous
    // run of the panel instead, and read only that many source rows at once, streams the
    // prefetchers follow (kc rows at once would not be: a stream per row).
    const int64_t full = n / nr * nr;
    auto row_piece = [&](int64_t p, int64_t j0) {
      const float* s = b + p * b_rs + j0;
      float* dp = out + j0 * k + p * nr;
      if (nr % W == 0) {
        for (int v = 0; v < nr; v += W) V::store(dp + v, V::load(s + v));
      } else {  // a panel narrower than the vectors (a half-width tile's)
        for (int v = 0; v < nr; v += W) V::store_n(dp + v, V::load_n(s + v, nr - v), nr - v);
      }
    };
    for (int64_t p0 = 0; p0 < k; p0 += kPackBRows) {
      const int64_t p1 = p0 + kPackBRows < k ? p0 + kPackBRows : k;
      for (int64_t j0 = 0; j0 < full; j0 += nr)
        for (int64_t p = p0; p < p1; ++p) row_piece(p, j0);
      if (full < n) {
        const int nv = static_cast<int>(n - full);
        for (int64_t p = p0; p < p1; ++p) {
          const float* s = b + p * b_rs + full;
          float* dp = out + full * k + p * nr;
          for (int v = 0; v < nr; v += W) {
            const reg_t x = V::load_n(s + v, nv - v);
            if (nr - v >= W)
              V::store(dp + v, x);
            else
              V::store_n(dp + v, x, nr - v);
          }
        }
      }
    }
    return;
  }
  for (int64_t j0 = 0; j0 < n; j0 += nr) {
    const int nv = static_cast<int>(n - j0 < nr ? n - j0 : nr);
    float* o = out + j0 * k;
    // Columns contiguous (B stored transposed), or no unit stride at all.
    transpose_into_panel(b + j0 * b_cs, b_cs, b_rs, nv, nr, k, o);
  }
}

}  // namespace
}  // namespace adaptcore::kernels
