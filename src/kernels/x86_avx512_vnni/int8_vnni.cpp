// AVX512-VNNI kernels: vpdpbusd over B packed in groups of 4 k-values per column (u8 x s8 ->
// s32). Compiled with -mavx512f -mavx512bw -mavx512vnni; reached only after the CPU reported
// avx512_vnni (the avx512_vnni level, config.cpp). The kernels are the shared ones
// (tile_kernels.hpp, dot_tile.hpp) over DpbusdStep (dpbusd_avx512.hpp: exactness, signedness
// order); this unit picks the tiles and packs B.
//
// The tile equals the true sum whenever that fits in int32: always for K <= 65793
// (65793 * 32640 < 2^31).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
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
#include "kernels/x86_avx512_vnni/dpbusd_avx512.hpp"
#include "kernels/x86_avx512_vnni/tables.hpp"

namespace {

using namespace adaptcore::kernels;

// Column sums of packed int8 words by vpdpbusd against ones, with the operand's sign.
struct VnniByteSums {
  static __m512i add(__m512i acc, __m512i v, unsigned flags) {
    const __m512i ones = _mm512_set1_epi8(1);
    return (flags & adaptcore::kernels::kSigned) != 0 ? _mm512_dpbusd_epi32(acc, ones, v)
                                                      : _mm512_dpbusd_epi32(acc, v, ones);
  }
};

// pack_b for row-major B (cs == 1), the common weight layout: 4 rows at a time, 64 columns a
// step through interleave_quads and unscramble, each 16-column vector stored where its panel
// wants it, column sums by vpdpbusd against ones. The portable template gathers byte by byte,
// too slow for decode-like calls (docs/LOWP.md, "Kernel measurements"). A transposed B (rs == 1)
// goes to pack_b_transposed_words, other layouts to the template.
void pack_b_int8(int64_t k, int64_t n, const void* src, int64_t rs, int64_t cs, int nr,
                 unsigned flags, std::uint32_t* out, std::int32_t* colsum) {
  if (cs != 1 && rs == 1 && nr % 16 == 0) {
    pack_b_transposed_words<Int8Quads, VnniByteSums>(k, n, src, cs, nr, flags, out, colsum);
    return;
  }
  if (cs != 1 || nr % 16 != 0) {
    pack_b_groups<Int8Quads>(k, n, src, rs, cs, nr, flags, out, colsum);
    return;
  }
  const auto* b = static_cast<const std::uint8_t*>(src);
  const int64_t groups = GroupDepth<Int8Quads>(k).groups;
  const int64_t n_pad = (n + nr - 1) / nr * nr;  // whole panels, zero-padded
  const bool flip = (flags & adaptcore::kernels::kFlip) != 0;
  const bool sgn = (flags & adaptcore::kernels::kSigned) != 0;
  const __m512i flip_bits = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i ones = _mm512_set1_epi8(1);
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t rows = std::min<int64_t>(4, k - 4 * g);
    const std::uint8_t* r = b + 4 * g * rs;
    for (int64_t j0 = 0; j0 < n_pad; j0 += 64) {
      const __mmask64 m = first_bytes(n - j0);
      __m512i row[4];
      for (int q = 0; q < 4; ++q) {
        row[q] = q < rows ? _mm512_maskz_loadu_epi8(m, r + q * rs + j0) : _mm512_setzero_si512();
        if (flip && q < rows)  // padding stays 0
          row[q] = _mm512_maskz_mov_epi8(m, _mm512_xor_si512(row[q], flip_bits));
      }
      __m512i q[4], v[4];
      interleave_quads(row[0], row[1], row[2], row[3], q);
      unscramble(q[0], q[1], q[2], q[3], v);
      for (int t = 0; t < 4; ++t) {
        const int64_t j = j0 + 16 * t;
        if (j >= n_pad) break;
        _mm512_storeu_si512(out + (j / nr) * groups * nr + g * nr + j % nr, v[t]);
        if (colsum != nullptr && j < n) {
          const __m512i s = sgn ? _mm512_dpbusd_epi32(_mm512_setzero_si512(), ones, v[t])
                                : _mm512_dpbusd_epi32(_mm512_setzero_si512(), v[t], ones);
          const __mmask16 cm = VecAvx512::mask(static_cast<int>(std::min<int64_t>(16, n - j)));
          _mm512_mask_storeu_epi32(colsum + j, cm,
                                   _mm512_add_epi32(s, _mm512_maskz_loadu_epi32(cm, colsum + j)));
        }
      }
    }
  }
}

// 14x32: 28 accumulators + 2 B vectors + the A broadcast (vpdpbusd takes only the signed
// operand from memory, so the u8 broadcast needs a register): 31 of 32 zmm. 6x64 for small M.
constexpr LowpTile kTiles[] = {make_lowp_tile<DpbusdStep<false>, DpbusdStep<true>, 14, 2>(),
                               make_lowp_tile<DpbusdStep<false>, DpbusdStep<true>, 6, 4>()};

// 4 rows x 64 columns in place: 16 accumulators, 4 column sums, 4 row loads and 8 unpacks per
// group (about 8 cycles, the model's shuffle figure); for decode-like M the product is bound by
// streaming B once anyway. `fn` reads A as u8 and B as s8, `fn_swapped` the opposite,
// `fn_swapped_flip` with B's bytes xored with 0x80.
template <bool Swapped, bool FlipB>
using Direct = DirectTile<DpbusdStep<Swapped>, Int8RowQuads<FlipB>, 4>;
constexpr LowpDirectTile kDirect{4,
                                 64,
                                 8.0,
                                 row_table<LowpDirectFn, Direct<false, false>, 4>(),
                                 row_table<LowpDirectFn, Direct<true, false>, 4>(),
                                 row_table<LowpDirectFn, Direct<true, true>, 4>()};

// Dot-product tiles (LowpDotArgs): per 64 depth values M + N loads of 64 bytes and M x N
// vpdpbusd with the u8 side (A, or B when SwapB) as the unsigned operand, its bytes xored with
// 0x80 when Flip; with a colsum also B's column sums by vpdpbusd against ones (N more per
// step). Step by step over the tile's columns, as the other types: with the next column tile
// read ahead (exec/macro_kernel.hpp DotPrefetchRule) that is twice as fast as column by column
// for one or two rows, where one accumulator chain per row moved 64 bytes a dot latency
// (docs/EVIDENCE.md, E1).
template <bool SwapB, bool Flip>
using Dot =
    DotTile<LowpDotArgs, DpbusdStep<SwapB>, std::conditional_t<SwapB, S8Values, U8Values<Flip>>,
            std::conditional_t<SwapB, U8Values<Flip>, S8Values>>;
constexpr LowpDotKernels kDot{dot_table<LowpDotFn, kLowpDotMr, kLowpDotNr, Dot<false, false>>(),
                              dot_table<LowpDotFn, kLowpDotMr, kLowpDotNr, Dot<false, true>>(),
                              dot_table<LowpDotFn, kLowpDotMr, kLowpDotNr, Dot<true, false>>(),
                              dot_table<LowpDotFn, kLowpDotMr, kLowpDotNr, Dot<true, true>>()};

constexpr LowpKernels kVnni{
    adaptcore::DType::U8S8,    adaptcore::Isa::Avx512, "avx512-vnni", 4,        16,   4.0, kTiles,
    &pack_a_groups<Int8Quads>, &pack_b_int8,           nullptr,       &kDirect, &kDot};
}  // namespace

namespace adaptcore::kernels {
const LowpKernels& int8_vnni_kernels() noexcept { return kVnni; }
}  // namespace adaptcore::kernels
