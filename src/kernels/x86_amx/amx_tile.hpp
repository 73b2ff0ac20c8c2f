// The AMX tile as a low-precision tile of the registry (kernels/lowp.hpp: LowpTile with its
// EngineTile), built over an Ops type: the instructions (amx_kernels.cpp, the amx level) or the
// scalar model (tests, on every host, through the same packers, executor and epilogues).
//
// One tile shape: 16 rows x 64 columns, four C tiles, one A tile and two B tiles used in turn
// (amx_block.hpp, TM = 1, TN = 4). Per block of 16 groups it loads 1 KiB of A and 4 KiB of B
// for four tile products; in the executor's loop order (column tiles outer, row tiles inner)
// the B sliver is the one the row tiles share, from L1 where the depth block lets it fit, and
// A comes from L2 at a quarter of B's rate.
#pragma once

#include <cstdint>

#include "kernels/kernel_tables.hpp"
#include "kernels/lowp.hpp"
#include "kernels/x86_amx/amx_block.hpp"
#include "kernels/x86_amx/amx_layout.hpp"

namespace adaptcore::kernels::amx {

inline constexpr int kEngineMr = 16, kEngineTn = 4, kEngineNr = 16 * kEngineTn;

// The block kernel as a LowpFn family (one function per row count M).
template <Dot D, class Ops>
struct EngineKernel {
  template <int M>
  static void kernel(const LowpArgs& x) noexcept {
    Ops ops(block_shapes());
    BlockArgs b;
    b.groups = x.groups, b.a = x.a, b.b = x.b, b.c = x.c, b.ldc = x.ldc;
    b.alpha = x.alpha, b.beta = x.beta, b.ibeta = x.ibeta, b.m = M, b.n = x.n;
    block<D, 1, kEngineTn>(ops, b);
  }
};

// The tile of bf16 (Int8 false) or int8 inputs: `fn` reads A as u8 and B as s8 (TDPBUSD),
// `fn_swapped` the opposite (TDPBSUD, a column-major C's swap); bf16 has no signedness.
template <bool Int8, class Ops>
constexpr LowpTile engine_tile(const EngineTile* engine) {
  LowpTile t{};
  t.mr = kEngineMr;
  t.nr = kEngineNr;
  t.fn = row_table<LowpFn, EngineKernel<Int8 ? Dot::U8S8 : Dot::Bf16, Ops>, kEngineMr>();
  t.fn_swapped = row_table<LowpFn, EngineKernel<Int8 ? Dot::S8U8 : Dot::Bf16, Ops>, kEngineMr>();
  t.engine = engine;
  return t;
}

}  // namespace adaptcore::kernels::amx
