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
#include "kernels/x86_avx512/pack_b_words_avx512.hpp"

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

// Four rows of 64 bytes -> the quads of 64 columns, in the lane-interleaved order the unpacks
// give: inside each 128-bit lane L, q[0] holds columns 16L+0..3, q[1] +4..7, q[2] +8..11,
// q[3] +12..15 (vpunpck{l,h}bw, then vpunpck{l,h}wd).
inline void interleave_quads(__m512i r0, __m512i r1, __m512i r2, __m512i r3, __m512i* q) {
  const __m512i t0 = _mm512_unpacklo_epi8(r0, r1), t1 = _mm512_unpackhi_epi8(r0, r1);
  const __m512i t2 = _mm512_unpacklo_epi8(r2, r3), t3 = _mm512_unpackhi_epi8(r2, r3);
  q[0] = _mm512_unpacklo_epi16(t0, t2);
  q[1] = _mm512_unpackhi_epi16(t0, t2);
  q[2] = _mm512_unpacklo_epi16(t1, t3);
  q[3] = _mm512_unpackhi_epi16(t1, t3);
}

// Back to column order, a transpose of 128-bit lanes: out[L] = [q0.L, q1.L, q2.L, q3.L] holds
// columns 16L..16L+15.
// The quads are taken by value: passing the kernel's accumulator array by address made GCC
// keep a second copy of every accumulator through the depth loop (objdump).
inline void unscramble(__m512i q0, __m512i q1, __m512i q2, __m512i q3, __m512i (&out)[4]) {
  const __m512i u0 = _mm512_shuffle_i32x4(q0, q1, 0x44);
  const __m512i u1 = _mm512_shuffle_i32x4(q2, q3, 0x44);
  const __m512i u2 = _mm512_shuffle_i32x4(q0, q1, 0xEE);
  const __m512i u3 = _mm512_shuffle_i32x4(q2, q3, 0xEE);
  out[0] = _mm512_shuffle_i32x4(u0, u1, 0x88);
  out[1] = _mm512_shuffle_i32x4(u0, u1, 0xDD);
  out[2] = _mm512_shuffle_i32x4(u2, u3, 0x88);
  out[3] = _mm512_shuffle_i32x4(u2, u3, 0xDD);
}

inline __mmask64 mask64(int64_t n) {
  return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << static_cast<unsigned>(std::max<int64_t>(n, 0))) - 1u;
}

// In-place B, M rows x 64 columns. Per group of 4 depth steps: four masked 64-byte row loads,
// vpunpck{l,h}bw then vpunpck{l,h}wd turn them into quads, which inside each 128-bit lane L
// hold columns 16L+0..3 (q0), +4..7 (q1), +8..11 (q2), +12..15 (q3); 4M vpdpbusd. The
// epilogue transposes the 128-bit lanes of q0..q3 back into column order (two rounds of
// vshufi32x4). Column sums, when asked for, come from one more vpdpbusd per quad against a
// vector of ones (as the other operand of the same signedness). A partial last group loads
// zero rows.
// Bytes ahead along B's rows that the in-place kernel prefetches (4 column tiles).
constexpr int64_t kDirectPrefetch = 256;

// Sums is a template parameter: a run-time test inside the loop made GCC 12 keep the
// accumulators in memory (objdump: spills and reloads around every vpdpbusd).
template <int PMR, int M, bool Swapped, bool FlipB, bool Sums>
void int8_direct_body(const adaptcore::kernels::LowpDirectArgs& x) {
  __m512i acc[M][4];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) acc[i][v] = _mm512_setzero_si512();
  }
  __m512i sums[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                     _mm512_setzero_si512()};
  const __m512i ones = _mm512_set1_epi8(1);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __mmask64 cols = mask64(x.n);
  const auto* b = static_cast<const std::uint8_t*>(x.b);
  const std::uint32_t* a = x.a;
  // One loop for whole and partial groups: rows past k load nothing (a zero mask never
  // faults). No lambdas or helper calls on the accumulators: GCC 12 then kept them in
  // registers only with a copy of each per iteration (objdump).
  const int64_t groups = (x.k + 3) / 4;
