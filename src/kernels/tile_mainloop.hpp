// The mainloop of every register-tile kernel, written once: the depth loop that accumulates an
// M x NV tile of vectors in registers, over two traits types.
//
// Step, the multiply-accumulate (FmaStep below; Dpbf16Step, DpbusdStep in x86_avx512/, the
// portable DotBytesStep in generic/):
//   Acc            vector traits of the accumulators (and of C): reg, elem, W, zero(), ...
//   a_elem         what one broadcast reads from A: a float, or a 32-bit group of bf16 / int8
//   b_elem, b_reg  B as it lies in a packed panel, and one vector of it in a register
//   bcast(p)       the broadcast of A's value (group) at p
//   load_b(p), load_b_n(p, n)   a vector of B, whole or its first n lanes (the rest zero)
//   mac(acc, a, b) acc + a * b per lane (for a group: the sum of its products)
//   dot(acc, a, b) the same with both operands streamed (dot_tile.hpp); the instruction's
//                  operand order may differ from mac's (it decides which NaN comes out)
//   ones()         (optional) the broadcast of a group of ones: mac with it sums B's columns
//
// Source, where each depth step's NV vectors of B come from (PanelB, ColumnTailB below;
// in-place rows interleaved in registers in x86_avx512/):
//   load(bv)             the next step's vectors; advances
//   kUnroll              the depth loop's unroll factor (0: the compiler's choice)
//   kHasTail             whether a last, partial step follows the whole ones: then tail(),
//                        whether there is one, and load_tail(bv) its vectors
//
// A is a panel of broadcast values: row i of step s at a + s * a_step + i * a_row.
//
// The loop issues M * NV independent multiply-accumulates per step from NV vector loads and M
// broadcasts; everything is inlined into the kernel so the accumulators stay in registers, and
// they leave the loop through settle_tile (below) before the epilogue takes them.
// Included by the ISA units; the unnamed namespace gives each its own copy, built with its flags.
#pragma once

#include <cstdint>

#include "kernels/ukernel.hpp"

namespace adaptcore::kernels {
namespace {

// fp32 FMA over vector traits V: broadcast an A value, multiply-add a vector of B.
template <class V>
struct FmaStep {
  using Acc = V;
  using reg = typename V::reg;
  using a_elem = float;
  using b_elem = float;
  using b_reg = reg;
  static reg bcast(const float* p) { return V::bcast(p); }
  static reg load_b(const float* p) { return V::load(p); }
  static reg load_b_n(const float* p, int n) { return V::load_n(p, n); }
  static reg mac(reg acc, reg a, reg b) { return V::fma(a, b, acc); }
  // Both operands streamed (the dot-product tiles): the same instruction.
  static reg dot(reg acc, reg a, reg b) { return V::fma(a, b, acc); }
};

// B from a panel (or rows read in place) whose every step holds NV whole vectors: packed
// panels are padded to the tile's width, so all of them are loaded and used.
template <class Step, int NV>
struct PanelB {
  static constexpr int kUnroll = 2;
  static constexpr bool kHasTail = false;
  const typename Step::b_elem* b;
  int64_t ldb;  // elements between steps

  [[gnu::always_inline]] void load(typename Step::b_reg (&bv)[NV]) {
    constexpr int W = Step::Acc::W;
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = Step::load_b(b + v * W);
    b += ldb;
  }
};

// B read in place with n valid columns, (NV - 1) * W < n <= NV * W: the last vector is loaded
// under a mask (lanes past n read as zeros). The kernel picks NV from n once per call
// (Fp32Tile), so a tile's vectors past n are not even in the code: a run-time test per vector
// and step cost the 6x64 tile 2.5x in its one-vector tail (8 columns, 64 steps: 255 ns
// against 104 expected), and a masked load whose lanes are all off still costs a microcode
// assist on some cores when it crosses into an unmapped page.
template <class Step, int NV>
struct LastMaskedB {
  static constexpr int kUnroll = 2;
  static constexpr bool kHasTail = false;
  using V = typename Step::Acc;
  const typename Step::b_elem* b;
  int64_t ldb;
  typename V::lanes last;  // the valid columns of the last vector (first(1..W))

