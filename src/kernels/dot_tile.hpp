// The dot-product tiles (ukernel.hpp DotArgs, lowp.hpp LowpDotArgs), written once: an M x N
// tile of C whose A rows and B columns are both contiguous along k, one accumulator vector per
// output. Per step of a vector's worth of depth: N loads of B, M loads of A, M * N
// multiply-accumulates (Step::dot); a masked last step; then the epilogue's store_dots (one
// horizontal sum per output).
//
// LoadA and LoadB read an operand's values: elem, reg, kValues (per vector), load(p), a mask
// type with first(n) (the first n values) and load_m(p, mask) (those values, the rest zero),
// and kMaskedSteps (every step masked, see span); they may transform what they read (the int8
// flip). With Sums (Step::ones() and a colsum in Args) B's column sums are accumulated
// too.
// Included by the ISA units; the unnamed namespace gives each its own copy, built with its flags.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/tile_epilogue.hpp"
#include "kernels/tile_mainloop.hpp"

namespace adaptcore::kernels {
namespace {

// fp32 values through vector traits V.
template <class V>
struct VecValues {
  static constexpr bool kMaskedSteps = false;
  static constexpr int kValues = V::W;
  using mask = int;  // a count: the traits mask their own way
  using elem = float;
  using reg = typename V::reg;
  static mask first(int64_t n) { return static_cast<int>(n); }
  static reg load(const float* p) { return V::load(p); }
  static reg load_m(const float* p, mask n) { return V::load_n(p, n); }
};

template <class Args, class Step, class LoadA, class LoadB, class Output = TypedOutput>
struct DotTile {
  using V = typename Step::Acc;
  using reg = typename V::reg;
  using a_ptr = const typename LoadA::elem*;
  using b_ptr = const typename LoadB::elem*;
  static_assert(LoadA::kValues == LoadB::kValues);
  static_assert(std::is_same_v<typename LoadA::mask, typename LoadB::mask>);

  // One step over columns [J0, J1): the values of mask `m` from p on, all of them when Whole.
  template <int M, int N, int J0, int J1, bool Sums, bool Whole>
  [[gnu::always_inline]] static void step(reg (&acc)[M][N], reg (&sums)[N], a_ptr a, int64_t lda,
                                          b_ptr b, int64_t ldb, typename LoadA::mask m) {
    typename LoadB::reg bv[N];
#pragma GCC unroll 4
    for (int j = J0; j < J1; ++j) {
      bv[j] = Whole ? LoadB::load(b + j * ldb) : LoadB::load_m(b + j * ldb, m);
      if constexpr (Sums) sums[j] = Step::mac(sums[j], Step::ones(), bv[j]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const typename LoadA::reg av =
          Whole ? LoadA::load(a + i * lda) : LoadA::load_m(a + i * lda, m);
#pragma GCC unroll 4
      for (int j = J0; j < J1; ++j) acc[i][j] = Step::dot(acc[i][j], av, bv[j]);
    }
  }

  // The whole depth over columns [J0, J1). kMaskedSteps loaders: one loop of masked steps
  // (GCC 12 compiles whole vectors of bf16 / int8 loaded plainly into a memory operand per use,
  // reloading B for every row, and kept a copy of every vpdpbusd accumulator; objdump).
  // Otherwise whole steps, then a masked one.
  // Pf: columns of `next` read ahead, a line of each per step (0: none).
  template <int M, int N, int J0, int J1, bool Sums, int Pf>
  [[gnu::always_inline]] static void span(reg (&acc)[M][N], reg (&sums)[N], a_ptr a, int64_t lda,
                                          b_ptr b, int64_t ldb, int64_t k, b_ptr next) {
    constexpr int S = LoadA::kValues;
    int64_t p = 0;
    if constexpr (LoadA::kMaskedSteps) {
      for (; p < k; p += S) {
        if constexpr (Pf > 0) prefetch<Pf>(next + p, ldb);
        step<M, N, J0, J1, Sums, false>(acc, sums, a + p, lda, b + p, ldb, LoadA::first(k - p));
      }
    } else {
      for (; p + S <= k; p += S) {
        if constexpr (Pf > 0) prefetch<Pf>(next + p, ldb);
        step<M, N, J0, J1, Sums, true>(acc, sums, a + p, lda, b + p, ldb, LoadA::first(S));
      }
      if (p < k)
        step<M, N, J0, J1, Sums, false>(acc, sums, a + p, lda, b + p, ldb, LoadA::first(k - p));
    }
  }

  // One step's line of each of Pf columns read ahead (a step is one 64-byte vector).
  template <int Pf>
  [[gnu::always_inline]] static void prefetch(b_ptr next, int64_t ldb) {
#pragma GCC unroll 4
    for (int j = 0; j < Pf; ++j) __builtin_prefetch(next + j * ldb, 0, 3);
  }

  template <int M, int N, bool Sums, int Pf>
  [[gnu::always_inline]] static void mainloop(reg (&acc)[M][N], reg (&sums)[N], const Args& x) {
    const auto a = static_cast<a_ptr>(x.a);
    const auto b = static_cast<b_ptr>(x.b);
    const auto next = static_cast<b_ptr>(x.b_next);
    span<M, N, 0, N, Sums, Pf>(acc, sums, a, x.lda, b, x.ldb, x.k, next);
  }

  template <int M, int N, bool Sums>
  static void body(const Args& x) {
    static_assert(N <= 4, "the read-ahead counts below stop at 4 columns");
    reg acc[M][N], sums[N];
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      sums[j] = V::zero();
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i) acc[i][j] = V::zero();
    }
    // Columns read ahead: the counts DotPrefetchRule gives (1, 2, or a whole tile's 3 or 4).
    // Never by an fp32 single-row tile (exec/macro_kernel.hpp), whose kernel stays as lean as
    // it was: the decode calls of M = 1 (a switch here cost 1 x 1290 x 68 warm 7%).
    if constexpr (M == 1 && !LoadB::kMaskedSteps) {
      mainloop<M, N, Sums, 0>(acc, sums, x);
    } else {
      switch (x.b_next == nullptr ? 0 : x.b_next_cols) {
        case 0: mainloop<M, N, Sums, 0>(acc, sums, x); break;
        case 1: mainloop<M, N, Sums, 1>(acc, sums, x); break;
        case 2: mainloop<M, N, Sums, 2>(acc, sums, x); break;
        case 3: mainloop<M, N, Sums, 3>(acc, sums, x); break;
        default: mainloop<M, N, Sums, 4>(acc, sums, x); break;
      }
    }
    settle_tile<V, M, N>(acc);
    store_dots<V, M, N>(acc, static_cast<typename V::elem*>(x.c), x.ldc,
                        Output::template make<V>(x));
    if constexpr (Sums) {
      const WrapAccumulate<V> add(1);
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j) x.colsum[j] = add(V::hsum(sums[j]), x.colsum[j]);
    }
  }

  template <int M, int N>
  static void kernel(const Args& x) {
    if constexpr (requires {
                    Step::ones();
                    x.colsum;
                  }) {
      if (x.colsum != nullptr) return body<M, N, true>(x);
    }
    body<M, N, false>(x);
  }
};

}  // namespace
}  // namespace adaptcore::kernels
