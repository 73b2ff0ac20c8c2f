// The AMX tiles on the instructions: the block kernels of amx_block.hpp over NativeOps, the
// packers of amx_layout.hpp (B's rows by the avx512 levels' packers, then the padding), and the
// tile configuration per task. Compiled with the AMX and AVX-512 flags (level.cmake); runs only
// where the amx level is the context's and the process holds the tile permission
// (dispatch/kernel_select.cpp asks hw/amx_support.hpp first).
#include <cstdint>

#include "kernels/wq_tables.hpp"
#include "kernels/x86_amx/amx_ops_native.hpp"
#include "kernels/x86_amx/amx_tile.hpp"
#include "kernels/x86_amx/amx_wq.hpp"
#include "kernels/x86_amx/tables.hpp"
#include "kernels/x86_avx512_bf16/tables.hpp"
#include "kernels/x86_avx512_vnni/tables.hpp"

namespace {

using namespace adaptcore::kernels;

void pack_b_bf16_rows(int64_t k, int64_t n, const void* b, int64_t rs, int64_t cs, int nr,
                      unsigned flags, std::uint32_t* out, std::int32_t* colsum) {
  bf16_avx512_kernels().pack_b(k, n, b, rs, cs, nr, flags, out, colsum);
}
void pack_b_int8_rows(int64_t k, int64_t n, const void* b, int64_t rs, int64_t cs, int nr,
                      unsigned flags, std::uint32_t* out, std::int32_t* colsum) {
  int8_vnni_kernels().pack_b(k, n, b, rs, cs, nr, flags, out, colsum);
}

// The thread's tile state around each task (amx::ThreadTiles): ours loaded where it differs,
// the thread's given back after.
void begin_task() noexcept { amx::ThreadTiles::begin(amx::config_of(amx::block_shapes())); }
void begin_wq_task() noexcept { amx::ThreadTiles::begin(amx::config_of(amx::wq_shapes())); }
void end_task() noexcept { amx::ThreadTiles::end(); }

constexpr EngineTile kBf16Engine{&amx::pack_a_panels<std::uint16_t>,
                                 &amx::pack_b_panels<std::uint16_t, &pack_b_bf16_rows>,
                                 amx::kGroupsPerBlock, &begin_task, &end_task};
constexpr EngineTile kInt8Engine{&amx::pack_a_panels<std::uint8_t>,
                                 &amx::pack_b_panels<std::uint8_t, &pack_b_int8_rows>,
                                 amx::kGroupsPerBlock, &begin_task, &end_task};

constexpr LowpTile kBf16Tile = amx::engine_tile<false, amx::NativeOps>(&kBf16Engine);
constexpr LowpTile kInt8Tile = amx::engine_tile<true, amx::NativeOps>(&kInt8Engine);

// Weight-quantized: the engine's kernels (the split by the avx512_vnni quantizer in the
// engine's layout and the level below's kernels are set by config.cpp, at run time).
template <int P, bool INT4>
using WqTile = amx::WqEngine<amx::NativeOps>::Tile<P, INT4>;
constexpr WqKernels kWq = [] {
  WqKernels k = make_wq_kernels<WqTile, amx::kWqTileRows>(
      "amx", adaptcore::Isa::Avx512, 512, amx::kWqTileRows, amx::kWqTileRows, nullptr);
  k.engine = true;
  k.tile_quads = amx::kWqTileQuads;
  k.begin = &begin_wq_task;
  k.end = &end_task;
  return k;
}();

}  // namespace

namespace adaptcore::kernels {
const LowpTile& amx_bf16_tile() noexcept { return kBf16Tile; }
const LowpTile& amx_int8_tile() noexcept { return kInt8Tile; }
const WqKernels& amx_wq_kernels() noexcept { return kWq; }
}  // namespace adaptcore::kernels