#pragma GCC unroll 1
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t left = x.k - 4 * g;
    const __mmask64 m1 = left > 1 ? cols : 0, m2 = left > 2 ? cols : 0, m3 = left > 3 ? cols : 0;
    // The next column tiles of these rows, a few calls ahead: a depth block is kc rows a page
    // or more apart, too many streams for the hardware prefetchers (measured at 4 x 4096 x
    // 4096 with 256-deep blocks: 5 GB/s without, DRAM speed with).
    _mm_prefetch(reinterpret_cast<const char*>(b + kDirectPrefetch), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + x.ldb + kDirectPrefetch), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 2 * x.ldb + kDirectPrefetch), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 3 * x.ldb + kDirectPrefetch), _MM_HINT_T0);
    __m512i r0 = _mm512_maskz_loadu_epi8(cols, b);
    __m512i r1 = _mm512_maskz_loadu_epi8(m1, b + x.ldb);
    __m512i r2 = _mm512_maskz_loadu_epi8(m2, b + 2 * x.ldb);
    __m512i r3 = _mm512_maskz_loadu_epi8(m3, b + 3 * x.ldb);
    if constexpr (FlipB) {  // columns past n and rows past k stay 0
      r0 = _mm512_maskz_mov_epi8(cols, _mm512_xor_si512(r0, flip));
      r1 = _mm512_maskz_mov_epi8(m1, _mm512_xor_si512(r1, flip));
      r2 = _mm512_maskz_mov_epi8(m2, _mm512_xor_si512(r2, flip));
      r3 = _mm512_maskz_mov_epi8(m3, _mm512_xor_si512(r3, flip));
    }
    const __m512i t0 = _mm512_unpacklo_epi8(r0, r1), t1 = _mm512_unpackhi_epi8(r0, r1);
    const __m512i t2 = _mm512_unpacklo_epi8(r2, r3), t3 = _mm512_unpackhi_epi8(r2, r3);
    const __m512i q0 = _mm512_unpacklo_epi16(t0, t2), q1 = _mm512_unpackhi_epi16(t0, t2);
    const __m512i q2 = _mm512_unpacklo_epi16(t1, t3), q3 = _mm512_unpackhi_epi16(t1, t3);
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      const __m512i av = _mm512_set1_epi32(static_cast<int>(a[i]));
      if constexpr (Swapped) {
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], q0, av);
        acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], q1, av);
        acc[i][2] = _mm512_dpbusd_epi32(acc[i][2], q2, av);
        acc[i][3] = _mm512_dpbusd_epi32(acc[i][3], q3, av);
      } else {
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], av, q0);
        acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], av, q1);
        acc[i][2] = _mm512_dpbusd_epi32(acc[i][2], av, q2);
        acc[i][3] = _mm512_dpbusd_epi32(acc[i][3], av, q3);
      }
    }
    if constexpr (Sums) {
      if constexpr (Swapped) {
        sums[0] = _mm512_dpbusd_epi32(sums[0], q0, ones);
        sums[1] = _mm512_dpbusd_epi32(sums[1], q1, ones);
        sums[2] = _mm512_dpbusd_epi32(sums[2], q2, ones);
        sums[3] = _mm512_dpbusd_epi32(sums[3], q3, ones);
      } else {
        sums[0] = _mm512_dpbusd_epi32(sums[0], ones, q0);
        sums[1] = _mm512_dpbusd_epi32(sums[1], ones, q1);
        sums[2] = _mm512_dpbusd_epi32(sums[2], ones, q2);
        sums[3] = _mm512_dpbusd_epi32(sums[3], ones, q3);
      }
    }
    a += PMR;
    b += 4 * x.ldb;
  }

  auto* c = static_cast<std::int32_t*>(x.c);
  const __m512i beta = _mm512_set1_epi32(x.ibeta);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    __m512i r[4];
    unscramble(acc[i][0], acc[i][1], acc[i][2], acc[i][3], r);
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      if (v * 16 >= x.n) continue;
      std::int32_t* cp = c + i * x.ldc + v * 16;
      const __mmask16 k = mask16(x.n - v * 16);
      if (x.ibeta == 1) {
        r[v] = _mm512_add_epi32(r[v], _mm512_maskz_loadu_epi32(k, cp));
      } else if (x.ibeta != 0) {
        r[v] = _mm512_add_epi32(r[v], _mm512_mullo_epi32(beta, _mm512_maskz_loadu_epi32(k, cp)));
      }
      _mm512_mask_storeu_epi32(cp, k, r[v]);
    }
  }
  if constexpr (Sums) {
    __m512i r[4];
    unscramble(sums[0], sums[1], sums[2], sums[3], r);
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      if (v * 16 >= x.n) continue;
      const __mmask16 k = mask16(x.n - v * 16);
      std::int32_t* sp = x.colsum + v * 16;
      _mm512_mask_storeu_epi32(sp, k, _mm512_add_epi32(r[v], _mm512_maskz_loadu_epi32(k, sp)));
    }
  }
}

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
// wants it, column sums by vpdpbusd against ones. The portable template gathers byte by byte
// (measured 2.7 GB/s per core from DRAM at 4 x 4096 x 4096, which made packing B most of a
// decode-like call). A transposed B (rs == 1) goes to pack_b_transposed_words, other layouts
// to the template.
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
  const int64_t groups = (k + 3) / 4;
  const int64_t n_pad = (n + nr - 1) / nr * nr;  // whole panels, zero-padded
  const bool flip = (flags & adaptcore::kernels::kFlip) != 0;
  const bool sgn = (flags & adaptcore::kernels::kSigned) != 0;
  const __m512i flip_bits = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i ones = _mm512_set1_epi8(1);
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t rows = std::min<int64_t>(4, k - 4 * g);
    const std::uint8_t* r = b + 4 * g * rs;
    for (int64_t j0 = 0; j0 < n_pad; j0 += 64) {
      const __mmask64 m = mask64(n - j0);
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
          const __mmask16 cm = mask16(static_cast<int>(std::min<int64_t>(16, n - j)));
          _mm512_mask_storeu_epi32(colsum + j, cm,
                                   _mm512_add_epi32(s, _mm512_maskz_loadu_epi32(cm, colsum + j)));
        }
      }
    }
  }
}

