// AVX512-BF16 kernels: vdpbf16ps over B packed in k-pairs, A broadcast as pairs. Compiled with
// -mavx512f -mavx512bf16 (and BW/VL for the packing); reached only after the CPU reported
// avx512_bf16 (lowp_kernels_for).
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

#include "kernels/lowp.hpp"

namespace {
#include "kernels/lowp_pack_template.hpp"
#include "kernels/x86_avx512/pack_b_words_avx512.hpp"

using adaptcore::kernels::LowpArgs;

inline __mmask16 mask16(int n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF)
                 : static_cast<__mmask16>((1u << static_cast<unsigned>(std::max(n, 0))) - 1u);
}

// M rows (<= PMR, the panel's row count) x NV vectors of 16 columns.
template <int PMR, int M, int NV>
void bf16_kernel(const LowpArgs& x) {
  __m512 acc[M][NV];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  }
  // Start pulling the C tile in now (as the fp32 kernel does): later depth blocks read it,
  // its rows are ldc apart, and a C block larger than L2 would otherwise miss in the epilogue
  // with nothing left to overlap (measured: 14x32 tiles over a 308 x 2048 C, 512-deep,
  // 175 -> 185 GFLOP/s per core on bf16).
  if (x.beta != 0.0f) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        if (v * 16 < x.n) __builtin_prefetch(static_cast<const float*>(x.c) + i * x.ldc + v * 16, 1, 3);
    }
  }
  const std::uint32_t* a = x.a;
  const std::uint32_t* b = x.b;
#pragma GCC unroll 2
  for (int64_t g = 0; g < x.groups; ++g) {
    __m512bh bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = std::bit_cast<__m512bh>(_mm512_loadu_si512(b + 16 * v));
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      const __m512bh av = std::bit_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(a[i])));
#pragma GCC unroll 4
      // The broadcast goes second: only the second source may be a memory operand, so the
      // compiler can fold the load into the instruction as {1to16} (products commute).
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], bv[v], av);
    }
    a += PMR;
    b += 16 * NV;
  }
  // Epilogue: C = alpha * acc (+ beta * C); beta == 0 never reads C.
  float* c = static_cast<float*>(x.c);
  const __m512 alpha = _mm512_set1_ps(x.alpha);
  const __m512 beta = _mm512_set1_ps(x.beta);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if (v * 16 >= x.n) continue;
      float* cp = c + i * x.ldc + v * 16;
      const __mmask16 k = mask16(x.n - v * 16);
      __m512 r = _mm512_mul_ps(alpha, acc[i][v]);
      if (x.beta != 0.0f) r = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(k, cp), r);
      _mm512_mask_storeu_ps(cp, k, r);
    }
  }
}

// In-place B, M rows x 32 columns. Per pair of depth steps: two masked 64-byte loads (rows k
// and k+1 of B), vpunpcklwd / vpunpckhwd into pairs, 2M vdpbf16ps. The unpacks work within
// 128-bit lanes, so `lo` accumulates columns 8L..8L+3 of each lane L and `hi` 8L+4..8L+7; the
// epilogue restores the order with two vpermt2ps per row. Odd k: the last row pairs with
// zeros (the packed A pads its last group with a zero too).
template <int PMR, int M>
void bf16_direct_kernel(const adaptcore::kernels::LowpDirectArgs& x) {
  __m512 lo[M], hi[M];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) lo[i] = hi[i] = _mm512_setzero_ps();
  const __mmask32 cols = x.n >= 32 ? ~__mmask32{0} : (__mmask32{1} << x.n) - 1u;
  const auto* b = static_cast<const std::uint16_t*>(x.b);
  const std::uint32_t* a = x.a;
  auto step = [&](__m512i r0, __m512i r1) {
    const __m512bh bl = std::bit_cast<__m512bh>(_mm512_unpacklo_epi16(r0, r1));
    const __m512bh bh = std::bit_cast<__m512bh>(_mm512_unpackhi_epi16(r0, r1));
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      const __m512bh av = std::bit_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(a[i])));
      lo[i] = _mm512_dpbf16_ps(lo[i], bl, av);
      hi[i] = _mm512_dpbf16_ps(hi[i], bh, av);
    }
    a += PMR;
  };
  const int64_t pairs = x.k / 2;
#pragma GCC unroll 2
  for (int64_t g = 0; g < pairs; ++g) {
    step(_mm512_maskz_loadu_epi16(cols, b), _mm512_maskz_loadu_epi16(cols, b + x.ldb));
    b += 2 * x.ldb;
  }
  if ((x.k & 1) != 0) step(_mm512_maskz_loadu_epi16(cols, b), _mm512_setzero_si512());

  const __m512i first = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second =
      _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const __m512 alpha = _mm512_set1_ps(x.alpha), beta = _mm512_set1_ps(x.beta);
  const __mmask16 k0 = mask16(x.n), k1 = mask16(x.n - 16);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    float* cp = static_cast<float*>(x.c) + i * x.ldc;
    __m512 r0 = _mm512_mul_ps(alpha, _mm512_permutex2var_ps(lo[i], first, hi[i]));
    __m512 r1 = _mm512_mul_ps(alpha, _mm512_permutex2var_ps(lo[i], second, hi[i]));
    if (x.beta != 0.0f) {
      r0 = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(k0, cp), r0);
      r1 = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(k1, cp + 16), r1);
    }
    _mm512_mask_storeu_ps(cp, k0, r0);
    _mm512_mask_storeu_ps(cp + 16, k1, r1);
  }
}

