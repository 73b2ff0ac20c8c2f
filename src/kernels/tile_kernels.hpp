// The register-tile kernels: a mainloop (tile_mainloop.hpp) and an epilogue (tile_epilogue.hpp)
// put together once per kind of operand, each a kernel family for kernel_tables.hpp:
//   Fp32Tile    UKernelArgs: fp32 A in either mode, B packed or read in place (column tails)
//   PackedTile  LowpArgs: packed group panels of A and B, any multiply-accumulate step
//   DirectTile  LowpDirectArgs: packed A, B rows read in place through a row source that
//               interleaves them in registers and restores the column order at the end
// Output is the epilogue's op factory (TypedOutput: the types' own linear combination).
// Included by the ISA units; the unnamed namespace gives each its own copy, built with its flags.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/kernel_tables.hpp"
#include "kernels/lowp.hpp"
#include "kernels/tile_epilogue.hpp"
#include "kernels/tile_mainloop.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore::kernels {
namespace {

// How a tile's accumulators reach C: RowStore, the tile's rows are C's rows (an ISA unit may
// add a store of its own, e.g. the transposed store of Plan::transpose_c).
struct RowStore {
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void store(const typename V::reg (&acc)[M][L], typename V::elem* c,
                                           int64_t ldc, int n, const Op& op) {
    store_tile<V, M, L>(acc, c, ldc, n, op);
  }
  template <class V, int M, int L, class Op>
  [[gnu::always_inline]] static void prefetch(const typename V::elem* c, int64_t ldc, int n,
                                              const Op& op, bool written) {
    prefetch_source<V, M, L>(c, ldc, n, op, written);
  }
};

// M rows x NV vectors of V::W columns: per depth step NV loads of B, M broadcasts of A and
// M * NV FMAs into register accumulators. A tile with a column tail (n < NV * W) runs the body
// of just its live vectors, L = ceil(n / W), the last one masked.
template <class V, int NV, AMode AM, class Output = TypedOutput, class Store = RowStore>
struct Fp32Tile {
  // Chained: the depth loop over depth_chains() accumulator chains (tile_mainloop.hpp), for a
  // tile of fewer than kChainVectors vectors and a depth of kChainedMinSteps or more.
  // AskC false: no prefetch of C's lines (a sweep's rows of C are one stream each, which the
  // hardware follows; asked for a tile at a time, they held up B's loads, docs/MODEL.md
  // "One-row sweeps").
  template <int M, int L, bool Chained = false, bool AskC = true, class Source>
  static void body(const UKernelArgs& args, Source b) {
    using Step = FmaStep<V>;
    if constexpr (!Chained && depth_chains<Step, M, L>() > 1) {
      if (args.k >= kChainedMinSteps) return chained_body<M, L, AskC>(args, b);
    }
    typename V::reg acc[M][L], unused[L];
    zero_tile<V, M, L>(acc);
    if constexpr (AskC)
      Store::template prefetch<V, M, L>(args.c, args.ldc, args.n, Output::template make<V>(args),
                                        args.k >= kWriteAheadMinSteps);
    // Distance between consecutive A elements of one row (k direction) and between rows.
    const int64_t a_step = AM == AMode::ColUnit ? args.a_stride : 1;
    const int64_t a_row = AM == AMode::ColUnit ? 1 : args.a_stride;
    if constexpr (Chained)
      chained_mainloop<Step, M, L>(acc, args.a, a_step, a_row, b, args.k);
    else
      mainloop<Step, M, L>(acc, unused, args.a, a_step, a_row, b, args.k);
    settle_tile<V, M, L>(acc);
    Store::template store<V, M, L>(acc, args.c, args.ldc, args.n, Output::template make<V>(args));
  }
  // A function of its own, so that the shallow calls' body keeps its registers.
  template <int M, int L, bool AskC, class Source>
  [[gnu::noinline]] static void chained_body(const UKernelArgs& args, Source b) {
    body<M, L, true, AskC>(args, b);
  }

  // Source, with the read-ahead of UKernelArgs::b_next where the call asks for it: a kernel
  // of its own (out of line), so that calls without it keep their loop as it was.
  template <int M, int L, class Source>
  static void run(const UKernelArgs& args, Source b) {
    if (args.b_next != nullptr) return read_ahead_body<M, L>(args, b);
    body<M, L>(args, b);
  }
  template <int M, int L, class Source>
  [[gnu::noinline]] static void read_ahead_body(const UKernelArgs& args, Source b) {
    body<M, L>(args, ReadAheadB<Source, L>{b, reinterpret_cast<const char*>(args.b_next),
                                           args.ldb * static_cast<int64_t>(sizeof(float)),
                                           args.b_next_rows});
  }

  template <int M, int L = 1>
  static void tail(const UKernelArgs& args) {
    if constexpr (L < NV) {
      if (args.n > L * V::W) return tail<M, L + 1>(args);
    }
    run<M, L>(args,
              LastMaskedB<FmaStep<V>, L>{args.b, args.ldb, V::first(args.n - (L - 1) * V::W)});
  }