template <int PMR, int M, bool Swapped, bool FlipB>
void int8_direct_kernel(const adaptcore::kernels::LowpDirectArgs& x) {
  if (x.colsum != nullptr)
    int8_direct_body<PMR, M, Swapped, FlipB, true>(x);
  else
    int8_direct_body<PMR, M, Swapped, FlipB, false>(x);
}

template <bool Swapped, bool FlipB, int... Ms>
constexpr std::array<adaptcore::kernels::LowpDirectFn, adaptcore::kernels::kMaxMr> direct_rows(
    std::integer_sequence<int, Ms...>) {
  return {&int8_direct_kernel<4, Ms + 1, Swapped, FlipB>...};
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

// 4 rows x 64 columns in place: 16 accumulators, 4 column sums, 4 row loads and 8 unpacks per
// group (about 8 cycles, the model's shuffle figure); for decode-like M the product is bound by
// streaming B once anyway.
constexpr adaptcore::kernels::LowpDirectTile kDirect{
    4, 64, 8.0,
    direct_rows<false, false>(std::make_integer_sequence<int, 4>{}),
    direct_rows<true, false>(std::make_integer_sequence<int, 4>{}),
    direct_rows<true, true>(std::make_integer_sequence<int, 4>{})};

// Dot-product tile (LowpDotArgs): per 64 depth values M + N loads of 64 bytes and M x N
// vpdpbusd with the u8 side (A, or B when SwapB) as the unsigned operand, its bytes xored with
// 0x80 when Flip; with Sums also B's column sums by vpdpbusd against ones (N more per step).
template <int M, int N, bool SwapB, bool Flip, bool Sums>
void int8_dot_body(const adaptcore::kernels::LowpDotArgs& x) {
  const auto* a = static_cast<const std::uint8_t*>(x.a);
  const auto* b = static_cast<const std::uint8_t*>(x.b);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i acc[M][N], sums[N];
#pragma GCC unroll 4
  for (int j = 0; j < N; ++j) {
    sums[j] = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) acc[i][j] = _mm512_setzero_si512();
  }
  // The u8 side's bytes, flipped where real (a masked-off byte stays 0 and adds nothing).
  auto u8_side = [&](const std::uint8_t* p, __mmask64 m) {
    const __m512i v = _mm512_maskz_loadu_epi8(m, p);
    if constexpr (Flip) return _mm512_maskz_mov_epi8(m, _mm512_xor_si512(v, flip));
    return v;
  };
  if constexpr (M <= 2) {
    // Few rows: column by column, so that with B dense (ldb == k) the tile's columns are one
    // contiguous run read as a single stream; four interleaved 4 KiB columns (K = 4096) ramp
    // the hardware prefetchers up again every tile. One accumulator chain per row still moves
    // 64 bytes per dot latency, ~47 GB/s a core. Measured 2 threads, 1 x 16384 x 4096: 60-75
    // GOP/s against 44-51 interleaved; M = 2 about equal. (bf16, 8 KiB columns: no gain at
    // M = 1 and 30-41 against 49-54 GFLOP/s at M = 2, so its kernel keeps one order.)
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      for (int64_t p = 0; p < x.k; p += 64) {
        const int64_t left = x.k - p;
        const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1u;
        const std::uint8_t* bp = b + j * x.ldb + p;
        const __m512i bv = SwapB ? u8_side(bp, m) : _mm512_maskz_loadu_epi8(m, bp);
        if constexpr (Sums)
          sums[j] = SwapB ? _mm512_dpbusd_epi32(sums[j], bv, ones)
                          : _mm512_dpbusd_epi32(sums[j], ones, bv);
#pragma GCC unroll 2
        for (int i = 0; i < M; ++i) {
          const std::uint8_t* ap = a + i * x.lda + p;
          const __m512i av = SwapB ? _mm512_maskz_loadu_epi8(m, ap) : u8_side(ap, m);
          acc[i][j] = SwapB ? _mm512_dpbusd_epi32(acc[i][j], bv, av)
                            : _mm512_dpbusd_epi32(acc[i][j], av, bv);
        }
      }
    }
  } else {
  for (int64_t p = 0; p < x.k; p += 64) {
    const int64_t left = x.k - p;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1u;
    __m512i bv[N];
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      const std::uint8_t* bp = b + j * x.ldb + p;
      bv[j] = SwapB ? u8_side(bp, m) : _mm512_maskz_loadu_epi8(m, bp);
      if constexpr (Sums)
        sums[j] = SwapB ? _mm512_dpbusd_epi32(sums[j], bv[j], ones)
                        : _mm512_dpbusd_epi32(sums[j], ones, bv[j]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const std::uint8_t* ap = a + i * x.lda + p;
      const __m512i av = SwapB ? _mm512_maskz_loadu_epi8(m, ap) : u8_side(ap, m);
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j)
        acc[i][j] = SwapB ? _mm512_dpbusd_epi32(acc[i][j], bv[j], av)
                          : _mm512_dpbusd_epi32(acc[i][j], av, bv[j]);
    }
  }
  }
  auto* c = static_cast<std::uint32_t*>(x.c);
  const auto ibeta = static_cast<std::uint32_t>(x.ibeta);
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      std::uint32_t* cp = c + i * x.ldc + j;
      const auto v = static_cast<std::uint32_t>(_mm512_reduce_add_epi32(acc[i][j]));
      *cp = ibeta == 0 ? v : v + ibeta * *cp;  // modulo 2^32, as the packed kernels
    }
  }
  if constexpr (Sums) {
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j)
      x.colsum[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(x.colsum[j]) +
                                              static_cast<std::uint32_t>(_mm512_reduce_add_epi32(sums[j])));
  }
}

