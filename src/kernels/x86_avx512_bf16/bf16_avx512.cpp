// AVX512-BF16 kernels: vdpbf16ps over B packed in k-pairs, A broadcast as pairs. Compiled with
// -mavx512f -mavx512bf16 (and BW/VL for the packing); reached only after the CPU reported
// avx512_bf16 (the avx512_bf16 level, config.cpp). The kernels are the shared ones
// (tile_kernels.hpp, dot_tile.hpp) over Dpbf16Step; this unit picks the tiles.
//
// Per pair of depth steps a 14x32 tile loads 2 B vectors, broadcasts 14 A pairs and issues 28
// vdpbf16ps, each 16 lanes x 2 multiply-adds: twice the work of the fp32 kernel's FMAs at the
// same register budget (28 accumulators + 2 B + 1 broadcast of 32 zmm).
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/dot_tile.hpp"
#include "kernels/kernel_tables.hpp"
#include "kernels/lowp.hpp"
#include "kernels/lowp_pack_template.hpp"
#include "kernels/tile_kernels.hpp"
#include "kernels/x86_avx512/pack_b_words_avx512.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"
#include "kernels/x86_avx512_bf16/dpbf16_avx512.hpp"
#include "kernels/x86_avx512_bf16/tables.hpp"

namespace {

using namespace adaptcore::kernels;

// The bf16 C epilogue, 16 values at a time: the portable float_to_bf16 (round to nearest
// even on the bit pattern, NaN kept and quieted) in vector form, so both give the same bits.
void round_bf16_avx512(const float* acc, std::uint16_t* out, int64_t n, float beta) {
  const __m512 vb = _mm512_set1_ps(beta);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
  const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1);
  const __m512i quiet = _mm512_set1_epi32(0x40);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 k = VecAvx512::mask(static_cast<int>(std::min<int64_t>(16, n - j)));
    __m512 x = _mm512_maskz_loadu_ps(k, acc + j);
    if (beta != 0.0f) {
      const __m512i old = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, out + j));
      // Two roundings like the portable loop: beta * old, then the sum.
      const __m512 prod = _mm512_mul_round_ps(vb, _mm512_castsi512_ps(_mm512_slli_epi32(old, 16)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      x = _mm512_add_round_ps(x, prod, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    const __m512i u = _mm512_castps_si512(x);
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, abs_mask), inf);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(bias, lsb)), 16);
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), quiet);
    _mm256_mask_storeu_epi16(out + j, k, _mm512_cvtepi32_epi16(r));
  }
}

// pack_b: a transposed B (the N x K weight layout) through the vector transpose; other layouts
// through the template (row-major B already packs in order there, two rows interleaved).
void pack_b_bf16(int64_t k, int64_t n, const void* src, int64_t rs, int64_t cs, int nr,
                 unsigned flags, std::uint32_t* out, std::int32_t* colsum) {
  if (rs == 1 && cs != 1 && nr % 16 == 0)
    pack_b_transposed_words<Bf16Pairs, NoColumnSums>(k, n, src, cs, nr, flags, out, colsum);
  else
    pack_b_groups<Bf16Pairs>(k, n, src, rs, cs, nr, flags, out, colsum);
}

// 14x32 for compute-bound shapes; 6x64 whose 1..6-row variants serve decode-like M with wide
// B rows (as the fp32 tiles). bf16 has no signedness: fn_swapped is fn.
constexpr LowpTile kTiles[] = {make_lowp_tile<Dpbf16Step, Dpbf16Step, 14, 2>(),
                               make_lowp_tile<Dpbf16Step, Dpbf16Step, 6, 4>()};

// In place, 8 rows x 32 columns: 16 accumulators, 2 loads and 2 unpacks per pair of depth
// steps. Meant for M <= 8-ish where the product is bound by streaming B once.
constexpr LowpDirectTile kDirect{
    8, 32, 1.0, row_table<LowpDirectFn, DirectTile<Dpbf16Step, Bf16RowPairs, 8>, 8>()};

// Dot-product tiles (LowpDotArgs): per 32 depth values M + N loads of 64 bytes and M x N
// vdpbf16ps, each lane summing the pair products of the same two depths of a row and a column.
constexpr LowpDotKernels kDot{dot_table<LowpDotFn, kLowpDotMr, kLowpDotNr,
                                        DotTile<LowpDotArgs, Dpbf16Step, Bf16Values, Bf16Values>>(),
                              {},
                              {},
                              {}};

constexpr LowpKernels kBf16{adaptcore::DType::Bf16,
                            adaptcore::Isa::Avx512,
                            "avx512-bf16",
                            2,
                            16,
                            2.0,
                            kTiles,
                            &pack_a_groups<Bf16Pairs>,
                            &pack_b_bf16,
                            &round_bf16_avx512,
                            &kDirect,
                            &kDot};
}  // namespace

namespace adaptcore::kernels {
const LowpKernels& bf16_avx512_kernels() noexcept { return kBf16; }
}  // namespace adaptcore::kernels
