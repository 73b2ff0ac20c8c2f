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

template <class V>
void pack_b_panels(int64_t k, int64_t n, const float* b, int64_t b_rs, int64_t b_cs, int nr,
                   float* out) {
  constexpr int W = V::W;
  using reg_t = typename V::reg;
  if (b_cs == 1) {
    // Rows contiguous in the source: walk the source in memory order (each row once, left to
    // right) and scatter each row's nr-wide pieces to their panels. Walking panel by panel
    // instead would read kc rows at once, a stream per row, which the prefetchers cannot
    // follow when B comes from DRAM.
    const int64_t full = n / nr * nr;
    for (int64_t p = 0; p < k; ++p) {
      const float* s = b + p * b_rs;
      float* d = out + p * nr;
      for (int64_t j0 = 0; j0 < full; j0 += nr) {
        float* dp = d + j0 * k;
        if (nr % W == 0) {
          for (int v = 0; v < nr; v += W) V::store(dp + v, V::load(s + j0 + v));
        } else {  // a panel narrower than the vectors (a half-width tile's)
          for (int v = 0; v < nr; v += W) V::store_n(dp + v, V::load_n(s + j0 + v, nr - v), nr - v);
        }
      }
      if (full < n) {
        const int nv = static_cast<int>(n - full);
        float* dp = d + full * k;
        for (int v = 0; v < nr; v += W) {
          const reg_t x = V::load_n(s + full + v, nv - v);
          if (nr - v >= W)
            V::store(dp + v, x);
          else
            V::store_n(dp + v, x, nr - v);
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
