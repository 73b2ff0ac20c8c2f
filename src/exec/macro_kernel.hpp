// The one macro-kernel of blocked and dot plans, for every data type: the loops of one core's
// block of C, written once over byte pointers. What differs per type comes from an adapter
// `Op` (executor.cpp for fp32, executor_lowp.cpp for bf16 and int8), the per-type executor
// configuration:
//
//   ByteMatrix a, b               op(A) (m x k) and op(B) (k x n) as bytes
//   group                         k values per packed 32-bit word (fp32 1, bf16 2, int8 4)
//   depth_block                   packed words per depth step of the kernels: the packed steps
//                                 are padded with zeros to a multiple (a matrix-engine tile's
//                                 16; 1 elsewhere)
//   prepare(block)                before the block's loops (the epilogue's per-block state)
//   begin_panel(panel) -> CTarget before a panel of nc columns: where the kernels write
//   pack_b(src, kb, nb, out)      pack a kb x nb block of op(B) at src into panels
//   pack_a(src, mb, kb, pc, out)  pack an mb x kb block of op(A) at src (depth offset pc)
//   tile(TileCall)                one register tile: the kernel call with the type's store
//   dot_tile(DotCall)             one dot-product tile over the whole depth
//   finish(panel)                 after a panel's last depth block: the epilogue's stages
//   has_post_ops(), post_ops(i, j, rows, cols)   the fused epilogue of a finished tile (fp32)
//
// Every packed panel is an array of 32-bit words (a packed fp32 value or a group of narrower
// ones), so panel offsets are the same for every type.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/int_math.hpp"
#include "exec/epilogue.hpp"
#include "exec/grid_tasks.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

// An operand as bytes: element (r, c) at ptr + (r * rs + c * cs) * eb.
struct ByteMatrix {
  const unsigned char* ptr = nullptr;
  int64_t rs = 1, cs = 1, eb = 4;
  // B prepacked into full-depth panels (GemmProblem::b_panel_nr; 0: strided as above): panels
  // of panel_nr columns over `depth` elements (packed words for low precision, each holding
  // panel_group k values) and `cols` columns, the last as wide as the columns left; element
  // (r, c) at panel_at(r, c), r a k value on a group boundary.
  int64_t panel_nr = 0, depth = 0, cols = 0, panel_group = 1;
  const unsigned char* at(int64_t r, int64_t c) const noexcept {
    return ptr + (r * rs + c * cs) * eb;
  }
  const unsigned char* panel_at(int64_t r, int64_t c) const noexcept {
    const int64_t first = c / panel_nr * panel_nr;
    const int64_t width = std::min(panel_nr, cols - first);
    return ptr + (first * depth + r / panel_group * width + (c - first)) * eb;
  }
};

// Where the kernels write C (C itself, a split-K partial buffer or an fp32 accumulation
// block), 4-byte elements: element (i, j) of C at base + ((i - row0) * ld + (j - col0)) * 4,
// or, transposed (Plan::transpose_c: the loops run over C^T, stored in C), at
// base + ((j - col0) * ld + (i - row0)) * 4. ld is the stride the kernels take as ldc.
struct CTarget {
  unsigned char* base = nullptr;
  int64_t ld = 0, row0 = 0, col0 = 0;
  bool transposed = false;
  void* at(int64_t i, int64_t j) const noexcept {
    return transposed ? base + ((j - col0) * ld + (i - row0)) * 4
                      : base + ((i - row0) * ld + (j - col0)) * 4;
  }
};

// One register tile of a depth block: mv x nv at row i, column j of C.
struct TileCall {
  const unsigned char* a;  // packed A panel, or op(A) at (i, pc) read in place
  const unsigned char* b;  // packed B panel, or op(B) at (pc, j) read in place
  void* c;                 // the tile's C in the target
  int64_t ldc;
  int64_t kb, steps;  // depth of the block in k values and in packed words
  int64_t pc;         // the block's first k value
  int64_t jr;         // the tile's column within its panel
  int mv, nv;
  bool first;      // the first depth block of the core's slice: the store applies beta
  bool first_row;  // the block's first row tile in this depth block
  // Plan::prefetch_b on an Op whose tiles read ahead themselves (Op::tiles_read_ahead): the
  // next depth block's rows of this column tile, for the first row tile to ask for.
  const unsigned char* b_next;
  int64_t b_next_rows;
};

