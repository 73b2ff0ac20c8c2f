// vdpbf16ps as the multiply-accumulate of the shared kernels (tile_mainloop.hpp, dot_tile.hpp):
// 16 fp32 lanes, each adding the two products of a pair of bf16 (a 32-bit group). Needs
// -mavx512bf16; included only by bf16_avx512.cpp.
#pragma once

#include <immintrin.h>

#include <bit>
#include <cstdint>

#include "kernels/lowp.hpp"
#include "kernels/tile_mainloop.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"

namespace adaptcore::kernels {
namespace {

struct Dpbf16Step {
  using Acc = VecAvx512;
  using a_elem = std::uint32_t;
  using b_elem = std::uint32_t;
  using b_reg = __m512bh;
  static __m512bh bcast(const std::uint32_t* p) {
    return std::bit_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(*p)));
  }
  static __m512bh load_b(const std::uint32_t* p) {
    return std::bit_cast<__m512bh>(_mm512_loadu_si512(p));
  }
  // The broadcast goes second: only the second source may be a memory operand, so the compiler
  // can fold the load into the instruction as {1to16} (products commute).
  static __m512 mac(__m512 acc, __m512bh a, __m512bh b) { return _mm512_dpbf16_ps(acc, b, a); }
  // Both operands streamed: A's first. Which operand comes first decides which NaN an
  // instruction returns when both are NaN, so each kernel keeps its order.
  static __m512 dot(__m512 acc, __m512bh a, __m512bh b) { return _mm512_dpbf16_ps(acc, a, b); }
};

inline __mmask32 first_words(int64_t n) {
  return n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1u;
}

// bf16 values of a row or column along k, 32 a vector (dot_tile.hpp).
struct Bf16Values : MaskedValues<std::uint16_t, __mmask32, 32> {
  using reg = __m512bh;
  static reg load(const elem* p) { return std::bit_cast<__m512bh>(_mm512_loadu_si512(p)); }
  static reg load_m(const elem* p, mask m) {
    return std::bit_cast<__m512bh>(_mm512_maskz_loadu_epi16(m, p));
  }
};

// B read in place (row-major, ldb elements between rows), 32 columns: per step rows k and k+1,
// two masked 64-byte loads paired with vpunpcklwd / vpunpckhwd. The unpacks work within
// 128-bit lanes, so vector 0 holds columns 8L..8L+3 of each lane L and vector 1 8L+4..8L+7;
// restore() puts them back in order with two vpermt2ps. An odd k pairs the last row with zeros
// (the packed A pads its last group with a zero too).
struct Bf16RowPairs : InPlaceRows<std::uint16_t, __mmask32> {
  static constexpr int NV = 2;
  static constexpr int kUnroll = 2;
  static constexpr bool kHasTail = true;
  static constexpr bool kColumnSums = false;
  bool odd;

  explicit Bf16RowPairs(const LowpDirectArgs& x)
      : InPlaceRows{static_cast<const std::uint16_t*>(x.b), x.ldb, first_words(x.n)},
        odd((x.k & 1) != 0) {}
  static int64_t steps(int64_t k) { return k / 2; }
  [[gnu::always_inline]] static void pair(__m512i r0, __m512i r1, __m512bh (&bv)[NV]) {
    bv[0] = std::bit_cast<__m512bh>(_mm512_unpacklo_epi16(r0, r1));
    bv[1] = std::bit_cast<__m512bh>(_mm512_unpackhi_epi16(r0, r1));
  }
  [[gnu::always_inline]] void load(__m512bh (&bv)[NV]) {
    pair(_mm512_maskz_loadu_epi16(cols, b), _mm512_maskz_loadu_epi16(cols, b + ldb), bv);
    b += 2 * ldb;
  }
  bool tail() const { return odd; }
  [[gnu::always_inline]] void load_tail(__m512bh (&bv)[NV]) {
    pair(_mm512_maskz_loadu_epi16(cols, b), _mm512_setzero_si512(), bv);
  }
  [[gnu::always_inline]] static void restore(__m512 (&r)[NV]) {
    const __m512i first = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
    const __m512i second =
        _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
    const __m512 lo = r[0], hi = r[1];
    r[0] = _mm512_permutex2var_ps(lo, first, hi);
    r[1] = _mm512_permutex2var_ps(lo, second, hi);
  }
};

}  // namespace
}  // namespace adaptcore::kernels
