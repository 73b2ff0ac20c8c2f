// The state behind adaptcore::QuantizedWeights: weights packed once for the weight-quantized
// kernels, with their scales (docs/QUANT.md, "Packed layout").
//
// Weights are stored with an offset so that vpdpbusd reads them as its unsigned operand:
// int8 w in [-128, 127] as u8 = w + 128, int4 w in [-8, 7] as u4 = w + 8. Depth is padded to
// whole quads (4 consecutive k, one 32-bit lane group) and columns to panels of kWqNr = 32;
// padding holds w = 0 (u8 128 / u4 8), which meets zero activations and adds nothing.
//   int8 panel: quad q of column j at byte q * 128 + j * 4 + t (t = 0..3 the k inside the quad):
//               one quad of the panel is two 64-byte vectors (columns 0-15, 16-31).
//   int4 panel: quad q at bytes q * 64 .. q * 64 + 63; byte j * 4 + t holds column j in its low
//               nibble and column j + 16 in its high nibble: one 64-byte load gives both
//               16-column vectors after `and 0x0F` and `srli 4, and 0x0F`.
// Scales: per column, col_scale[panel * 32 + j]; per group, group_scale[(panel * groups + g) *
// 32 + j] (padded columns 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "adaptcore/adaptcore.hpp"
#include "core/aligned_array.hpp"

namespace adaptcore {

inline constexpr int kWqNr = 32;             // columns per weight panel
inline constexpr int64_t kWqMaxGroup = 256;  // int32 safety of the two-part combine
// K-group of the activation split when the weight scales are per column: its maximum sets the
// error, and 32 is more accurate than 64 at the same speed (docs/QUANT.md, "The activation
// split").
inline constexpr int64_t kWqColumnActGroup = 32;

}  // namespace adaptcore

namespace adaptcore::detail {

struct QuantizedWeightsImpl {
  int64_t k = 0, n = 0;
  WeightFormat format = WeightFormat::Int8;
  int64_t group_size = 0;       // the weights' (0: per column)
  int64_t act_group = 0;        // the activation split's K-group: group_size, or kWqColumnActGroup
  int64_t quads = 0;            // ceil(k / 4)
  int64_t groups = 0;           // ceil(k / act_group)
  int64_t panels = 0;           // ceil(n / 32)
  std::size_t panel_bytes = 0;  // quads * 128 (int8) or quads * 64 (int4)
  std::unique_ptr<std::uint8_t, FreeDeleter> packed;  // panels * panel_bytes, 64-byte aligned
  std::unique_ptr<float, FreeDeleter> col_scale;      // per column: panels * 32; else null
  std::unique_ptr<float, FreeDeleter> group_scale;    // per group: panels * groups * 32; else null

  bool int4() const noexcept { return format == WeightFormat::Int4; }
  std::uint8_t offset() const noexcept { return int4() ? 8 : 128; }
  const std::uint8_t* panel(int64_t p) const noexcept {
    return packed.get() + static_cast<std::size_t>(p) * panel_bytes;
  }
  std::size_t packed_size() const noexcept {
    return static_cast<std::size_t>(panels) * panel_bytes;
  }
};

}  // namespace adaptcore::detail