// One dot-product tile: mv x nv at row i, column j of C, over the whole depth.
struct DotCall {
  const unsigned char* a;       // op(A) row i (contiguous along k)
  const unsigned char* b;       // op(B) column j (contiguous along k)
  const unsigned char* b_next;  // B to read ahead (DotPrefetchRule), or null
  int b_next_cols;              // its columns
  void* c;
  int64_t ldc;
  int64_t col;  // j - the block's first column
  int mv, nv;
  bool first_row;  // the block's first row tile
};

// Per-task packing buffers (words).
struct PackBuffers {
  unsigned char* a = nullptr;  // ceil(mc / mr) * mr x ceil(kc / group) words (padded: depth_block)
  unsigned char* b = nullptr;  // ceil(nc / nr) * nr x ceil(kc / group) words (likewise)
};

// Prefetches (for writing) the lines of an mv x nv tile of 4-byte elements, ld apart.
inline void prefetch_c_tile(const void* c, int64_t ld, int mv, int nv) noexcept {
  const auto* p = static_cast<const unsigned char*>(c);
  const int64_t bytes = int64_t{nv} * 4;
  for (int i = 0; i < mv; ++i, p += ld * 4) {
    for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off, 1, 3);
    __builtin_prefetch(p + bytes - 1, 1, 3);
  }
}

// Plan::prefetch_c: the C lines of the tile after (ir, jr) in the block's panel; out of line,
// so that plans without it keep the tile loop as it was.
[[gnu::noinline]] inline void prefetch_next_c(const CTarget& target, int64_t ic, int64_t ir,
                                              int64_t jc, int64_t jr, int mr, int nr, int64_t mb,
                                              int64_t nb, int nv) noexcept {
  if (ir + mr < mb)
    prefetch_c_tile(target.at(ic + ir + mr, jc + jr), target.ld,
                    static_cast<int>(std::min<int64_t>(mr, mb - ir - mr)), nv);
  else if (jr + nr < nb)
    prefetch_c_tile(target.at(ic, jc + jr + nr), target.ld,
                    static_cast<int>(std::min<int64_t>(mr, mb)),
                    static_cast<int>(std::min<int64_t>(nr, nb - jr - nr)));
}

