// The scalar steps of the weight-quantized kernels that keep their int32 sums outside vector
// registers (the portable kernel, the AMX one): a finished group's combine into the fp32 sums
// and the output op of a finished tile. The vector kernel (x86_avx512_vnni/wq_vnni.cpp) does the
// same operations in the same order, so every path gives the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/generic/vec_generic.hpp"
#include "kernels/tile_epilogue.hpp"
#include "kernels/wq.hpp"

namespace adaptcore::kernels {

// The m x 32 fp32 sums at the start of a depth block: carried from the block before
// (WqArgs::resume), else zero.
inline void wq_begin_block(int m, float* acc, const WqArgs& a) noexcept {
  if (a.resume)
    std::memcpy(acc, a.partial, static_cast<std::size_t>(m) * 32 * sizeof(float));
  else
    std::memset(acc, 0, static_cast<std::size_t>(m) * 32 * sizeof(float));
}

// One row of a finished activation group into its 32 fp32 sums: t = (P1 << 8) + P2 - comp (P1
// - comp for one part; modulo 2^32, exact for groups of at most 256), converted, times the
// weights' group scale (gs, or null), a fused multiply-add with the row's scale s. p1 / p2: the
// row's 32 int32 sums of each part (p2 unused for one part).
template <int P>
inline void wq_combine_row(const std::uint32_t* p1, const std::uint32_t* p2, std::uint32_t comp,
                           float s, const float* gs, float* acc) noexcept {
  for (int j = 0; j < 32; ++j) {
    const std::uint32_t t = (P == 2 ? (p1[j] << 8) + p2[j] : p1[j]) - comp;
    float f = static_cast<float>(static_cast<std::int32_t>(t));
    if (gs != nullptr) f *= gs[j];
    acc[j] = std::fma(f, s, acc[j]);
  }
}

// The output op (kernels/tile_epilogue.hpp) of an m x 32 tile's sums (row i at acc + 32 i),
// value by value: column scale, row factor, beta C.
inline void wq_store_rows(int m, const float* acc, const WqArgs& a) noexcept {
  const DequantizedOutput<VecGeneric> out(a.w_col_scale, a.a.row_factor, a.beta);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < a.n; ++j) {
      float& c = a.c[i * a.c_rs + j * a.c_cs];
      const float v = acc[i * 32 + j];
      c = out.needs_source() ? out.at(v, c, i, j) : out.at(v, i, j);
    }
}

// The end of a depth block: carry the sums to the next (a block before the last), or the
// output op.
inline void wq_end_block(int m, const float* acc, const WqArgs& a) noexcept {
  if (!a.finish)
    std::memcpy(a.partial, acc, static_cast<std::size_t>(m) * 32 * sizeof(float));
  else
    wq_store_rows(m, acc, a);
}

}  // namespace adaptcore::kernels
