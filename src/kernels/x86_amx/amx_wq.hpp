// Weight-quantized GEMM (W8A16 / W4A16, docs/QUANT.md) on the AMX int8 unit, written once over
// an Ops type (the instructions, amx_ops_native.hpp; the scalar model, tile_model.hpp): the
// activation parts times the stored weights by TDPBSUD (the parts signed, the weights' stored
// u8 = w + 128 or u4 = w + 8 unsigned), in sub-blocks of kWqTileQuads quads; at the end of
// each activation group the int32 sums go through the vector kernels' combine, in their order
// (t = (P1 << 8) + P2 - comp, converted, times the weights' group scale, fused multiply-add
// with the row's scale), so the fp32 sums are the same bits as theirs; then their output op.
//
// Tiles: C 0-3 (part x 16-column half), A 4-5 (a part's 16 rows x 8 quads: 32 bytes a row), B
// 6-7 (8 quads x a half's 16 columns: 64 bytes a row), shaped by wq_shapes(). The int8
// panel is read in place (a half's rows are 128 bytes apart); int4 panels, and a last
// sub-block past the panel's quads, are staged widened or zero-padded.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/wq.hpp"
#include "kernels/wq_combine.hpp"
#include "kernels/x86_amx/amx_block.hpp"

namespace adaptcore::kernels::amx {

inline constexpr int kWqTileQuads = 8;  // quads per tile product (activation groups of 32 k)
inline constexpr int kWqTileRows = 16;

// The configuration of these kernels: C 16 rows of 64 bytes, A 16 rows of 8 quads (32 bytes),
// B 8 quads of 64 bytes.
constexpr TileShapes wq_shapes() noexcept {
  TileShapes s;
  for (std::size_t t = 0; t < 4; ++t) s.rows[t] = kTileRows, s.colsb[t] = kTileBytes;
  for (std::size_t t = 4; t < 6; ++t) s.rows[t] = kWqTileRows, s.colsb[t] = kWqTileQuads * 4;
  for (std::size_t t = 6; t < 8; ++t) s.rows[t] = kWqTileQuads, s.colsb[t] = kTileBytes;
  return s;
}

template <class Ops>
struct WqEngine {
  // Sub-block `s` (quads q0 .. q0 + 7 of the call) of one group: B tiles from the panel, the
  // products into the C tiles.
  template <int P, bool INT4>
  static void sub_block(Ops& ops, const WqArgs& a, int64_t q0, const std::int8_t* parts) {
    const int64_t live = std::min<int64_t>(kWqTileQuads, a.quads - q0);
    alignas(64) std::uint8_t staged[2][kWqTileQuads * 64];
    if (INT4 || live < kWqTileQuads) {
      std::memset(staged, 0, sizeof staged);
      for (int64_t r = 0; r < live; ++r)
        for (int x = 0; x < 64; ++x) {
          if constexpr (INT4) {
            const std::uint8_t b = a.w[(q0 + r) * 64 + x];
            staged[0][r * 64 + x] = b & 0x0F;
            staged[1][r * 64 + x] = b >> 4;
          } else {
            staged[0][r * 64 + x] = a.w[(q0 + r) * 128 + x];
            staged[1][r * 64 + x] = a.w[(q0 + r) * 128 + 64 + x];
          }
        }
      ops.template load<6>(staged[0], 64, kWqTileQuads, 64);
      ops.template load<7>(staged[1], 64, kWqTileQuads, 64);
    } else {
      ops.template load<6>(a.w + q0 * 128, 128, kWqTileQuads, 64);
      ops.template load<7>(a.w + q0 * 128 + 64, 128, kWqTileQuads, 64);
    }
    // The parts' tiles of this sub-block: kWqTileRows rows of 32 bytes each (WqTileA's engine
    // layout), part t after part t - 1.
    const std::int64_t part_bytes = std::int64_t{a.a.mr} * kWqTileQuads * 4;
    ops.template load<4>(parts, kWqTileQuads * 4, kWqTileRows, kWqTileQuads * 4);
    ops.template dot<Dot::S8U8, 0, 4, 6>();
    ops.template dot<Dot::S8U8, 1, 4, 7>();
    if constexpr (P == 2) {
      ops.template load<5>(parts + part_bytes, kWqTileQuads * 4, kWqTileRows, kWqTileQuads * 4);
      ops.template dot<Dot::S8U8, 2, 5, 6>();
      ops.template dot<Dot::S8U8, 3, 5, 7>();
    }
  }

  // An M x 32 tile (M = 1..16) of P activation parts against int8 or int4 weights.
  template <int P, bool INT4>
  struct Tile {
    template <int M>
    static void kernel(const WqArgs& a) noexcept {
      Ops ops(wq_shapes());
      alignas(64) float acc[M][32];
      wq_begin_block(M, &acc[0][0], a);
      const std::int64_t sub_bytes = std::int64_t{a.a.mr} * P * kWqTileQuads * 4;
      const int64_t groups = (a.quads + a.quads_per_group - 1) / a.quads_per_group;
      for (int64_t g = 0; g < groups; ++g) {
        ops.template zero<0>();
        ops.template zero<1>();
        if constexpr (P == 2) {
          ops.template zero<2>();
          ops.template zero<3>();
        }
        const int64_t q_end = std::min(a.quads, (g + 1) * a.quads_per_group);
        for (int64_t q0 = g * a.quads_per_group; q0 < q_end; q0 += kWqTileQuads)
          sub_block<P, INT4>(ops, a, q0, a.a.parts + q0 / kWqTileQuads * sub_bytes);
        // The group's int32 sums (part, row, column), then the vector kernels' combine.
        alignas(64) std::uint32_t raw[P][kWqTileRows][32];
        ops.template store<0>(&raw[0][0][0], 128);
        ops.template store<1>(&raw[0][0][16], 128);
        if constexpr (P == 2) {
          ops.template store<2>(&raw[1][0][0], 128);
          ops.template store<3>(&raw[1][0][16], 128);
        }
        const float* gs = a.w_group_scale != nullptr ? a.w_group_scale + g * 32 : nullptr;
        for (int i = 0; i < M; ++i)
          wq_combine_row<P>(raw[0][i], raw[P - 1][i],
                            static_cast<std::uint32_t>(a.a.comp[g * a.a.mr + i]),
                            a.a.scale[g * a.a.mr + i], gs, acc[i]);
      }
      wq_end_block(M, &acc[0][0], a);
    }
  };
};

}  // namespace adaptcore::kernels::amx