  [[gnu::always_inline]] void load(typename Step::b_reg (&bv)[NV]) {
#pragma GCC unroll 8
    for (int v = 0; v + 1 < NV; ++v) bv[v] = Step::load_b(b + v * V::W);
    bv[NV - 1] = V::load_lanes(b + (NV - 1) * V::W, last);
    b += ldb;
  }
};

// A source of B that also asks for the rows of a later depth block (UKernelArgs::b_next): one
// row per step, a prefetch into L2 for each of the row's L vectors, over the first `left` steps.
// Spread over the steps, the requests leave the core a few at a time while the FMAs run; all of
// them issued before the tile (one burst per column tile) filled the miss buffers and held up the
// tile's own loads (docs/MODEL.md, *In-place read-ahead*).
template <class Inner, int L>
struct ReadAheadB {
  static constexpr int kUnroll = Inner::kUnroll;
  static constexpr bool kHasTail = false;
  Inner inner;
  const char* next;
  int64_t row_bytes;
  int64_t left;

  template <class R>
  [[gnu::always_inline]] void load(R (&bv)[L]) {
    if (left > 0) {
#pragma GCC unroll 8
      for (int v = 0; v < L; ++v) __builtin_prefetch(next + v * 64, 0, 2);
      // The row's last byte: a row that does not start on a line spans L + 1 lines.
      __builtin_prefetch(next + L * 64 - 1, 0, 2);
      next += row_bytes;
      --left;
    }
    inner.load(bv);
  }
};

// Hands the accumulators over from the mainloop to the epilogue through an empty asm (no
// instruction): the values leave their registers as they are, and the epilogue's control flow
// no longer reaches into the loop's register allocation. Without it GCC 12 kept a copy of
// every vpdpbusd accumulator through the depth loop (a vmovdqa32 / vmovdqa64 pair per
// accumulator and step) depending on how the stores after the loop were written.
template <class R>
[[gnu::always_inline]] inline void settle(R& r) {
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (sizeof(R) >= 16) __asm__("" : "+v"(r));
#endif
}

template <int M, int NV, class R>
[[gnu::always_inline]] inline void settle_rows(R (&acc)[M][NV]) {
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) settle(acc[i][v]);
  }
}
template <class V, int M, int NV>
[[gnu::always_inline]] inline void settle_tile(typename V::reg (&acc)[M][NV]) {
  settle_rows<M, NV>(acc);
}

// What every source of B read in place (row-major, ldb elements between rows) holds: the next
// row, the stride, the mask of the valid columns (columns past n load as zeros).
template <class Elem, class Mask>
struct InPlaceRows {
  const Elem* b;
  int64_t ldb;
  Mask cols;
};

// One depth step: each row's broadcast meets the NV vectors of B; with Sums, a row of ones
// meets them too, accumulating B's column sums in `sums`.
template <class Step, int M, int NV, bool Sums>
[[gnu::always_inline]] inline void rank1_update(typename Step::Acc::reg (&acc)[M][NV],
                                                typename Step::Acc::reg (&sums)[NV],
                                                const typename Step::a_elem* a, int64_t a_row,
                                                const typename Step::b_reg (&bv)[NV]) {
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    const auto av = Step::bcast(a + i * a_row);
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[i][v] = Step::mac(acc[i][v], av, bv[v]);
  }
  if constexpr (Sums) {
    const auto ones = Step::ones();
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) sums[v] = Step::mac(sums[v], ones, bv[v]);
  }
}

template <class Step, int M, int NV, bool Sums, class Source>
[[gnu::always_inline]] inline void depth_step(typename Step::Acc::reg (&acc)[M][NV],
                                              typename Step::Acc::reg (&sums)[NV],
                                              const typename Step::a_elem* a, int64_t a_row,
                                              Source& src) {
  typename Step::b_reg bv[NV];
  src.load(bv);
  rank1_update<Step, M, NV, Sums>(acc, sums, a, a_row, bv);
}

template <class V, int M, int NV>
[[gnu::always_inline]] inline void zero_tile(typename V::reg (&acc)[M][NV]) {
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();
  }
}