template <int PMR, int... Ms>
constexpr std::array<adaptcore::kernels::LowpDirectFn, adaptcore::kernels::kMaxMr> direct_rows(
    std::integer_sequence<int, Ms...>) {
  return {&bf16_direct_kernel<PMR, Ms + 1>...};
}

// 8 rows x 32 columns: 16 accumulators, 2 loads and 2 unpacks per pair of depth steps. Meant
// for M <= 8-ish where the product is bound by streaming B once.
constexpr adaptcore::kernels::LowpDirectTile kDirect{
    8, 32, 1.0, direct_rows<8>(std::make_integer_sequence<int, 8>{})};

// The bf16 C epilogue, 16 values at a time: the portable float_to_bf16 (round to nearest
// even on the bit pattern, NaN kept and quieted) in vector form, so both give the same bits.
void round_bf16_avx512(const float* acc, std::uint16_t* out, int64_t n, float beta) {
  const __m512 vb = _mm512_set1_ps(beta);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
  const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1);
  const __m512i quiet = _mm512_set1_epi32(0x40);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 k = mask16(static_cast<int>(std::min<int64_t>(16, n - j)));
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

template <int PMR, int NV, int... Ms>
constexpr std::array<adaptcore::kernels::LowpFn, adaptcore::kernels::kMaxMr> rows(
    std::integer_sequence<int, Ms...>) {
  return {&bf16_kernel<PMR, Ms + 1, NV>...};
}

template <int MR, int NV>
constexpr adaptcore::kernels::LowpTile tile() {
  adaptcore::kernels::LowpTile t{};
  t.mr = MR;
  t.nr = 16 * NV;
  t.fn = rows<MR, NV>(std::make_integer_sequence<int, MR>{});
  t.fn_swapped = t.fn;  // bf16 has no signedness
  return t;
}

// 14x32 for compute-bound shapes; 6x64 whose 1..6-row variants serve decode-like M with wide
// B rows (as the fp32 tiles).
constexpr adaptcore::kernels::LowpTile kTiles[] = {tile<14, 2>(), tile<6, 4>()};

// Dot-product tile (LowpDotArgs): per 32 depth values M + N loads of 64 bytes and M x N
// vdpbf16ps, each lane summing the pair products of the same two depths of a row and a column.
template <int M, int N>
void bf16_dot_kernel(const adaptcore::kernels::LowpDotArgs& x) {
  const auto* a = static_cast<const std::uint16_t*>(x.a);
  const auto* b = static_cast<const std::uint16_t*>(x.b);
  __m512 acc[M][N];
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) acc[i][j] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < x.k; p += 32) {
    const int64_t left = x.k - p;
    const __mmask32 m = left >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << left) - 1u);
    __m512bh bv[N];
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) bv[j] = std::bit_cast<__m512bh>(_mm512_maskz_loadu_epi16(m, b + j * x.ldb + p));
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const __m512bh av = std::bit_cast<__m512bh>(_mm512_maskz_loadu_epi16(m, a + i * x.lda + p));
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j) acc[i][j] = _mm512_dpbf16_ps(acc[i][j], av, bv[j]);
    }
  }
  auto* c = static_cast<float*>(x.c);
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      float* cp = c + i * x.ldc + j;
      const float v = x.alpha * _mm512_reduce_add_ps(acc[i][j]);
      *cp = x.beta == 0.0f ? v : v + x.beta * *cp;
    }
  }
}

template <int M, int... Ns>
constexpr std::array<adaptcore::kernels::LowpDotFn, adaptcore::kernels::kLowpDotNr> dot_row(
    std::integer_sequence<int, Ns...>) {
  return {&bf16_dot_kernel<M, Ns + 1>...};
}

template <int... Ms>
constexpr adaptcore::kernels::LowpDotKernels::Table dot_table(std::integer_sequence<int, Ms...>) {
  return {dot_row<Ms + 1>(std::make_integer_sequence<int, adaptcore::kernels::kLowpDotNr>{})...};
}

constexpr adaptcore::kernels::LowpDotKernels kDot{
    dot_table(std::make_integer_sequence<int, adaptcore::kernels::kLowpDotMr>{}), {}, {}, {}};

constexpr adaptcore::kernels::LowpKernels kBf16{
    adaptcore::DType::Bf16, adaptcore::Isa::Avx512, "avx512-bf16", 2, 16, 2.0, kTiles,
    &pack_a_groups<Bf16Pairs>, &pack_b_bf16, &round_bf16_avx512, &kDirect, &kDot};
}  // namespace

namespace adaptcore::kernels {
const LowpKernels* bf16_avx512_kernels() noexcept { return &kBf16; }
}  // namespace adaptcore::kernels
