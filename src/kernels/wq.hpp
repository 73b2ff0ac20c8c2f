// Weight-quantized kernels (W8A16 / W4A16, docs/QUANT.md): the activation split and the
// register tile over the packed activation parts and the packed weight panels
// (core/wq_weights.hpp). Kernels know nothing of plans.
#pragma once

#include <array>
#include <cstdint>

#include "adaptcore/types.hpp"

namespace adaptcore::kernels {

inline constexpr int kWqMaxMr = 16;

// One row tile's activations (mr rows, padded with zero rows) as the quantizer writes them:
//   parts:  int8, part t of quad q (4 consecutive k) of row i at bytes
//           ((q * mr + i) * parts + t) * 4 .. + 3       (broadcast as one 32-bit word)
//           or, for a matrix-engine table (WqKernels::tile_quads = Q), in blocks of Q quads,
//           each part's rows one after the other, a row's Q words contiguous (a tile of A):
//           (((q / Q * parts + t) * mr + i) * Q + q % Q) * 4, the quads padded with zeros
//           to whole blocks (wq_part_offset below)
//   scale:  [group * mr + i] the scale of the last part (two parts: s2 = s1 / 256; one part:
//           s1), in the row's scaled units (x 2^E, see row_factor)
//   comp:   [group * mr + i] offset x (256 rowsum(q1) + rowsum(q2)) (two parts) or offset x
//           rowsum(q1), modulo 2^32: what the weights' +128 (+8) storage offset adds
//   row_factor: [i] 2^-E, the row's power-of-two rescaling undone in the epilogue (NaN for a
//           row holding inf or NaN, 0 for a row of zeros)
struct WqTileA {
  const std::int8_t* parts;
  const float* scale;
  const std::int32_t* comp;
  const float* row_factor;
  int mr;
};

struct WqArgs {
  int64_t quads;            // depth in quads, ceil(k / 4)
  int64_t quads_per_group;  // activation K-group / 4 (the last group may be shorter)
  WqTileA a;
  const std::uint8_t* w;       // the weight panel (32 columns)
  const float* w_group_scale;  // [group * 32 + j] for group-wise weights, else null
  const float* w_col_scale;    // [j] for per-column weights, else null
  float* c;                    // C(i, j) at c[i * c_rs + j * c_cs]
  int64_t c_rs, c_cs;
  float beta;  // C = result + beta C (beta == 0: C not read)
  int n;       // valid columns, 1..32
  // Lines of the next weight panel to bring into L2 while this tile runs: prefetch_lines lines
  // per activation group from w_prefetch on (null: none). The executor spreads the next panel
  // over the row tiles of the current one, so the weight stream from DRAM runs under all of
  // their dot products instead of stalling the first tile (kernels may ignore it).
  const std::uint8_t* w_prefetch = nullptr;
  int prefetch_lines = 0;
  // Depth blocks (Plan::kc): a tile over the depth in several calls carries its fp32 sums
  // (M x 32, 64-byte aligned) in `partial`: read at the start when `resume`, written there
  // instead of C unless `finish`. The sums run through the same operations in the same order
  // as in one call, so the result does not depend on the blocking.
  float* partial = nullptr;
  bool resume = false, finish = true;
};
using WqFn = void (*)(const WqArgs&);

// Where the quantizer puts part t of quad q of row i (the layouts above; tile_quads 0: the
// vector kernels' interleaved one).
constexpr int64_t wq_part_offset(int64_t q, int64_t i, int t, int mr, int parts,
                                 int tile_quads) noexcept {
  if (tile_quads == 0) return ((q * mr + i) * parts + t) * 4;
  return (((q / tile_quads * parts + t) * mr + i) * tile_quads + q % tile_quads) * 4;
}
// Quads a row tile's parts hold: ceil(k / 4), rounded up to whole blocks of tile_quads.
constexpr int64_t wq_tile_quads(int64_t k, int tile_quads) noexcept {
  const int64_t quads = (k + 3) / 4;
  return tile_quads == 0 ? quads : (quads + tile_quads - 1) / tile_quads * tile_quads;
}

// Quantizes one fp32 row of k values (contiguous) into the tile layout above at row `row` of
// a tile of `mr` rows: groups of `group` values (a multiple of 4), parts 1 or 2, the weights'
// storage offset (128 or 8) for the compensation.
struct WqQuantizeArgs {
  const float* x;
  int64_t k;
  int64_t group;
  int parts;
  int offset;
  std::int8_t* parts_out;  // tile base (row 0, quad 0)
  float* scale_out;        // tile base
  std::int32_t* comp_out;  // tile base
  float* row_factor_out;   // tile base
  int mr, row;
  int tile_quads = 0;  // the layout (WqTileA): 0 the vector kernels', else a matrix engine's
};
using WqQuantizeFn = void (*)(const WqQuantizeArgs&);

// Everything one weight-quantized path offers: kernels per part count and weight format,
// each with one instantiation per row count 1..mr.
struct WqKernels {
  const char* name;    // "avx512-vnni", "int32-generic", "amx"
  Isa isa;             // the level whose fp32 post-ops it runs with
  bool native;         // a dot-product instruction (the model's peak); false: the portable kernel
  int dot_bits;        // the width of that instruction's vectors (0: portable)
  int mr_two, mr_one;  // tile rows for two parts / one part
  std::array<WqFn, kWqMaxMr> two_int8{}, one_int8{}, two_int4{}, one_int4{};
  WqQuantizeFn quantize;
  // A matrix engine's kernels (AMX tile products): the split in its layout (tile_quads, WqTileA),
  // the unit's state set up per task (begin, end: the tile configuration, on the thread that
  // runs the task), and the vector kernels of the level below, which the planner weighs against
  // them per shape (Plan::tile 1; decode streams its weights at the same rate either way).
  bool engine = false;
  int tile_quads = 0;
  void (*begin)() noexcept = nullptr;
  void (*end)() noexcept = nullptr;
  const WqKernels* below = nullptr;

  WqFn get(int parts, bool int4, int m) const noexcept {
    const auto& t = parts == 2 ? (int4 ? two_int4 : two_int8) : (int4 ? one_int4 : one_int8);
    return t[static_cast<std::size_t>(m - 1)];
  }
  int mr(int parts) const noexcept { return parts == 2 ? mr_two : mr_one; }
};

// The portable quantizer; the native one gives identical bits (same operations, nearest-even
// rounding, fused residual), so either may quantize for either kernel.
void wq_quantize_portable(const WqQuantizeArgs& args) noexcept;

}  // namespace adaptcore::kernels