// The cache-blocked loop nest of one core (BLIS order): jc -> pc -> [pack B] -> ic ->
// [pack A] -> jr -> ir -> micro-kernel, over the block's rows, columns and depth slice.
template <class Op>
void run_blocked(const Plan& p, Op& op, const Block& blk, const PackBuffers& s) {
  const int mr = p.mr, nr = p.nr;
  const bool prefetch_c = p.prefetch_c;
  const int64_t a_row_bytes = op.a.rs * op.a.eb, b_col_bytes = op.b.cs * op.b.eb;
  // Prepacked B: column tiles a whole panel apart, each depth block inside them.
  const bool panels = op.b.panel_nr > 0;
  const int64_t panel_bytes = nr * op.b.depth * op.b.eb;
  op.prepare(blk);
  for (int64_t jc = blk.n0; jc < blk.n1; jc += p.nc) {
    const int64_t nb = std::min(p.nc, blk.n1 - jc);
    const CBlock panel{blk.m0, blk.m1, jc, jc + nb};
    const CTarget target = op.begin_panel(panel);
    for (int64_t pc = blk.k0; pc < blk.k1; pc += p.kc) {
      const int64_t kb = std::min(p.kc, blk.k1 - pc);
      const int64_t steps = round_up(ceil_div(kb, int64_t{op.group}), int64_t{op.depth_block});
      const bool first = pc == blk.k0;
      // The last depth block finishes each tile: the fused epilogue follows at once, while the
      // tile is in L1 (an Op without one answers false).
      const bool finishes = pc + kb >= blk.k1 && op.has_post_ops();
      const unsigned char* b_block = panels ? op.b.panel_at(pc, jc) : op.b.at(pc, jc);
      if (p.pack_b) op.pack_b(b_block, kb, nb, s.b);

      for (int64_t ic = blk.m0; ic < blk.m1; ic += p.mc) {
        const int64_t mb = std::min(p.mc, blk.m1 - ic);
        const unsigned char* a_block = op.a.at(ic, pc);
        if (p.pack_a) op.pack_a(a_block, mb, kb, pc, s.a);
        // B read in place from DRAM (Plan::prefetch_b, fp32; the low-precision in-place tile
        // prefetches by itself): each column tile asks for the one kReadAheadTiles further on
        // while it computes. B rows from DRAM are one prefetch stream each and the hardware
        // follows only a few, so short blocks over long rows otherwise wait on every miss. A
        // block of that many tiles or fewer asks for the next depth block's tile in its place
        // (a whole block traversal ahead); after the last depth block of a column block, the
        // next column block's first one (the same columns within it): narrow column blocks
        // (Plan::nc) turn over often.
        const bool reads_next = p.prefetch_b && ic == blk.m0 && !p.pack_b && op.b.cs == 1;
        const bool next_panel = pc + kb >= blk.k1;
        const int64_t kb_next = !reads_next ? 0
                                : next_panel
                                    ? (jc + nb < blk.n1 ? std::min(p.kc, blk.k1 - blk.k0) : 0)
                                    : std::min(p.kc, blk.k1 - pc - kb);
        const int64_t nb_next = next_panel ? std::min(p.nc, blk.n1 - jc - nb) : nb;
        const int64_t tiles = ceil_div(nb, int64_t{nr});

        // A read in place: the block's rows in row tiles of even heights (13 rows of a 6-row
        // tile as 5 + 4 + 4, not 6 + 6 + 1), as the kernels run any height up to mr; a
        // one-row tile reads the same B vectors per step for one row's multiply-adds, and
        // waits on them. Packed A keeps whole mr-row panels. Worked out once per block of
        // rows, not per column tile, where its divisions were a visible part of a short call
        // (docs/MODEL.md M6).
        const int64_t row_tiles = ceil_div(mb, int64_t{mr});
        const int64_t even = p.pack_a ? mr : ceil_div(mb, row_tiles);
        const int64_t taller = p.pack_a ? row_tiles : mb - (even - 1) * row_tiles;
        TileCall t{};
        t.kb = kb, t.steps = steps, t.pc = pc, t.first = first;
        // A shallow block (up to kSweepDepth steps) is over in few cycles next to the tile
        // loop's own bookkeeping and C's traffic, and its B block is small enough to stay close
        // in any order: each row tile sweeps the columns in one call of the Op, the kernel
        // arguments made once, and C is written row panel by row panel instead of in column
        // strips that touch a page per row (docs/MODEL.md M7, M17).
        // Row tile `it`, starting at row ir of the block and column j of the panel.
        auto place_row_tile = [&](int64_t it, int64_t ir, int64_t j) {
          t.mv = static_cast<int>(std::min<int64_t>(it < taller ? even : even - 1, mb - ir));
          t.a = p.pack_a ? s.a + ir * steps * 4 : a_block + ir * a_row_bytes;
          t.c = target.at(ic + ir, jc + j);
          t.ldc = target.ld;
          t.first_row = ic == blk.m0 && ir == 0;
        };
        if constexpr (requires { op.sweep(t, nb, int64_t{}, true); }) {
          if (sweeps_block(kb, nb, nr, kb_next > 0, !op.can_sweep())) {
            const int64_t b_step = p.pack_b ? int64_t{nr} * steps * 4
                                   : panels ? panel_bytes
                                            : nr * b_col_bytes;
            t.b = p.pack_b ? s.b : b_block;
            for (int64_t it = 0, ir = 0; it < row_tiles; ++it) {
              place_row_tile(it, ir, 0);
              op.sweep(t, nb, b_step, prefetch_c);
              if (finishes) op.post_ops(ic + ir, jc, t.mv, nb);
              ir += t.mv;
            }
            continue;
          }
        }
        for (int64_t jr = 0; jr < nb; jr += nr) {
          t.nv = static_cast<int>(std::min<int64_t>(nr, nb - jr));
          t.jr = jr;
          t.b = p.pack_b ? s.b + jr * steps * 4
                : panels ? op.b.panel_at(pc, jc + jr)
                         : b_block + jr * b_col_bytes;
          t.b_next = nullptr, t.b_next_rows = 0;
          if (reads_next) {
            // The column tile kReadAheadTiles further in the order the tiles meet B: in this
            // depth block, else among the next one's first tiles (at most one block ahead).
            const int64_t ahead = jr / nr + std::min(kReadAheadTiles, tiles);
            const unsigned char* next = nullptr;
            int64_t rows = 0, bytes = 0;
            if (ahead < tiles) {
              next = b_block + ahead * nr * b_col_bytes, rows = kb;
              bytes = std::min<int64_t>(nr, nb - ahead * nr) * op.b.eb;
            } else if (kb_next > 0) {
              const int64_t col = std::min(ahead - tiles, ceil_div(nb_next, int64_t{nr}) - 1) * nr;
              next = next_panel ? op.b.at(blk.k0, jc + nb + col) : op.b.at(pc + kb, jc + col);
              rows = kb_next, bytes = std::min<int64_t>(nr, nb_next - col) * op.b.eb;
            }
            const int64_t row_bytes = op.b.rs * op.b.eb;
            if constexpr (requires { op.tiles_read_ahead(); }) {
              // Rows a line or more apart (in-place B from DRAM is): the first row tile asks
              // for them over its depth steps, a row a step, while its FMAs run.
              if (next != nullptr && row_bytes >= 64 && reads_ahead_in_tile(rows, bytes) &&
                  op.tiles_read_ahead()) {
                t.b_next = next, t.b_next_rows = std::min(rows, kb);
                next = nullptr;
              }
            }
            // Otherwise all at once, before the tile. Rows closer than a line share lines: one
            // prefetch per line, not per row, whose extra instructions a short call would
            // notice (docs/MODEL.md M8).
            const int64_t r_step = std::max<int64_t>(1, 64 / std::max<int64_t>(row_bytes, 1));
            for (int64_t r = 0; next != nullptr && r < rows; r += r_step)
              for (int64_t col = 0; col < bytes; col += 64)
                __builtin_prefetch(next + r * row_bytes + col, 0, 2);
          }
          for (int64_t it = 0, ir = 0; it < row_tiles; ++it) {
            place_row_tile(it, ir, jr);
            if (it == 1) t.b_next = nullptr, t.b_next_rows = 0;  // the first row tile's
            // A shallow tile is over before its C lines arrive from beyond L2: ask for the
            // next tile's lines (with intent to write) while this one computes.
            if (prefetch_c) [[unlikely]]
              prefetch_next_c(target, ic, ir, jc, jr, mr, nr, mb, nb, t.nv);
            op.tile(t);
            if (finishes) op.post_ops(ic + ir, jc + jr, t.mv, t.nv);
            ir += t.mv;
          }
        }
      }
    }
    op.finish(panel);
  }
}

