// vpdpbusd as the multiply-accumulate of the shared kernels (tile_mainloop.hpp, dot_tile.hpp):
// 16 int32 lanes, each adding the four products of a u8 and an s8 quad (a 32-bit group).
// Needs -mavx512vnni (and BW for the byte masks); included only by int8_vnni.cpp.
//
// Exactness: each u8 x s8 product is exact in 16 bits (|255 * 128| <= 32640), the four are
// sign-extended and added to the accumulator with a plain, wrapping 32-bit add (vpdpbusds is
// the saturating form): every step is exact modulo 2^32.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/lowp.hpp"
#include "kernels/tile_mainloop.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"

namespace adaptcore::kernels {
namespace {

// The instruction's first multiplicand must be the unsigned one. Normally A (broadcast) is u8
// and B s8; Swapped reads A as s8 and B as u8 and passes the registers in the other order.
template <bool Swapped>
struct DpbusdStep {
  using Acc = VecAvx512I32;
  using a_elem = std::uint32_t;
  using b_elem = std::uint32_t;
  using b_reg = __m512i;
  static __m512i bcast(const std::uint32_t* p) { return _mm512_set1_epi32(static_cast<int>(*p)); }
  static __m512i load_b(const std::uint32_t* p) { return _mm512_loadu_si512(p); }
  static __m512i mac(__m512i acc, __m512i a, __m512i b) {
    return Swapped ? _mm512_dpbusd_epi32(acc, b, a) : _mm512_dpbusd_epi32(acc, a, b);
  }
  static __m512i dot(__m512i acc, __m512i a, __m512i b) { return mac(acc, a, b); }
  // A quad of ones on A's side: mac with it adds the column sums of B, read with B's sign.
  static __m512i ones() { return _mm512_set1_epi8(1); }
};

inline __mmask64 first_bytes(int64_t n) {
  return n >= 64 ? ~__mmask64{0}
                 : (__mmask64{1} << static_cast<unsigned>(std::max<int64_t>(n, 0))) - 1u;
}

// int8 values along k, 64 a vector (dot_tile.hpp): the signed side as it is, the unsigned side
// xored with 0x80 where Flip (an s8 read as u8); a masked-off byte stays 0 and adds nothing.
struct S8Values : MaskedValues<std::uint8_t, __mmask64, 64> {
  using reg = __m512i;
  static reg load(const elem* p) { return _mm512_loadu_si512(p); }
  static reg load_m(const elem* p, mask m) { return _mm512_maskz_loadu_epi8(m, p); }
};
template <bool Flip>
struct U8Values : S8Values {
  static reg load(const elem* p) {
    const __m512i v = _mm512_loadu_si512(p);
    return Flip ? _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80))) : v;
  }
  static reg load_m(const elem* p, mask m) {
    const __m512i v = _mm512_maskz_loadu_epi8(m, p);
    return Flip ? _mm512_maskz_mov_epi8(
                      m, _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80))))
                : v;
  }
};

// Four rows of 64 bytes -> the quads of 64 columns, in the lane-interleaved order the unpacks
// give: inside each 128-bit lane L, q[0] holds columns 16L+0..3, q[1] +4..7, q[2] +8..11,
// q[3] +12..15 (vpunpck{l,h}bw, then vpunpck{l,h}wd).
[[gnu::always_inline]] inline void interleave_quads(__m512i r0, __m512i r1, __m512i r2, __m512i r3,
                                                    __m512i (&q)[4]) {
  const __m512i t0 = _mm512_unpacklo_epi8(r0, r1), t1 = _mm512_unpackhi_epi8(r0, r1);
  const __m512i t2 = _mm512_unpacklo_epi8(r2, r3), t3 = _mm512_unpackhi_epi8(r2, r3);
  q[0] = _mm512_unpacklo_epi16(t0, t2);
  q[1] = _mm512_unpackhi_epi16(t0, t2);
  q[2] = _mm512_unpacklo_epi16(t1, t3);
  q[3] = _mm512_unpackhi_epi16(t1, t3);
}

