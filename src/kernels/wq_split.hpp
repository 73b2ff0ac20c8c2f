// The scalar decisions of the activation split (docs/QUANT.md), shared by the portable and the
// native quantizers so that both give identical bits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace adaptcore::kernels {

// A group whose maximum, in the row's scaled units (row maximum in [1, 2)), is below this is
// flushed to zero: 127 / r would approach fp32's range, and its values are at most 2^-96 of
// the row's maximum.
inline constexpr float kWqFlushBelow = 0x1p-96f;

// The power-of-two rescaling of a row with maximum |x| = rmax > 0 (finite): up = 2^E brings the
// maximum into [1, 2) (|E| <= 126, so subnormal rows land in [2^-23, 2) and every scale below
// stays a normal number); row_factor = 2^-E undoes it in the epilogue. Both are exact powers
// of two.
inline void wq_row_scaling(float rmax, float& up, float& row_factor) noexcept {
  const int e = std::clamp(-std::ilogb(rmax), -126, 126);
  up = std::ldexp(1.0f, e);
  row_factor = std::ldexp(1.0f, -e);
}

// Scales of one group with maximum r (scaled units, r >= kWqFlushBelow): s1 = r / 127 and the
// multipliers inv1 = 127 / r, inv2 = 256 inv1 used to round x / s1 and e / s2; the scale the
// epilogue multiplies by is s2 = s1 / 256 (two parts, exact: a power of two) or s1 (one part).
struct WqGroupScales {
  float s1, inv1, inv2, epilogue;
};
inline WqGroupScales wq_group_scales(float r, int parts) noexcept {
  WqGroupScales g;
  g.s1 = r / 127.0f;
  g.inv1 = 127.0f / r;
  g.inv2 = g.inv1 * 256.0f;
  g.epilogue = parts == 2 ? g.s1 * 0x1p-8f : g.s1;
  return g;
}

// The storage offset's contribution to a group's raw dot products, modulo 2^32.
inline std::int32_t wq_compensation(int offset, int parts, std::int32_t sum1,
                                    std::int32_t sum2) noexcept {
  const std::uint32_t s =
      parts == 2 ? (static_cast<std::uint32_t>(sum1) << 8) + static_cast<std::uint32_t>(sum2)
                 : static_cast<std::uint32_t>(sum1);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(offset) * s);
}

}  // namespace adaptcore::kernels