// What a dot-product column tile's row tiles read ahead while they compute (DotCall::b_next,
// b_next_cols). Where a column tile fits L1 (a column's stream is then a few KiB, over before
// the hardware prefetchers reach it): the next column tile. Its columns are asked for by the
// first row tile; where they are short (kDotPrefetchShareBytes), shared out among the row
// tiles instead, so that the lines are asked for over the whole tile's time and not in one
// burst that the core's outstanding misses cap; past that share the last columns would be
// asked for too late. A larger tile: the first row tile reads its own columns
// kDotPrefetchAheadBytes ahead, and the later ones find them cached. A lone fp32 single-row
// tile reads none: at M = 1 its loads alone keep enough lines in flight, and the prefetches
// only cost. The bf16 and int8 ones do: their loads are masked, every step, and fall behind.
// (Measured: docs/MODEL.md M9.)
inline constexpr int64_t kDotPrefetchTileMaxBytes = 48 * 1024;
inline constexpr int64_t kDotPrefetchShareBytes = 4 * 1024;
inline constexpr int64_t kDotPrefetchAheadBytes = 2048;

struct DotPrefetch {
  const unsigned char* b = nullptr;
  int cols = 0;
};

// The read-ahead of a core's dot-product block, worked out once: which row tiles read ahead
// and how many columns each (fp32 tiles of one row never: their kernels have no read-ahead).
struct DotPrefetchRule {
  bool next_tile = false;  // the next column tile (else the own columns ahead)
  int64_t tiles = 0;       // row tiles that read ahead (0: none)
  int64_t share = 0;       // next-tile columns per reading row tile
  DotPrefetchRule(const ByteMatrix& b, const Block& blk, int mr, int nr) noexcept {
    const int64_t rows = blk.m1 - blk.m0, column_bytes = (blk.k1 - blk.k0) * b.rs * b.eb;
    const int64_t full = rows / mr, multi = full + (rows % mr > 1 ? 1 : 0);
    next_tile = column_bytes * nr <= kDotPrefetchTileMaxBytes;
    if (multi == 0) {
      // Single-row tiles: low-precision ones read ahead too, fp32 ones not (see above).
      if (b.eb < 4) {
        tiles = 1;
        share = nr;
      }
      return;
    }
    if (!next_tile) {
      tiles = 1;
      return;
    }
    tiles = column_bytes <= kDotPrefetchShareBytes ? std::min<int64_t>(multi, nr) : 1;
    share = ceil_div(nr, tiles);
  }
  // Row tile t of the column tile at column j (nv columns).
  DotPrefetch at(const ByteMatrix& b, const Block& blk, int64_t j, int nr, int nv,
                 int64_t t) const noexcept {
    if (t >= tiles) return {};
    if (!next_tile) return {b.at(0, j) + kDotPrefetchAheadBytes, nv};
    const int64_t first = t * share, next_cols = std::min<int64_t>(nr, blk.n1 - (j + nr));
    if (first >= next_cols) return {};
    return {b.at(0, j + nr + first), static_cast<int>(std::min(share, next_cols - first))};
  }
};

