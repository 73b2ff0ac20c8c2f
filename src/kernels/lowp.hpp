// Low-precision micro-kernel and packing interfaces (bf16 and int8). Kernels know nothing of
// plans: they compute one register tile from packed panels of 32-bit "groups".
//
// A group is the run of consecutive k values that one dot-product instruction consumes per
// 32-bit lane: 2 bf16 values for vdpbf16ps, 4 bytes for vpdpbusd, or 1 fp32 value where bf16
// is converted for the fp32 kernels (CPUs without AVX512-BF16). Every group is 4 bytes, so
// both panels are arrays of 32-bit words:
//   A panel (mr rows):  word g * mr + i  holds the group g of row i    (broadcast by the kernel)
//   B panel (nr cols):  word g * nr + j  holds the group g of column j (loaded as vectors)
// Depth is zero-padded to whole groups, rows to mr and columns to nr, so padding adds
// products of zeros. The int8 layout is what a weight-quantized path can pre-pack once.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "adaptcore/types.hpp"
#include "core/dtype.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore::kernels {

struct LowpArgs {
  int64_t groups;          // depth in groups
  const std::uint32_t* a;  // packed A panel
  const std::uint32_t* b;  // packed B panel
  void* c;                 // fp32 or s32 C tile, row-major
  int64_t ldc;
  float alpha, beta;   // bf16: C = alpha * acc + beta * C (beta == 0: C not read)
  std::int32_t ibeta;  // int8: C = acc + ibeta * C modulo 2^32 (0: C not read)
  int n;               // valid columns, 1..nr
};
using LowpFn = void (*)(const LowpArgs&);

// Packing into group panels. rows/cols and depth as in the fp32 pack functions; `flags`:
// kFlip xors each byte with 0x80 (s8 -> u8, the +128 shift), kSigned reads bytes as s8 for
// the column sums. pack_b adds the column sums of what it packed (after the flip) to colsum
// when colsum is not null (int8 only).
inline constexpr unsigned kFlip = 1u, kSigned = 2u;
using LowpPackAFn = void (*)(int64_t m, int64_t k, const void* a, int64_t a_rs, int64_t a_cs,
                             int mr, unsigned flags, std::uint32_t* out);
using LowpPackBFn = void (*)(int64_t k, int64_t n, const void* b, int64_t b_rs, int64_t b_cs,
                             int nr, unsigned flags, std::uint32_t* out, std::int32_t* colsum);

// A matrix-engine tile (AMX, kernels/x86_amx/): tiles of the engine's registers instead of
// vectors, on panels of its own layout. What differs from a register tile: its packers (A in
// the engine's tile rows, B in the group layout above with the depth padded), the depth padded
// with zeros to whole blocks of `depth_block` groups (the engine multiplies whole tiles), and
// the unit's state, set up before a task's first call and released after its last (the tile
// configuration; the executor calls begin and end on the thread that runs the task).
struct EngineTile {
  LowpPackAFn pack_a;
  LowpPackBFn pack_b;
  int depth_block;
  void (*begin)() noexcept;
  void (*end)() noexcept;
};

// One register tile. Native tiles have one kernel per row count 1..mr; a tile of the fp32
// fallback points at the fp32 kernels instead (called on converted panels, ColUnit mode).
// Int8 kernels exist for both signedness orders: `fn` reads A as unsigned and B as signed,
// `fn_swapped` the opposite (a column-major C swaps the operands).
struct LowpTile {
  int mr;
  int nr;
  std::array<LowpFn, kMaxMr> fn{};
  std::array<LowpFn, kMaxMr> fn_swapped{};
  const TileKernels* fp32 = nullptr;
  const EngineTile* engine = nullptr;  // a matrix-engine tile (above); null: vector registers

  LowpFn get(int m, bool swapped) const noexcept {
    return (swapped ? fn_swapped : fn)[static_cast<std::size_t>(m - 1)];
  }
};

