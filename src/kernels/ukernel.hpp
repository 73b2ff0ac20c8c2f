// Micro-kernel and packing interfaces shared by every ISA. Kernels know nothing of plans: they
// compute one register tile C[m x n] (+)= alpha * A[m x k] * B[k x n] from the strides given.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "adaptcore/types.hpp"

namespace adaptcore {
struct PostOpChain;  // core/post_ops.hpp
}

namespace adaptcore::kernels {

// How the kernel reads A. Element (i, p) of the tile's A lives at
//   ColUnit: a[i + p * a_stride]   (packed A panels, or A stored transposed)
//   RowUnit: a[i * a_stride + p]   (A stored row-major, read in place)
enum class AMode : std::uint8_t { ColUnit = 0, RowUnit = 1 };
inline constexpr int kAModes = 2;

// B is always read as b[p * ldb + j] with j contiguous (a packed panel has ldb == nr).
struct UKernelArgs {
  int64_t k;
  const float* a;
  int64_t a_stride;
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
  float alpha;
  float beta;  // 0: C is written without being read
  int n;       // valid columns, 1..nr; n < nr uses masked loads and stores
  // B read in place from DRAM (Plan::prefetch_b): rows of a later depth block to ask for while
  // this tile computes, ldb apart, one row per depth step over its first b_next_rows steps (a
  // prefetch into L2 per vector of the row). Null: none.
  const float* b_next = nullptr;
  int64_t b_next_rows = 0;
  // A sweep (a tile of at most kSweepKernelRows rows, n the whole tile, no b_next): `tiles`
  // column tiles, B and C each b_tile_step and c_tile_step floats further than the one before,
  // in one call. One call per column tile costs a row of C streaming B from memory a hundred
  // instructions a tile beside its few dozen loads, which fill the core's window and leave
  // fewer of B's lines in flight (docs/MODEL.md, "One-row sweeps").
  int64_t tiles = 1;
  int64_t b_tile_step = 0;
  int64_t c_tile_step = 0;
};
using UKernelFn = void (*)(const UKernelArgs&);

inline constexpr int kMaxMr = 16;

// The tallest tile that sweeps its column tiles in one kernel call (UKernelArgs::tiles): taller
// tiles have enough FMAs a tile to cover a call's bookkeeping.
inline constexpr int kSweepKernelRows = 2;

// An fp32 register tile of fewer than kChainVectors vectors spreads a depth of kChainedMinSteps
// steps or more over ceil(kChainVectors / vectors) chains of accumulators, so that its FMAs do
// not wait for each other (tile_mainloop.hpp, depth_chains). Shallower depths keep one chain:
// the rank-k row plans (K <= 8) sum the depth in order and must give the register tiles' bits.
// The model prices the same rule (TypeConfig::chained_vectors, CpuModel::cycles_per_step).
inline constexpr int kChainVectors = 4;
inline constexpr int64_t kChainedMinSteps = 16;

// An fp32 register tile of at least this many depth steps asks for its C lines before the
// depth loop also where it only writes them (beta 0, the first depth block): a store that
// misses waits for its line's read for ownership, which the loop's FMAs cover from this depth
// on (docs/MODEL.md M20). A shallower block is over before the lines arrive; the executor's
// Plan::prefetch_c asks for the next tile's instead. The model's first pass of C counts as
// hidden from the same depth (plan.hpp, kPrefetchCSteps).
inline constexpr int64_t kWriteAheadMinSteps = 48;

// One register tile (mr x nr) on one ISA: a kernel per A mode and per row count 1..mr, so
// M tails run a smaller instantiation instead of computing padding.
struct TileKernels {
  int mr;
  int nr;
  int lanes;  // fp32 lanes of its vectors: the path's own, or fewer for a narrow tile
  std::array<std::array<UKernelFn, kMaxMr>, kAModes> fn{};
  // The same kernels storing the tile transposed (Plan::transpose_c): tile element (i, j) at
  // c[j * ldc + i]. Null where the tile has none.
  std::array<std::array<UKernelFn, kMaxMr>, kAModes> fn_tc{};

