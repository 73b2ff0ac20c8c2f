// The AMX tile-product probe: four independent accumulator tiles, each updated by TDPBF16PS from
// operand tiles that stay loaded, so nothing but the unit's product rate bounds the loop (the
// figure the model's amx_tiles_per_cycle holds). Compiled with the AMX flags where the compiler
// has them (CMakeLists.txt); runs only where amx_support() granted the tile state.
#include <cstdint>

#include "measure/peak_loops.hpp"

#if defined(ADAPTCORE_MEASURE_HAS_AMX)
#include <immintrin.h>

#include "hw/amx_support.hpp"
#endif

namespace adaptcore::measure::loops {

std::uint64_t amx_bf16_tiles(std::uint64_t iters) noexcept {
#if defined(ADAPTCORE_MEASURE_HAS_AMX)
  if (iters == 0 || !amx_support().usable()) return 0;
  struct alignas(64) Config {
    std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
    std::uint16_t colsb[16] = {};
    std::uint8_t rows[16] = {};
  } cfg;
  for (int t = 0; t < 8; ++t) cfg.colsb[t] = 64, cfg.rows[t] = 16;
  alignas(64) static const std::uint16_t operand[16 * 32] = {};  // zeros: no denormal slow path
  _tile_loadconfig(&cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, operand, 64);
  _tile_loadd(5, operand, 64);
  _tile_loadd(6, operand, 64);
  _tile_loadd(7, operand, 64);
  for (std::uint64_t i = 0; i < iters; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_release();
  return 4 * iters;
#else
  (void)iters;
  return 0;
#endif
}

}  // namespace adaptcore::measure::loops