// The dot-product loop of one core (A rows and B columns contiguous along k): column tiles
// outer (B read once, in order), row tiles inner (A stays cached), each tile one kernel call
// over the whole depth; nothing is packed.
template <class Op>
void run_dot(const Plan& p, Op& op, const Block& blk) {
  const CBlock whole{blk.m0, blk.m1, blk.n0, blk.n1};
  op.prepare(blk);
  const CTarget target = op.begin_panel(whole);
  const DotPrefetchRule ahead(op.b, blk, p.mr, p.nr);
  // Without read-ahead (M = 1) the loop of before it: a few cycles a tile show in small calls.
  auto loop = [&]<bool Ahead>() {
    DotCall d{};
    d.ldc = target.ld;
    for (int64_t j = blk.n0; j < blk.n1; j += p.nr) {
      d.nv = static_cast<int>(std::min<int64_t>(p.nr, blk.n1 - j));
      d.b = op.b.at(0, j);
      d.col = j - blk.n0;
      for (int64_t i = blk.m0, t = 0; i < blk.m1; i += p.mr, ++t) {
        d.mv = static_cast<int>(std::min<int64_t>(p.mr, blk.m1 - i));
        d.a = op.a.at(i, 0);
        d.c = target.at(i, j);
        d.first_row = i == blk.m0;
        if constexpr (Ahead) {
          const DotPrefetch pf = ahead.at(op.b, blk, j, p.nr, d.nv, t);
          d.b_next = pf.b;
          d.b_next_cols = pf.cols;
        }
        op.dot_tile(d);
      }
    }
  };
  if (ahead.tiles > 0)
    loop.template operator()<true>();
  else
    loop.template operator()<false>();
  op.finish(whole);
}

}  // namespace adaptcore
