// A plan: the complete, executable description of how one shape is computed. The planner
// fills it from the taxonomy class and the model's choice; the executor only follows it.
#pragma once

#include <cstdint>
#include <string>

#include "adaptcore/types.hpp"

namespace adaptcore {

// Capacity axis of the taxonomy: the smallest memory level holding one core's working set.
enum class CapacityClass : std::uint8_t { Registers, L1, L2, L3, Dram };
// Parallelism axis: how much independent output work exists compared with the cores.
//   Serial:    too little work to pay for waking another core
//   ManyTiles: enough output tiles to give every core a 2D block of C
//   FewTiles:  fewer output tiles than cores need; split along K (deep K) or use finer tiles
enum class ParallelClass : std::uint8_t { Serial, ManyTiles, FewTiles };

struct ShapeClass {
  CapacityClass capacity = CapacityClass::L1;
  ParallelClass parallel = ParallelClass::Serial;
  friend bool operator==(const ShapeClass&, const ShapeClass&) = default;
};

// Edge tiles: Masked runs a kernel instantiated for the remaining rows with masked column
// loads/stores; Padded runs the full tile on zero-padded packed panels into a scratch tile and
// copies the valid part out (needs both operands packed).
enum class TailStrategy : std::uint8_t { Masked, Padded };

// Plan kinds: each has its own candidate generator and validator (plan/candidates_*.cpp) and
// its own execution; fields a kind does not use keep their defaults.
//   Blocked:         register tiles over cache blocks (mc x kc of A, kc x nc of B), packing
//                    either operand or reading it in place, split-K and tail strategies
//   Dot:             dot-product tiles (A rows and B columns contiguous along k), nothing
//                    packed or blocked; mr x nr is the dot tile
//   WeightQuantized: the weight-quantized algorithm (docs/QUANT.md): mr x 32 tiles over
//                    prepacked weights, mc the row block, kc the activation group
//   Rows:            the rank-k row kernel for a shallow depth (kernels/rank_k_rows.hpp):
//                    rows of C in their own cache lines, non-temporal stores when beta = 0;
//                    rows split over pm cores (kc = k, mc the core's rows)
enum class PlanKind : std::uint8_t { Blocked = 0, Dot = 1, WeightQuantized = 2, Rows = 3 };

// The deepest K the row kernel is offered for: beyond it the register tiles' reuse of each B
// value over their rows pays more than writing C in whole lines saves.
inline constexpr int64_t kRowsMaxK = 8;

// How a packed A block is packed (low precision): Elements by the type's own group packer;
// Words by the ISA path's fp32 packer, which reads a row-major A whose rows start on 4-byte
// boundaries as an fp32 matrix of 32-bit groups (a packed panel of groups is a packed fp32
// panel) and packs it about 3x faster (in-register transposes on AVX-512). The key says the
// rows are word-aligned; what it cannot say (the operand's address, an s8 A whose bytes the
// packer must flip) the executor checks per call, and a depth block that does not start on a
// word or hold whole groups (a last block ending in a partial group) goes through the group
// packer: "Words where the operand allows it".
enum class APacking : std::uint8_t { Elements = 0, Words = 1 };

// Depth of the shallow blocks that may prefetch C (Plan::prefetch_c), in packed steps.
inline constexpr int64_t kPrefetchCSteps = 48;

// Plan::prefetch_b asks for at most this many lines of the next depth block at once, before a
// column tile; more go through the first row tile's depth steps (UKernelArgs::b_next), a row
// per step. A burst of 96 (32 rows of a 48-column tile) filled the core's miss buffers and held
// up the tile's own loads (one Zen 4 core, 8 x 4096 x 4096: 7.5 ms against 3.8 spread over the
// steps); 32 or fewer ran as fast or faster at once (docs/MODEL.md, *In-place read-ahead*).
inline constexpr int64_t kMaxBurstLines = 32;

// Plan::prefetch_b reads B this many column tiles ahead of the tile that runs, in the order the
// tiles meet it (across a depth block, then into the next one): the lines a tile needs are
// asked for four tile calls before, a line or two a row further along rows the tiles are already
// walking. Asking for the next depth block's rows instead (the same columns, a whole block
// traversal ahead) needed that block to wait in L2, which bounded the depth blocks; one Zen 3
// core, cold, in place: 8 x 4096 x 4096 at kc 128 18.5 -> 12.4 ms, 16 x 1552 x 3831 at kc 256
// 1.08x; two tiles lost 0.89x where a block has few tiles (8 x 85 x 8158), as many as the
// block's tiles is the old request (docs/MODEL.md M34).
inline constexpr int64_t kReadAheadTiles = 4;

// Depth blocks of at most this many k values run row tile by row tile, each sweeping the
// block's columns (run_blocked; up to 32 the rows of C written in turn beat the column strips at
// every shape measured, docs/MODEL.md M17), which the model prices (M33).
inline constexpr int64_t kSweepDepth = 32;

// Whether the executor sweeps a depth block of `kb` k values over `nb` columns row tile by row
// tile (run_blocked): shallow, wider than a tile, no read-ahead of the next block, no padded
// scratch tile.
inline constexpr bool sweeps_block(int64_t kb, int64_t nb, int nr, bool reads_ahead,
                                   bool padded) noexcept {
  return kb <= kSweepDepth && nb > nr && !reads_ahead && !padded;
}

// Whether the read-ahead of `rows` rows of `row_bytes` bytes each (a column tile's width of
// in-place B) goes through the tile's depth steps rather than in one burst (the executor's rule,
// which the model prices).
inline constexpr bool reads_ahead_in_tile(int64_t rows, int64_t row_bytes) noexcept {
  return rows * ((row_bytes + 63) / 64) > kMaxBurstLines;
}

struct Plan {
  PlanKind kind = PlanKind::Blocked;
  Isa isa = Isa::Generic;
  int tile = 0;  // index into the ISA's tile list
  int mr = 1, nr = 1;
  bool pack_a = false, pack_b = false;
  int64_t mc = 1, nc = 1, kc = 1;  // cache blocking: A block mc x kc (L2), B panel kc x nc (L3)
  int pm = 1, pn = 1, pk = 1;      // core grid over M, N and K (pk > 1: split-K)
  TailStrategy tail = TailStrategy::Masked;
  APacking a_packing = APacking::Elements;  // blocked plans that pack A (low precision)
  // Blocked plans of one shallow depth block (at most kPrefetchCSteps packed steps): while a
  // register tile computes, the executor prefetches the next tile's C lines for writing. A
  // shallow tile ends before its C lines could arrive from beyond L2 on their own; where C
  // stays in L2 the prefetches are only extra instructions (the model weighs both).
  bool prefetch_c = false;
  // Register tiles reading B in place over several depth blocks, where B starts in DRAM (cold
  // operands, or more than the L3 a hot loop keeps): while the first row panel computes, the
  // executor asks for the next depth block's rows of B, which are one hardware prefetch stream
  // each. A B that a hot loop keeps in L3 runs faster without: the prefetches are extra
  // instructions that stall on the fill buffers, and a shallow block is then swept row tile by
  // row tile (docs/EVIDENCE.md, E6).
  bool prefetch_b = false;
  // Blocked fp32 plans for a C of a few columns: the plan computes the transposed problem
  // C^T = op(B)^T op(A)^T (every field above describes it: mr rows of C^T are columns of C)
  // and its kernels store C^T's tiles transposed into C, so C's many rows fill the vector
  // lanes (TileKernels::fn_tc). One depth slice (pk = 1), masked tails, no C prefetching.
  bool transpose_c = false;
  // Weight-quantized plans: threads that split (quantize) the activations in the pass before
  // the product, 1 (the calling thread) or threads().
  int quantize_threads = 1;
  ShapeClass cls;
  double predicted_us = 0.0;

