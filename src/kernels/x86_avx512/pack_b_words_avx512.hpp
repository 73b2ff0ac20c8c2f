// Packing of a B stored transposed (op(B) columns contiguous along k, b_rs == 1: the N x K
// weight layout of LLM layers) into the 32-bit group panels of lowp.hpp, with AVX-512.
//
// Each column's groups are consecutive words, so 16 columns x 16 groups load as 16 vectors
// (one 64-byte line per column), transpose in registers and store as 16 panel rows of 16
// words. The portable template instead reads one word per column and group, 32 columns ldb
// apart: with ldb a multiple of 4 KiB (K = 4096 bf16 is 8 KiB) all of those lines fall into one
// L1 set, every load misses, and packing took a third of a bf16 256 x 4096 x 4096 call.
//
// F is the group format of lowp_pack_template.hpp (Bf16Pairs, Int8Quads); Sums adds the column
// sums of packed vectors (int8) or nothing (bf16). Included by the AVX-512 low-precision units.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/lowp_pack_template.hpp"
#include "kernels/x86_avx512/transpose16x16_avx512.hpp"

namespace adaptcore::kernels {
namespace {

// No column sums (bf16).
struct NoColumnSums {
  static __m512i add(__m512i acc, __m512i, unsigned) { return acc; }
};

inline __mmask16 word_mask(int64_t n) {
  return n >= 16  ? static_cast<__mmask16>(0xFFFF)
         : n <= 0 ? static_cast<__mmask16>(0)
                  : static_cast<__mmask16>((1u << static_cast<unsigned>(n)) - 1u);
}

// Same contract as LowpPackBFn for b_rs == 1 and nr a multiple of 16.
template <class F, class Sums>
void pack_b_transposed_words(int64_t k, int64_t n, const void* src, int64_t cs, int nr,
                             unsigned flags, std::uint32_t* out, std::int32_t* colsum) {
  using T = typename F::T;
  constexpr int G = F::G;
  const T* b = static_cast<const T*>(src);
  const GroupDepth<F> d(k);
  const int64_t groups = d.groups, full = d.full;
  const int tail = d.tail;
  // What the format does to a whole group besides placing it (the int8 flip: xor 0x80 on
  // every byte), as a vector; a word of zeros shows it.
  const T zeros[G] = {};
  const __m512i bits = _mm512_set1_epi32(static_cast<int>(F::word(zeros, flags)));
  for (int64_t j0 = 0; j0 < n; j0 += nr, out += groups * nr) {
    for (int h = 0; h < nr; h += 16) {
      const int cols = static_cast<int>(std::clamp<int64_t>(n - j0 - h, 0, 16));
      const T* col = b + (j0 + h) * cs;  // column i of this half at col + i * cs
      __m512i sum = _mm512_setzero_si512();
      for (int64_t g0 = 0; g0 < full; g0 += 16) {
        const int words = static_cast<int>(std::min<int64_t>(16, full - g0));
        const __mmask16 lm = word_mask(words);
        __m512 r[16];
        for (int i = 0; i < 16; ++i) {
          // Columns past n stay zero (the panel's padding); lanes past the whole groups are
          // loaded as nothing and never stored.
          r[i] = i < cols ? _mm512_castsi512_ps(_mm512_xor_si512(
                                _mm512_maskz_loadu_epi32(lm, col + i * cs + g0 * G), bits))
                          : _mm512_setzero_ps();
        }
        transpose16x16(r);
        for (int q = 0; q < words; ++q) {
          const __m512i v = _mm512_castps_si512(r[q]);
          _mm512_storeu_si512(out + (g0 + q) * nr + h, v);
          sum = Sums::add(sum, v, flags);
        }
      }
      if (tail > 0) {  // the last, partial group: k % G values, the rest zero
        alignas(64) std::uint32_t w[16] = {};
        for (int i = 0; i < cols; ++i)
          w[i] = group_word<F>(col + i * cs + full * G, 1, tail, flags);
        const __m512i v = _mm512_load_si512(w);
        _mm512_storeu_si512(out + full * nr + h, v);
        sum = Sums::add(sum, v, flags);
      }
      if (colsum != nullptr && cols > 0) {
        const __mmask16 cm = word_mask(cols);
        std::int32_t* cp = colsum + j0 + h;
        _mm512_mask_storeu_epi32(cp, cm, _mm512_add_epi32(sum, _mm512_maskz_loadu_epi32(cm, cp)));
      }
    }
  }
}

}  // namespace
}  // namespace adaptcore::kernels
