// The amx level (AMX-TILE, AMX-BF16 and AMX-INT8 on top of avx512_bf16): the bf16 and int8
// tables of the level below with the engine's tile added, so that the model chooses per shape
// between the tile unit and the vector tiles, the in-place and dot-product kernels (decode
// streams its weights at the same rate either way). Weight-quantized GEMM likewise: the
// engine's kernels with the avx512_vnni ones beside them (WqKernels::below). fp32 stays the
// levels' below.
#include <algorithm>
#include <array>

#include "kernels/registry_entry.hpp"
#include "kernels/x86_amx/tables.hpp"
#include "kernels/x86_avx512_bf16/tables.hpp"
#include "kernels/x86_avx512_vnni/tables.hpp"

namespace adaptcore::kernels {
namespace {

constexpr std::size_t kMaxTiles = 4;

// `below` with `tile` after its own tiles, its tiles kept in `storage`.
LowpKernels with_engine_tile(const LowpKernels& below, const LowpTile& tile, const char* name,
                             std::array<LowpTile, kMaxTiles>& storage) noexcept {
  const std::size_t own = std::min(below.tiles.size(), kMaxTiles - 1);
  std::copy_n(below.tiles.begin(), own, storage.begin());
  storage[own] = tile;
  LowpKernels ks = below;
  ks.name = name;
  ks.tiles = std::span<const LowpTile>(storage.data(), own + 1);
  return ks;
}

}  // namespace

const Level& level_amx() noexcept {
  static std::array<LowpTile, kMaxTiles> bf16_tiles{}, int8_tiles{};
  static const LowpKernels bf16 =
      with_engine_tile(bf16_avx512_kernels(), amx_bf16_tile(), "amx-bf16", bf16_tiles);
  static const LowpKernels int8 =
      with_engine_tile(int8_vnni_kernels(), amx_int8_tile(), "amx-int8", int8_tiles);
  static const WqKernels wq = [] {
    WqKernels k = amx_wq_kernels();
    k.quantize = wq_vnni_kernels().quantize;  // it writes the engine's layout (tile_quads)
    k.below = &wq_vnni_kernels();
    return k;
  }();
  static const Level level{Isa::Amx, nullptr, &bf16, &int8, &wq};
  return level;
}

}  // namespace adaptcore::kernels
