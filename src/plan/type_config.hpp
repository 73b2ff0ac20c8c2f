// The per-type configuration of the one planning pipeline (taxonomy -> candidates -> model ->
// plan): what the planner and the model know of one data type's kernels on one ISA path. It is
// built from a kernel table (the fp32 IsaKernels or a low-precision LowpKernels) and the
// hardware profile; nothing downstream asks which data type it is planning, only what the
// kernels can do and at which rate.
#pragma once

#include <array>
#include <cstdint>

#include "adaptcore/hardware.hpp"
#include "core/dtype.hpp"
#include "kernels/lowp.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore {

struct TileShape {
  int mr = 0, nr = 0;
  // Its vectors: 32-bit lanes and kernel instructions per cycle and core. 0: the type's own
  // (TypeConfig::lanes, instr_per_cycle); a narrow tile of a wide path sets both.
  int lanes = 0;
  double instr_per_cycle = 0.0;
  // Its kernels can also store C transposed (Plan::transpose_c).
  bool transposed_c = false;
  // A matrix-engine tile (kernels::EngineTile): whole 16-row tiles per product whatever the
  // rows used, operands fed from the caches by tile loads, A packed by its own packer (never as
  // words), B by its own or prepacked panels read at depths of whole blocks, depth padded to
  // whole blocks of this many groups. lanes and instr_per_cycle then count a tile product as the
  // 256 vector instructions (16 rows x 16 depth steps of one 16-lane vector) it replaces.
  bool engine = false;
  int depth_block = 1;
  bool exists() const noexcept { return mr > 0; }
};

struct TypeConfig {
  DType dtype = DType::F32;
  Isa isa = Isa::Generic;
  int in_bytes = 4;  // bytes of one element of op(A) and op(B) as the caller stores them
  int group = 1;     // k values per 32-bit word of a packed panel (fp32 1, bf16 2, int8 4)
  int lanes = 4;     // 32-bit lanes per vector register of the kernels
  double macs_per_lane = 1.0;    // multiply-adds per lane of one kernel instruction
  double instr_per_cycle = 2.0;  // kernel instructions (FMA or dot product) per cycle and core
  double latency_cycles = 4.0;   // one accumulator's update latency
  // A tile of fewer than this many vectors spreads its depth steps over that many chains of
  // accumulators (kernels::kChainVectors for fp32; the low-precision tiles keep one chain).
  double chained_vectors = 1.0;
  static constexpr int kMaxTiles = 8;
  std::array<TileShape, kMaxTiles> tiles{};  // register tiles, largest first
  int tile_count = 0;

  // The options the kernels offer, which the candidates combine.
  bool in_place_a = false;   // register tiles read A unpacked (row- or column-contiguous)
  bool in_place_b = false;   // register tiles read row-major B unpacked
  bool split_k = false;      // partial sums over K reduced by the executor
  bool padded_tail = false;  // edge tiles computed in full on padded panels
  bool prefetch_b = false;   // the executor can prefetch in-place B's next depth block
  // The packing rate of a packer that transposes (A stored row-major, B column-major), as a
  // share of the profile's rate: the fp32 packers gather strided columns (half the rate); the
  // group packers read k-consecutive runs either way.
  double transposing_pack_share = 1.0;
  // The same for the blocked plans' packed B (op(B) stored transposed, or op(A)^T of a
  // transposed plan): the AVX-512 B packer transposes 16 columns in registers.
  double transposing_pack_b_share = 1.0;
  // A separate in-place-B tile (low precision: it interleaves B's rows in registers), with
  // the cycles its interleaving adds per group step and column tile, and the most rows of C
  // it is offered for.
  TileShape direct_b{};
  double direct_b_cycles = 0.0;
  int64_t direct_b_max_m = 0;
  TileShape dot{};  // dot-product tile (A rows and B columns contiguous along k)
  // Dot plans may pack a narrow B (at most kDotPackMaxN columns, rows contiguous) transposed,
  // so its columns become contiguous along k: C's few columns then no longer waste the
  // register tiles' lanes, K fills them.
  bool dot_pack_b = false;
  // Cycles per element of that copy (kernels::TransposeFn): element by element 2; AVX-512
  // transposes 16 rows in registers.
  double dot_pack_cycles = 2.0;
  bool rows = false;  // the rank-k row kernel (fp32 paths)
  static constexpr int64_t kDotPackMaxN = 16;

  // Bytes a packed panel holds per k value and row or column (4 bytes a group).
  double packed_bytes_per_k() const noexcept { return 4.0 / group; }
  double macs_per_cycle() const noexcept { return instr_per_cycle * lanes * macs_per_lane; }
  // The kernels' peak of one core in GFLOP/s (GOP/s for int8): two operations a multiply-add.
  double peak_gops_per_core(const HardwareProfile& hw) const noexcept {
    return 2.0 * macs_per_cycle() * hw.freq_ghz;
  }
  const TileShape& tile(int i) const noexcept { return tiles[static_cast<std::size_t>(i)]; }
  // k values of one whole depth block of a tile (its depth_block groups).
  int64_t depth_unit(const TileShape& t) const noexcept { return int64_t{t.depth_block} * group; }
  int lanes_of(const TileShape& t) const noexcept { return t.lanes > 0 ? t.lanes : lanes; }
  double rate_of(const TileShape& t) const noexcept {
    return t.instr_per_cycle > 0.0 ? t.instr_per_cycle : instr_per_cycle;
  }
};

// The configuration of the fp32 kernels of a path, and of a low-precision table.
TypeConfig type_config(const kernels::IsaKernels& ks, const HardwareProfile& hw) noexcept;
TypeConfig type_config(const kernels::LowpKernels& ks, const HardwareProfile& hw) noexcept;

}  // namespace adaptcore