  template <int M>
  static void kernel(const UKernelArgs& args) {
    if constexpr (M <= kSweepKernelRows) {
      if (args.tiles > 1) return sweep<M>(args);
    }
    if (args.n == NV * V::W) return run<M, NV>(args, PanelB<FmaStep<V>, NV>{args.b, args.ldb});
    tail<M>(args);
  }

  // UKernelArgs::tiles whole column tiles in one call: the arguments stay in registers and
  // each tile is the loop and the stores alone.
  template <int M>
  [[gnu::noinline]] static void sweep(const UKernelArgs& args) {
    UKernelArgs t = args;
    for (int64_t i = 0; i < args.tiles; ++i) {
      body<M, NV, false, false>(t, PanelB<FmaStep<V>, NV>{t.b, t.ldb});
      t.b += args.b_tile_step;
      t.c += args.c_tile_step;
    }
  }
};

// One TileKernels entry: kernels for both A modes and every row count 1..MR; with a
// TransposedStore (not void), the same kernels storing through it (TileKernels::fn_tc).
template <class V, int MR, int NV, class TransposedStore = void>
constexpr TileKernels make_tile() {
  TileKernels t{MR, NV * V::W, V::W, {}, {}};
  t.fn[0] = row_table<UKernelFn, Fp32Tile<V, NV, AMode::ColUnit>, MR>();
  t.fn[1] = row_table<UKernelFn, Fp32Tile<V, NV, AMode::RowUnit>, MR>();
  if constexpr (!std::is_void_v<TransposedStore>) {
    using Out = TypedOutput;
    t.fn_tc[0] = row_table<UKernelFn, Fp32Tile<V, NV, AMode::ColUnit, Out, TransposedStore>, MR>();
    t.fn_tc[1] = row_table<UKernelFn, Fp32Tile<V, NV, AMode::RowUnit, Out, TransposedStore>, MR>();
  }
  return t;
}

// Packed panels (lowp.hpp): A's panel has PMR rows (the tile's mr, M <= PMR of them used), B's
// NV * W columns, both a group per 32-bit word, padded so every load is whole.
template <class Step, int PMR, int NV, class Output = TypedOutput>
struct PackedTile {
  template <int M>
  static void kernel(const LowpArgs& x) {
    using V = typename Step::Acc;
    typename V::reg acc[M][NV], unused[NV];
    zero_tile<V, M, NV>(acc);
    auto* c = static_cast<typename V::elem*>(x.c);
    prefetch_source<V, M, NV>(c, x.ldc, x.n, Output::template make<V>(x));
    PanelB<Step, NV> b{x.b, NV * V::W};
    mainloop<Step, M, NV>(acc, unused, x.a, PMR, 1, b, x.groups);
    settle_tile<V, M, NV>(acc);
    store_tile<V, M, NV>(acc, c, x.ldc, x.n, Output::template make<V>(x));
  }
};

// One LowpTile of MR x NV vectors: Step for `fn`, Swapped (the operands' other signedness
// order; Step itself where there is none) for `fn_swapped`.
template <class Step, class Swapped, int MR, int NV>
constexpr LowpTile make_lowp_tile() {
  LowpTile t{};
  t.mr = MR;
  t.nr = NV * Step::Acc::W;
  t.fn = row_table<LowpFn, PackedTile<Step, MR, NV>, MR>();
  t.fn_swapped = row_table<LowpFn, PackedTile<Swapped, MR, NV>, MR>();
  return t;
}

// B read in place through Rows (see tile_mainloop.hpp for a source; besides, NV, steps(k), the
// number of whole steps, restore(row), which puts a row of accumulators back in column
// order, and kColumnSums, whether LowpDirectArgs::colsum is honoured). A is a packed panel of
// PMR rows.
template <class Step, class Rows, int PMR, class Output = TypedOutput>
struct DirectTile {
  static constexpr int NV = Rows::NV;

  // Sums is a template parameter: a run-time test inside the loop made GCC 12 keep the
  // accumulators in memory (objdump: spills and reloads around every vpdpbusd).
  template <int M, bool Sums>
  static void body(const LowpDirectArgs& x) {
    using V = typename Step::Acc;
    typename V::reg acc[M][NV], sums[1][NV];
    zero_tile<V, M, NV>(acc);
    zero_tile<V, 1, NV>(sums);
    Rows src(x);
    mainloop<Step, M, NV, Sums>(acc, sums[0], x.a, PMR, 1, src, Rows::steps(x.k));
    settle_tile<V, M, NV>(acc);
    if constexpr (Sums) settle_tile<V, 1, NV>(sums);
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) Rows::restore(acc[i]);
    store_tile<V, M, NV>(acc, static_cast<typename V::elem*>(x.c), x.ldc, x.n,
                         Output::template make<V>(x));
    if constexpr (Sums) {
      Rows::restore(sums[0]);
      store_tile<V, 1, NV>(sums, x.colsum, 0, x.n, WrapAccumulate<V>(1));
    }
  }

  template <int M>
  static void kernel(const LowpDirectArgs& x) {
    if constexpr (Rows::kColumnSums) {
      if (x.colsum != nullptr) return body<M, true>(x);
    }
    body<M, false>(x);
  }
};

}  // namespace
}  // namespace adaptcore::kernels