// Back to column order, a transpose of 128-bit lanes: out[L] = [q0.L, q1.L, q2.L, q3.L] holds
// columns 16L..16L+15. The quads are taken by value: passing the kernel's accumulator array by
// address made GCC keep a second copy of every accumulator through the depth loop (objdump).
[[gnu::always_inline]] inline void unscramble(__m512i q0, __m512i q1, __m512i q2, __m512i q3,
                                              __m512i (&out)[4]) {
  const __m512i u0 = _mm512_shuffle_i32x4(q0, q1, 0x44);
  const __m512i u1 = _mm512_shuffle_i32x4(q2, q3, 0x44);
  const __m512i u2 = _mm512_shuffle_i32x4(q0, q1, 0xEE);
  const __m512i u3 = _mm512_shuffle_i32x4(q2, q3, 0xEE);
  out[0] = _mm512_shuffle_i32x4(u0, u1, 0x88);
  out[1] = _mm512_shuffle_i32x4(u0, u1, 0xDD);
  out[2] = _mm512_shuffle_i32x4(u2, u3, 0x88);
  out[3] = _mm512_shuffle_i32x4(u2, u3, 0xDD);
}

// Bytes ahead along B's rows that the in-place kernel prefetches (4 column tiles).
constexpr int64_t kDirectPrefetch = 256;

// B read in place (row-major, ldb bytes between rows), 64 columns: per group of 4 depth steps
// four masked 64-byte row loads (xored with 0x80 where Flip: an s8 B read as u8; columns past
// n and rows past k stay 0), interleaved into quads (interleave_quads); restore() transposes
// the 128-bit lanes back. One loop for whole and partial groups: rows past k load nothing (a
// zero mask never faults). (Whole groups and a separate tail step measured no faster.)
template <bool Flip>
struct Int8RowQuads : InPlaceRows<std::uint8_t, __mmask64> {
  static constexpr int NV = 4;
  // One group per iteration: with the accumulators, the 4 rows and their unpacks in flight,
  // unrolling only adds register pressure.
  static constexpr int kUnroll = 1;
  static constexpr bool kHasTail = false;
  static constexpr bool kColumnSums = true;
  int64_t left;  // depth values from the next group on

  explicit Int8RowQuads(const LowpDirectArgs& x)
      : InPlaceRows{static_cast<const std::uint8_t*>(x.b), x.ldb, first_bytes(x.n)}, left(x.k) {}
  static int64_t steps(int64_t k) { return (k + 3) / 4; }

  [[gnu::always_inline]] void load(__m512i (&q)[NV]) {
    const __mmask64 m1 = left > 1 ? cols : 0, m2 = left > 2 ? cols : 0, m3 = left > 3 ? cols : 0;
    // The next column tiles of these rows, a few calls ahead: a depth block is kc rows a page
    // or more apart, too many streams for the hardware prefetchers (docs/LOWP.md, "Kernel
    // measurements").
    _mm_prefetch(reinterpret_cast<const char*>(b + kDirectPrefetch), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + ldb + kDirectPrefetch), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 2 * ldb + kDirectPrefetch), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 3 * ldb + kDirectPrefetch), _MM_HINT_T0);
    __m512i r0 = _mm512_maskz_loadu_epi8(cols, b);
    __m512i r1 = _mm512_maskz_loadu_epi8(m1, b + ldb);
    __m512i r2 = _mm512_maskz_loadu_epi8(m2, b + 2 * ldb);
    __m512i r3 = _mm512_maskz_loadu_epi8(m3, b + 3 * ldb);
    if constexpr (Flip) {
      const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
      r0 = _mm512_maskz_mov_epi8(cols, _mm512_xor_si512(r0, flip));
      r1 = _mm512_maskz_mov_epi8(m1, _mm512_xor_si512(r1, flip));
      r2 = _mm512_maskz_mov_epi8(m2, _mm512_xor_si512(r2, flip));
      r3 = _mm512_maskz_mov_epi8(m3, _mm512_xor_si512(r3, flip));
    }
    interleave_quads(r0, r1, r2, r3, q);
    b += 4 * ldb;
    left -= 4;
  }
  [[gnu::always_inline]] static void restore(__m512i (&r)[NV]) {
    unscramble(r[0], r[1], r[2], r[3], r);
  }
};

}  // namespace
}  // namespace adaptcore::kernels
