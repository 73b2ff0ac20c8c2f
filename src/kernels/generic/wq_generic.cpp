// The portable weight-quantized path: the activation split in scalar code and an int32 kernel
// over the same packed layouts as the vpdpbusd one, exact in the same way (unsigned 32-bit
// accumulation, modulo 2^32). Used where the CPU lacks AVX512-VNNI.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/generic/tables.hpp"
#include "kernels/wq.hpp"
#include "kernels/wq_combine.hpp"
#include "kernels/wq_split.hpp"
#include "kernels/wq_tables.hpp"

namespace adaptcore::kernels {
namespace {

// Zeros for the parts of quads [q0, q1) of the row.
void zero_quads(const WqQuantizeArgs& a, int64_t q0, int64_t q1) {
  for (int64_t q = q0; q < q1; ++q)
    for (int t = 0; t < a.parts; ++t)
      std::memset(a.parts_out + wq_part_offset(q, a.row, t, a.mr, a.parts, a.tile_quads), 0, 4);
}

void zero_row(const WqQuantizeArgs& a, float row_factor) {
  const int64_t groups = (a.k + a.group - 1) / a.group;
  zero_quads(a, 0, wq_tile_quads(a.k, a.tile_quads));
  for (int64_t g = 0; g < groups; ++g) {
    a.scale_out[g * a.mr + a.row] = 0.0f;
    a.comp_out[g * a.mr + a.row] = 0;
  }
  a.row_factor_out[a.row] = row_factor;
}

// An M x 32 tile (M = 1..kWqMaxMr) of P activation parts against int8 or int4 weights.
template <int P, bool INT4>
struct Tile {
  template <int M>
  static void kernel(const WqArgs& a) {
    float acc[M][32];
    wq_begin_block(M, &acc[0][0], a);
    const int64_t groups = (a.quads + a.quads_per_group - 1) / a.quads_per_group;
    for (int64_t g = 0; g < groups; ++g) {
      std::uint32_t raw[M][P][32] = {};
      const int64_t q1 = std::min(a.quads, (g + 1) * a.quads_per_group);
      for (int64_t q = g * a.quads_per_group; q < q1; ++q) {
        for (int j = 0; j < 32; ++j) {
          for (int t = 0; t < 4; ++t) {
            std::uint32_t u;
            if constexpr (INT4) {
              const std::uint8_t b = a.w[q * 64 + (j % 16) * 4 + t];
              u = j < 16 ? (b & 0x0Fu) : (b >> 4);
            } else {
              u = a.w[q * 128 + j * 4 + t];
            }
            for (int i = 0; i < M; ++i)
              for (int p = 0; p < P; ++p) {
                const std::int8_t s = a.a.parts[((q * a.a.mr + i) * P + p) * 4 + t];
                raw[i][p][j] += u * static_cast<std::uint32_t>(static_cast<std::int32_t>(s));
              }
          }
        }
      }
      const float* gs = a.w_group_scale != nullptr ? a.w_group_scale + g * 32 : nullptr;
      for (int i = 0; i < M; ++i)
        wq_combine_row<P>(raw[i][0], raw[i][P - 1],
                          static_cast<std::uint32_t>(a.a.comp[g * a.a.mr + i]),
                          a.a.scale[g * a.a.mr + i], gs, acc[i]);
    }
    wq_end_block(M, &acc[0][0], a);
  }
};

}  // namespace

void wq_quantize_portable(const WqQuantizeArgs& a) noexcept {
  float rmax = 0.0f, poison = 0.0f;
  for (int64_t p = 0; p < a.k; ++p) {
    rmax = std::max(rmax, std::fabs(a.x[p]));
    poison += a.x[p] * 0.0f;  // NaN when the row holds an inf or a NaN
  }
  if (poison != 0.0f || std::isnan(poison))
    return zero_row(a, std::numeric_limits<float>::quiet_NaN());
  if (rmax == 0.0f) return zero_row(a, 0.0f);
  float up = 1.0f, row_factor = 1.0f;
  wq_row_scaling(rmax, up, row_factor);
  const int64_t padded = (a.k + 3) / 4 * 4;
  for (int64_t p0 = 0, g = 0; p0 < a.k; p0 += a.group, ++g) {
    const int64_t p1 = std::min(a.k, p0 + a.group), pend = std::min(padded, p0 + a.group);
    float r = 0.0f;
    for (int64_t p = p0; p < p1; ++p) r = std::max(r, std::fabs(a.x[p] * up));
    const bool flushed = r < kWqFlushBelow;
    const WqGroupScales s = wq_group_scales(flushed ? 1.0f : r, a.parts);
    std::int32_t sum1 = 0, sum2 = 0;
    for (int64_t p = p0; p < pend; ++p) {
      float v1 = 0.0f, v2 = 0.0f;
      if (p < p1 && !flushed) {
        const float y = a.x[p] * up;
        v1 = std::clamp(std::nearbyint(y * s.inv1), -127.0f, 127.0f);
        const float e = std::fma(-v1, s.s1, y);
        v2 = std::clamp(std::nearbyint(e * s.inv2), -127.0f, 127.0f);
      }
      const int64_t q = p / 4, t = p % 4;
      a.parts_out[wq_part_offset(q, a.row, 0, a.mr, a.parts, a.tile_quads) + t] =
          static_cast<std::int8_t>(v1);
      sum1 += static_cast<std::int32_t>(v1);
      if (a.parts == 2) {
        a.parts_out[wq_part_offset(q, a.row, 1, a.mr, a.parts, a.tile_quads) + t] =
            static_cast<std::int8_t>(v2);
        sum2 += static_cast<std::int32_t>(v2);
      }
    }
    a.scale_out[g * a.mr + a.row] = flushed ? 0.0f : s.epilogue;
    a.comp_out[g * a.mr + a.row] = wq_compensation(a.offset, a.parts, sum1, sum2);
  }
  zero_quads(a, padded / 4, wq_tile_quads(a.k, a.tile_quads));  // an engine layout's padding
  a.row_factor_out[a.row] = row_factor;
}

constexpr WqKernels kGeneric =
    make_wq_kernels<Tile>("int32-generic", Isa::Generic, 0, 4, 6, &wq_quantize_portable);

const WqKernels& wq_generic_kernels() noexcept { return kGeneric; }

}  // namespace adaptcore::kernels