  UKernelFn get(AMode mode, int m) const noexcept {
    return fn[static_cast<int>(mode)][static_cast<std::size_t>(m - 1)];
  }
  UKernelFn get_tc(AMode mode, int m) const noexcept {
    return fn_tc[static_cast<int>(mode)][static_cast<std::size_t>(m - 1)];
  }
  bool has_transposed_store() const noexcept { return fn_tc[0][0] != nullptr; }
};

// Dot-product kernels for an m x n tile (m <= kDotMr, n <= kDotNr) whose A rows and B columns
// are both contiguous along k: C[i][j] = alpha * <a_i, b_j> + beta * C[i][j]. This is the shape
// of a decode step against weights stored [N, K] (B transposed): no packing, B read once, in
// order, as n parallel streams.
struct DotArgs {
  int64_t k;
  const float* a;  // row i at a + i * lda
  int64_t lda;
  const float* b;  // column j of op(B) at b + j * ldb
  int64_t ldb;
  float* c;
  int64_t ldc;
  float alpha;
  float beta;
  // Columns of B (same layout, b_next_cols of them, at most kDotNr) read into cache while this
  // tile computes, a line of each per step; null for none (exec/macro_kernel.hpp DotPrefetchRule).
  const float* b_next = nullptr;
  int b_next_cols = 0;
};
using DotKernelFn = void (*)(const DotArgs&);
inline constexpr int kDotMr = 4;
inline constexpr int kDotNr = 4;
struct DotKernels {
  std::array<std::array<DotKernelFn, kDotNr>, kDotMr> fn{};
  DotKernelFn get(int m, int n) const noexcept {
    return fn[static_cast<std::size_t>(m - 1)][static_cast<std::size_t>(n - 1)];
  }
};

// Rank-k update of whole rows for a shallow depth (kernels/rank_k_rows.hpp): rows [0, m) of
// C (ldc apart) = alpha * op(A) op(B) + beta * C over depth k, A(i, p) at a[i * a_rs + p * a_cs],
// B(p, j) at b[p * ldb + j]. With beta == 0 the whole cache lines of C are written with
// non-temporal stores where the path has them.
struct RowsArgs {
  int64_t m, n, k;
  const float* a;
  int64_t a_rs, a_cs;
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
  float alpha;
  float beta;
};
using RowsKernelFn = void (*)(const RowsArgs&);

// Packing: copies a block of op(A) or op(B), given by element strides, into contiguous panels.
//   pack_a: rows [0, m) x depth [0, k) -> panels of mr rows, out[panel][p * mr + i], zero padded
//   pack_b: depth [0, k) x cols [0, n) -> panels of nr cols, out[panel][p * nr + j], zero padded
using PackAFn = void (*)(int64_t m, int64_t k, const float* a, int64_t a_rs, int64_t a_cs, int mr,
                         float* out);
using PackBFn = void (*)(int64_t k, int64_t n, const float* b, int64_t b_rs, int64_t b_cs, int nr,
                         float* out);

// Transposes a block: out[j * out_ld + i] = src[i * ld + j] for i < rows, j < cols (the dot
// plans' copy of a narrow row-major B into columns contiguous along k).
using TransposeFn = void (*)(int64_t rows, int64_t cols, const float* src, int64_t ld, float* out,
                             int64_t out_ld);

// The fused epilogue on rows [i0, i1) x columns [j0, j1) of a normalised C, c the block's first
// element (element (i, j) at c[(i - i0) * ldc + (j - j0)]; kernels/post_ops_impl.hpp).
using PostOpsFn = void (*)(const PostOpChain& chain, float* c, int64_t ldc, int64_t i0, int64_t i1,
                           int64_t j0, int64_t j1);

// What the model needs to know of a table's packers beyond its tiles: the share of the profile's
// packing rate a B packer that transposes reaches, and the cycles per element of the dot plans'
// block transpose (fitted constants: docs/MODEL.md, "Fitted constants").
struct PackCosts {
  double transposing_pack_b_share = 0.5;
  double dot_pack_cycles = 2.0;
};

// Everything one level's fp32 kernels offer. Tiles are ordered from the largest
// (compute-bound) to the narrowest; the planner may pick any of them.
struct IsaKernels {
  Isa isa;                 // the level that registers the table
  int lanes;               // fp32 lanes per vector register
  bool broadcast_is_free;  // broadcast folds into the FMA's memory operand (AVX-512)
  std::span<const TileKernels> tiles;
  PackAFn pack_a;
  PackBFn pack_b;
  const DotKernels* dot;
  RowsKernelFn rows = nullptr;  // the rank-k row kernel (null: the path has none)
  TransposeFn transpose = nullptr;
  PostOpsFn post_ops = nullptr;
  PackCosts pack_costs{};
};

}  // namespace adaptcore::kernels