// Independent accumulator sets an fp32 tile of M x NV vectors keeps over the depth
// (kChainVectors, ukernel.hpp): a multiply-add waits for the previous one into its accumulator
// (4 cycles), so a tile of fewer than four vectors is bound by that chain, not by its loads
// (1 x 4 x 488 in place: one chain of 488 steps). Fp32 only (its vector traits have add).
template <class Step, int M, int NV>
constexpr int depth_chains() {
  if constexpr (!requires(typename Step::Acc::reg r) { Step::Acc::add(r, r); })
    return 1;
  else
    return (kChainVectors + M * NV - 1) / (M * NV);
}

// `steps` whole steps from the source, then its tail step if it has one. The unroll pragma
// takes no template argument, hence one loop per factor.
template <class Step, int M, int NV, bool Sums = false, class Source>
[[gnu::always_inline]] inline void mainloop(typename Step::Acc::reg (&acc)[M][NV],
                                            typename Step::Acc::reg (&sums)[NV],
                                            const typename Step::a_elem* a, int64_t a_step,
                                            int64_t a_row, Source& src, int64_t steps) {
  if constexpr (Source::kUnroll == 2) {
#pragma GCC unroll 2
    for (int64_t s = 0; s < steps; ++s) {
      depth_step<Step, M, NV, Sums>(acc, sums, a, a_row, src);
      a += a_step;
    }
  } else if constexpr (Source::kUnroll == 1) {
#pragma GCC unroll 1
    for (int64_t s = 0; s < steps; ++s) {
      depth_step<Step, M, NV, Sums>(acc, sums, a, a_row, src);
      a += a_step;
    }
  } else {
    for (int64_t s = 0; s < steps; ++s) {
      depth_step<Step, M, NV, Sums>(acc, sums, a, a_row, src);
      a += a_step;
    }
  }
  if constexpr (Source::kHasTail) {
    if (src.tail()) {
      settle_rows<M, NV>(acc);
      if constexpr (Sums) {
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) settle(sums[v]);
      }
      typename Step::b_reg bv[NV];
      src.load_tail(bv);
      rank1_update<Step, M, NV, Sums>(acc, sums, a, a_row, bv);
    }
  }
}

// The depth loop of a tile with depth_chains() > 1, for depths of kChainedMinSteps and more:
// step s into chain s mod chains, the chains added after the loop (a source of whole steps, no
// column sums). The kernel runs it from a body of its own (tile_kernels.hpp), so that the extra
// accumulators do not weigh on the register allocation of the shallow calls (a 1x1x1 kernel
// call gained 19 instructions when both shared one body).
template <class Step, int M, int NV, class Source>
[[gnu::always_inline]] inline void chained_mainloop(typename Step::Acc::reg (&acc)[M][NV],
                                                    const typename Step::a_elem* a, int64_t a_step,
                                                    int64_t a_row, Source& src, int64_t steps) {
  static_assert(!Source::kHasTail, "chained depth loops take whole steps only");
  using Acc = typename Step::Acc;
  constexpr int kChains = depth_chains<Step, M, NV>();
  typename Acc::reg more[kChains - 1][M][NV], unused[NV];
#pragma GCC unroll 4
  for (int c = 0; c < kChains - 1; ++c) zero_tile<Acc, M, NV>(more[c]);
  int64_t s = 0;
  for (; s + kChains <= steps; s += kChains) {
    depth_step<Step, M, NV, false>(acc, unused, a, a_row, src);
    a += a_step;
#pragma GCC unroll 4
    for (int c = 0; c < kChains - 1; ++c) {
      depth_step<Step, M, NV, false>(more[c], unused, a, a_row, src);
      a += a_step;
    }
  }
  for (; s < steps; ++s) {
    depth_step<Step, M, NV, false>(acc, unused, a, a_row, src);
    a += a_step;
  }
#pragma GCC unroll 4
  for (int c = 0; c < kChains - 1; ++c) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[i][v] = Acc::add(acc[i][v], more[c][i][v]);
    }
  }
}

}  // namespace
}  // namespace adaptcore::kernels