// B read in place (row-major op(B): rows ldb elements apart, columns contiguous), for
// decode-like calls where packing B would cost as much as the product. The kernel loads the
// rows of one group (2 for bf16, 4 for int8) and interleaves them in registers (vpunpck*),
// which works inside 128-bit lanes: its accumulators hold the columns in that interleaved
// order until the epilogue permutes them back. A is a packed group panel as for the packed
// kernels (PMR = the tile's mr). k counts depth values; a partial last group reads zeros.
struct LowpDirectArgs {
  int64_t k;
  const std::uint32_t* a;
  const void* b;  // bf16 or int8 elements
  int64_t ldb;    // in elements
  void* c;        // fp32 (bf16) or s32 (int8) C tile, row-major
  int64_t ldc;
  float alpha, beta;     // bf16: C = alpha * acc + beta * C (beta == 0: C not read)
  std::int32_t ibeta;    // int8: C = acc + ibeta * C modulo 2^32 (0: C not read)
  std::int32_t* colsum;  // int8: non-null adds the column sums of B (as the kernel reads it)
  int n;                 // valid columns, 1..nr
};
using LowpDirectFn = void (*)(const LowpDirectArgs&);
// Kernels per row count 1..mr. int8 has both signedness orders like LowpTile: `fn` reads A as
// u8 and B as s8; `fn_swapped` A as s8 and B as u8; `fn_swapped_flip` the same with B's bytes
// xored with 0x80 (an s8 B shifted to u8, see kFlip).
struct LowpDirectTile {
  int mr;
  int nr;
  // Cycles per group step and column tile the interleaving costs (the model's figure).
  double shuffle_cycles;
  std::array<LowpDirectFn, kMaxMr> fn{};
  std::array<LowpDirectFn, kMaxMr> fn_swapped{};
  std::array<LowpDirectFn, kMaxMr> fn_swapped_flip{};
  LowpDirectFn get(int m, bool swapped = false, bool flip = false) const noexcept {
    const auto i = static_cast<std::size_t>(m - 1);
    return swapped ? (flip ? fn_swapped_flip[i] : fn_swapped[i]) : fn[i];
  }
};

// Dot-product kernels for an m x n tile (m <= kLowpDotMr, n <= kLowpDotNr) whose A rows and B
// columns are both contiguous along k (B stored N x K, the weight layout of most frameworks):
// 64 bytes of each row and column a step (32 bf16 or 64 int8 values), one accumulator vector
// per output, one horizontal sum per output at the end. Nothing is packed: B is read once, in
// order, as n streams. Same C contract as LowpDirectArgs.
// int8: exactly one operand is the u8 side (vpdpbusd's unsigned operand), `flip` xors its
// bytes with 0x80 (an s8 shifted to u8); colsum, when not null, receives (adds) the sums of B's
// columns as the kernel reads them (for the zero-point compensation of A).
struct LowpDotArgs {
  int64_t k;
  const void* a;  // row i at a + i * lda elements
  int64_t lda;
  const void* b;  // column j of op(B) at b + j * ldb elements
  int64_t ldb;
  void* c;
  int64_t ldc;
  float alpha, beta;
  std::int32_t ibeta;
  std::int32_t* colsum;
  const void* b_next = nullptr;  // as DotArgs::b_next, b_next_cols
  int b_next_cols = 0;
};
using LowpDotFn = void (*)(const LowpDotArgs&);
inline constexpr int kLowpDotMr = 4;
inline constexpr int kLowpDotNr = 4;
// Per variant (bf16: one; int8: A the u8 side or B, each with or without the flip) an m x n
// table.
struct LowpDotKernels {
  using Table = std::array<std::array<LowpDotFn, kLowpDotNr>, kLowpDotMr>;
  Table fn{};               // bf16; int8 with A the u8 side
  Table fn_flip{};          // int8: A the u8 side, flipped
  Table fn_swapped{};       // int8: B the u8 side
  Table fn_swapped_flip{};  // int8: B the u8 side, flipped
  LowpDotFn get(int m, int n, bool swapped = false, bool flip = false) const noexcept {
    const Table& t = swapped ? (flip ? fn_swapped_flip : fn_swapped) : (flip ? fn_flip : fn);
    return t[static_cast<std::size_t>(m - 1)][static_cast<std::size_t>(n - 1)];
  }
};

// Everything one low-precision path offers.
struct LowpKernels {
  DType dtype;
  Isa isa;           // the level whose fp32 kernels and post-ops it runs with
  const char* name;  // "avx512-bf16", "avx512-vnni", "fp32-convert", "int32-generic"
  int group;         // k values per 32-bit group: 2, 4 or 1
  int lanes;         // 32-bit lanes per vector of the kernels
  // Multiply-adds one kernel instruction does per lane (2 for vdpbf16ps, 4 for vpdpbusd, 1
  // for an fp32 FMA); the model's peak is fma issue rate x lanes x this.
  double macs_per_lane;
  std::span<const LowpTile> tiles;
  LowpPackAFn pack_a;
  LowpPackBFn pack_b;
  // bf16 C: out[j] = bf16(acc[j] + beta * out[j]) for j < n, rounded to nearest even (beta == 0
  // does not read out). Null: the executor's portable loop.
  void (*round_bf16)(const float* acc, std::uint16_t* out, int64_t n, float beta);
  // In-place B kernels (native AVX512-BF16 and AVX512-VNNI paths); null where there are none.
  const LowpDirectTile* direct_b = nullptr;
  // Dot-product kernels (native AVX512-BF16 and AVX512-VNNI paths); null where there are none.
  const LowpDotKernels* dot = nullptr;
};

}  // namespace adaptcore::kernels
