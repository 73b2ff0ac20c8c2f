// The AMX instructions as the Ops of amx_block.hpp. Include only in units compiled with
// -mamx-tile -mamx-bf16 -mamx-int8, and run only where amx_support().usable() (hw/); the caller
// configures the tiles first (configure()) and releases them after (release()).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/x86_amx/amx_block.hpp"

namespace adaptcore::kernels::amx {

// Palette 1, every tile 16 rows of 64 bytes: the one shape the block kernels use.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

inline TileConfig block_config() noexcept {
  TileConfig cfg;
  for (int t = 0; t < kTiles; ++t) cfg.colsb[t] = kTileBytes, cfg.rows[t] = kTileRows;
  return cfg;
}
// The weight-quantized kernels' (amx_wq.hpp): C 16 x 64 bytes, A 16 rows of 8 quads, B 8 quads
// of 64 bytes.
inline TileConfig wq_config() noexcept {
  TileConfig cfg;
  for (int t = 0; t < 4; ++t) cfg.colsb[t] = kTileBytes, cfg.rows[t] = kTileRows;
  for (int t = 4; t < 6; ++t) cfg.colsb[t] = 32, cfg.rows[t] = kTileRows;
  for (int t = 6; t < 8; ++t) cfg.colsb[t] = kTileBytes, cfg.rows[t] = 8;
  return cfg;
}
inline void configure() noexcept {
  const TileConfig cfg = block_config();
  _tile_loadconfig(&cfg);
}
// A configuration loaded only where the thread's differs: whatever ran on this thread before
// (another library, the thread's last task) may have left another one or none; reading it back
// costs less than loading (which also zeroes every tile).
inline void configure_if_changed(const TileConfig& want) noexcept {
  TileConfig now;
  _tile_storeconfig(&now);
  if (std::memcmp(&now, &want, sizeof now) != 0) _tile_loadconfig(&want);
}
inline void release() noexcept { _tile_release(); }

// The intrinsics take tile numbers as tokens (GCC pastes them into the assembly), so each tile
// operation is spelled out per tile number; the block kernels' numbering (amx_block.hpp) uses C
// tiles 0-3, A tiles 4-5 and B tiles 5-7.
#define ADAPTCORE_AMX_EACH_TILE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ADAPTCORE_AMX_EACH_DOT(X)                                                         \
  X(0, 4, 5)                                                                              \
  X(0, 4, 6)                                                                              \
  X(0, 4, 7)                                                                              \
  X(0, 5, 6)                                                                              \
  X(0, 5, 7) X(1, 4, 5) X(1, 4, 6) X(1, 4, 7) X(1, 5, 6) X(1, 5, 7) X(2, 4, 5) X(2, 4, 6) \
      X(2, 4, 7) X(2, 5, 6) X(2, 5, 7) X(3, 4, 5) X(3, 4, 6) X(3, 4, 7) X(3, 5, 6) X(3, 5, 7)

struct NativeOps {
  template <int T>
  void zero() noexcept {
#define ADAPTCORE_AMX_ZERO(t) \
  if constexpr (T == t) _tile_zero(t);
    ADAPTCORE_AMX_EACH_TILE(ADAPTCORE_AMX_ZERO)
#undef ADAPTCORE_AMX_ZERO
  }
  // The shape is the configuration's (the arguments say it for the scalar model).
  template <int T>
  void load(const void* p, std::int64_t stride, int = kTileRows, int = kTileBytes) noexcept {
#define ADAPTCORE_AMX_LOAD(t) \
  if constexpr (T == t) _tile_loadd(t, p, stride);
    ADAPTCORE_AMX_EACH_TILE(ADAPTCORE_AMX_LOAD)
#undef ADAPTCORE_AMX_LOAD
  }
  template <int T>
  void store(void* p, std::int64_t stride) noexcept {
#define ADAPTCORE_AMX_STORE(t) \
  if constexpr (T == t) _tile_stored(t, p, stride);
    ADAPTCORE_AMX_EACH_TILE(ADAPTCORE_AMX_STORE)
#undef ADAPTCORE_AMX_STORE
  }
  template <Dot D, int C, int A, int B>
  void dot() noexcept {
    static_assert(C < 4 && A >= 4 && A < B && B < 8, "the block kernels' tile numbering");
    // A combination missing from the list below would compile to nothing.
#define ADAPTCORE_AMX_LISTED(c, a, b) || (C == c && A == a && B == b)
    static_assert(false ADAPTCORE_AMX_EACH_DOT(ADAPTCORE_AMX_LISTED), "a tile product not listed");
#undef ADAPTCORE_AMX_LISTED
#define ADAPTCORE_AMX_DOT(c, a, b)            \
  if constexpr (C == c && A == a && B == b) { \
    if constexpr (D == Dot::Bf16)             \
      _tile_dpbf16ps(c, a, b);                \
    else if constexpr (D == Dot::U8S8)        \
      _tile_dpbusd(c, a, b);                  \
    else                                      \
      _tile_dpbsud(c, a, b);                  \
  }
    ADAPTCORE_AMX_EACH_DOT(ADAPTCORE_AMX_DOT)
#undef ADAPTCORE_AMX_DOT
  }
};

#undef ADAPTCORE_AMX_EACH_TILE
#undef ADAPTCORE_AMX_EACH_DOT

}  // namespace adaptcore::kernels::amx