  int threads() const noexcept { return pm * pn * pk; }
  bool is_dot() const noexcept { return kind == PlanKind::Dot; }
};

// Register-tile plans run on the small-problem executor (exec/executor_small.hpp) when m, n and
// k are all at most kSmallTileDim and B at most kSmallBBytes: B then stays in L2 while each
// row tile sweeps it, and a plan reading A and B in place over one depth block is the
// macro-kernel's loop nest without its blocking, so the macro-kernel has nothing to add (and
// its dispatch, about 200 ns, is a third of a 71 x 11 x 13 call; 50-80 ns of a 1 x 319 x 2
// call of 130). Every problem within 256 a side (one depth block is at most 256 deep) passes.
inline constexpr int64_t kSmallTileDim = 4096;
inline constexpr int64_t kSmallBBytes = 256 * 1024;

// A transposed plan (Plan::transpose_c) on the small-problem executor packs op(A)^T on the
// stack: at most this many floats (16 KiB).
inline constexpr int64_t kSmallPackFloats = 4096;

// Whether a plan of an fp32 problem runs on the small-problem executor (on the calling thread,
// no pool, no workspace): one thread, and a dot-product plan reading B in place, or register
// tiles reading A and B in place (B's rows contiguous) over one depth block of a problem within
// kSmallTileDim, or a transposed plan of such a problem whose packed op(A)^T (if it packs it)
// fits kSmallPackFloats. The executor checks the plan against its kernel table and the operands
// besides; the model prices the executor's set-up for every other plan.
inline bool small_executor_runs(const Plan& p, int64_t m, int64_t n, int64_t k,
                                bool b_row_unit) noexcept {
  if (p.pm != 1 || p.pn != 1 || p.pk != 1) return false;
  if (p.is_dot()) return !p.pack_b;
  if (p.kind != PlanKind::Blocked || p.tile > 31 || p.pack_a || p.tail == TailStrategy::Padded ||
      k > p.kc || m > kSmallTileDim || n > kSmallTileDim || k > kSmallTileDim ||
      4 * k * (p.transpose_c ? m : n) > kSmallBBytes)
    return false;
  if (p.transpose_c)  // the plan's B is op(A)^T, m wide
    return !p.pack_b || (m + p.nr - 1) / p.nr * p.nr * k <= kSmallPackFloats;
  return !p.pack_b && b_row_unit;
}

const char* to_string(CapacityClass c) noexcept;
const char* to_string(ParallelClass c) noexcept;
const char* to_string(TailStrategy t) noexcept;
const char* to_string(APacking a) noexcept;
const char* to_string(PlanKind k) noexcept;
std::string to_string(const ShapeClass& c);
// One line, e.g. "avx512 14x32 packA packB mc=336 nc=2048 kc=256 grid=1x2x1 masked"; A packed
// as words shows as "packA(words)", a weight-quantized plan adds its quantizing threads
// ("quantize=2").
std::string describe(const Plan& p);

}  // namespace adaptcore
