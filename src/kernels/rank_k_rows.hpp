// The rank-k row kernel (ukernel.hpp RowsArgs): C = alpha * A B (+ beta C) for a shallow depth,
// one row of C at a time, in the row's own cache lines. A register tile's vectors start where
// the tile does, so a row of C whose address is not a multiple of 64 has every vector store
// straddle two lines; here the vectors follow the lines of C (B is loaded unaligned at the same
// columns, cheap for a few rows of B in L1), and with beta = 0 whole lines leave through
// non-temporal stores: no read for ownership, half the memory traffic of a C larger than the
// caches (5025 x 829 x 1: C is 16 MiB, written once, never read).
//
// Each element is the same chain of fused multiply-adds in k order as a register tile's, then
// the same output op, so the result matches the blocked plans bit for bit.
// Included by the fp32 ISA units; the unnamed namespace gives each its own copy, built with its
// flags.
#pragma once

#include <cstdint>

#include "kernels/tile_epilogue.hpp"
#include "kernels/ukernel.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace adaptcore::kernels {
namespace {

template <class V>
struct RowsKernel {
  using reg = typename V::reg;
  static constexpr int W = V::W;

  // Columns [j, j + w) of row i: the k-step chain, then the output op; w < W masked.
  [[gnu::always_inline]] static reg chain(const RowsArgs& x, const float* a, int64_t j, int w) {
    reg acc = V::zero();
    for (int64_t p = 0; p < x.k; ++p) {
      const reg b = w == W ? V::load(x.b + p * x.ldb + j) : V::load_n(x.b + p * x.ldb + j, w);
      acc = V::fma(V::set1(a[p * x.a_cs]), b, acc);
    }
    return acc;
  }

  static void run(const RowsArgs& x) {
    const LinearCombination<V> op(x.alpha, x.beta);
    const bool source = op.needs_source();
    constexpr bool kStream = requires(float* p, reg r) { V::stream(p, r); };
    for (int64_t i = 0; i < x.m; ++i) {
      const float* a = x.a + i * x.a_rs;
      float* c = x.c + i * x.ldc;
      // Columns before the first line boundary (floats are 4-byte aligned: a whole count).
      const auto addr = reinterpret_cast<std::uintptr_t>(c);
      int64_t head = static_cast<int64_t>((W * 4 - addr % (W * 4)) % (W * 4)) / 4;
      if (head > x.n) head = x.n;
      auto partial = [&](int64_t j, int w) {
        const TileSlot slot{0, static_cast<int>(j), w};
        const reg acc = chain(x, a, j, w);
        V::store_n(c + j, source ? op(acc, V::load_n(c + j, w), slot) : op(acc, slot), w);
      };
      if (head > 0) partial(0, static_cast<int>(head));
      int64_t j = head;
      for (; j + W <= x.n; j += W) {
        const TileSlot slot{0, static_cast<int>(j), W};
        const reg acc = chain(x, a, j, W);
        if (source) {
          V::store(c + j, op(acc, V::load(c + j), slot));
        } else if constexpr (kStream) {
          V::stream(c + j, op(acc, slot));
        } else {
          V::store(c + j, op(acc, slot));
        }
      }
      if (j < x.n) partial(j, static_cast<int>(x.n - j));
    }
    // Non-temporal stores are weakly ordered: fence them before the caller's join publishes C.
#if defined(__SSE2__)
    if constexpr (kStream) _mm_sfence();
#endif
  }
};

}  // namespace
}  // namespace adaptcore::kernels
