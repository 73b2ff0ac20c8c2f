// AVX512-VNNI kernels: vpdpbusd over B packed in groups of 4 k-values per column (u8 x s8 ->
// s32). Compiled with -mavx512f -mavx512bw -mavx512vnni; reached only after the CPU reported
// avx512_vnni (lowp_kernels_for).
//
// Exactness: vpdpbusd multiplies each u8 by the matching s8 into a 16-bit word (|u8 * s8| <=
// 255 * 128 = 32640 fits in s16, so the word is exact), sign-extends the four words and adds
// them to the 32-bit accumulator with a plain, wrapping 32-bit add (vpdpbusds is the saturating
// form). Every step is exact modulo 2^32, so the tile equals the true sum whenever that fits in
// int32: always for K <= 65793 (65793 * 32640 < 2^31).
//
// The instruction's first multiplicand must be the unsigned one. Normally A (broadcast) is u8
// and B s8; a column-major C swaps the operands, so the swapped kernels read A as s8 and B as
// u8 and just pass the registers in the other order.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/lowp.hpp"

namespace {
#include "kernels/lowp_pack_template.hpp"

using adaptcore::kernels::LowpArgs;

inline __mmask16 mask16(int n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF)
                 : static_cast<__mmask16>((1u << static_cast<unsigned>(std::max(n, 0))) - 1u);
}

template <int PMR, int M, int NV, bool Swapped>
void int8_kernel(const LowpArgs& x) {
  __m512i acc[M][NV];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_si512();
  }
  // Start pulling the C tile in now (as the fp32 kernel does): later depth blocks read it,
  // its rows are ldc apart, and a C block larger than L2 would otherwise miss in the epilogue
  // with nothing left to overlap (measured: 14x32 tiles over a 308 x 2048 C, 512-deep,
  // 175 -> 185 GFLOP/s per core on bf16).
  if (x.ibeta != 0) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        if (v * 16 < x.n) __builtin_prefetch(static_cast<const std::int32_t*>(x.c) + i * x.ldc + v * 16, 1, 3);
    }
  }
  const std::uint32_t* a = x.a;
  const std::uint32_t* b = x.b;
#pragma GCC unroll 2
  for (int64_t g = 0; g < x.groups; ++g) {
    __m512i bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_si512(b + 16 * v);
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      const __m512i av = _mm512_set1_epi32(static_cast<int>(a[i]));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[i][v] = Swapped ? _mm512_dpbusd_epi32(acc[i][v], bv[v], av)
                            : _mm512_dpbusd_epi32(acc[i][v], av, bv[v]);
    }
    a += PMR;
    b += 16 * NV;
  }
  // Epilogue: C = acc + ibeta * C modulo 2^32 (vpmulld keeps the low 32 bits).
  std::int32_t* c = static_cast<std::int32_t*>(x.c);
  const __m512i beta = _mm512_set1_epi32(x.ibeta);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if (v * 16 >= x.n) continue;
      std::int32_t* cp = c + i * x.ldc + v * 16;
      const __mmask16 k = mask16(x.n - v * 16);
      __m512i r = acc[i][v];
      if (x.ibeta == 1) {
        r = _mm512_add_epi32(r, _mm512_maskz_loadu_epi32(k, cp));
      } else if (x.ibeta != 0) {
        r = _mm512_add_epi32(r, _mm512_mullo_epi32(beta, _mm512_maskz_loadu_epi32(k, cp)));
      }
      _mm512_mask_storeu_epi32(cp, k, r);
    }
  }
}

template <int PMR, int NV, bool Swapped, int... Ms>
constexpr std::array<adaptcore::kernels::LowpFn, adaptcore::kernels::kMaxMr> rows(
    std::integer_sequence<int, Ms...>) {
  return {&int8_kernel<PMR, Ms + 1, NV, Swapped>...};
}

template <int MR, int NV>
constexpr adaptcore::kernels::LowpTile tile() {
  adaptcore::kernels::LowpTile t{};
  t.mr = MR;
  t.nr = 16 * NV;
  t.fn = rows<MR, NV, false>(std::make_integer_sequence<int, MR>{});
  t.fn_swapped = rows<MR, NV, true>(std::make_integer_sequence<int, MR>{});
  return t;
}

// 14x32: 28 accumulators + 2 B vectors + the A broadcast (vpdpbusd takes only the signed
// operand from memory, so the u8 broadcast needs a register): 31 of 32 zmm. 6x64 for small M.
constexpr adaptcore::kernels::LowpTile kTiles[] = {tile<14, 2>(), tile<6, 4>()};

constexpr adaptcore::kernels::LowpKernels kVnni{
    adaptcore::DType::U8S8, adaptcore::Isa::Avx512, "avx512-vnni", 4, 16, 4.0, kTiles,
    &pack_a_groups<Int8Quads>, &pack_b_groups<Int8Quads>, nullptr};
}  // namespace

namespace adaptcore::kernels {
const LowpKernels* int8_vnni_kernels() noexcept { return &kVnni; }
}  // namespace adaptcore::kernels