template <int M, int N, bool SwapB, bool Flip>
void int8_dot_kernel(const adaptcore::kernels::LowpDotArgs& x) {
  if (x.colsum != nullptr)
    int8_dot_body<M, N, SwapB, Flip, true>(x);
  else
    int8_dot_body<M, N, SwapB, Flip, false>(x);
}

template <bool SwapB, bool Flip, int M, int... Ns>
constexpr std::array<adaptcore::kernels::LowpDotFn, adaptcore::kernels::kLowpDotNr> dot_row(
    std::integer_sequence<int, Ns...>) {
  return {&int8_dot_kernel<M, Ns + 1, SwapB, Flip>...};
}

template <bool SwapB, bool Flip, int... Ms>
constexpr adaptcore::kernels::LowpDotKernels::Table dot_table(std::integer_sequence<int, Ms...>) {
  return {dot_row<SwapB, Flip, Ms + 1>(
      std::make_integer_sequence<int, adaptcore::kernels::kLowpDotNr>{})...};
}

using DotRows = std::make_integer_sequence<int, adaptcore::kernels::kLowpDotMr>;
constexpr adaptcore::kernels::LowpDotKernels kDot{
    dot_table<false, false>(DotRows{}), dot_table<false, true>(DotRows{}),
    dot_table<true, false>(DotRows{}), dot_table<true, true>(DotRows{})};

constexpr adaptcore::kernels::LowpKernels kVnni{
    adaptcore::DType::U8S8, adaptcore::Isa::Avx512, "avx512-vnni", 4, 16, 4.0, kTiles,
    &pack_a_groups<Int8Quads>, &pack_b_int8, nullptr, &kDirect, &kDot};
}  // namespace

namespace adaptcore::kernels {
const LowpKernels* int8_vnni_kernels() noexcept { return &kVnni; }
}  // namespace adaptcore::kernels
