// The AMX instructions as the Ops of amx_block.hpp and amx_wq.hpp. Include only in units
// compiled with -mamx-tile -mamx-bf16 -mamx-int8, and run only where amx_support().usable()
// (hw/); the task configures the tiles first and gives them back after (ThreadTiles).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/x86_amx/amx_block.hpp"

namespace adaptcore::kernels::amx {

// LDTILECFG's 64-byte operand, palette 1 (tiles 8-15 and the reserved bytes zero).
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

inline TileConfig config_of(const TileShapes& s) noexcept {
  TileConfig cfg;
  for (std::size_t t = 0; t < kTiles; ++t) {
    cfg.colsb[t] = static_cast<std::uint16_t>(s.colsb[t]);
    cfg.rows[t] = static_cast<std::uint8_t>(s.rows[t]);
  }
  return cfg;
}

// GCC's tile intrinsics do not tell the compiler which memory they read or write (the config's
// 64 bytes, a tile's rows): a compiler barrier around them keeps stores before a load and reads
// after a store where they belong.
inline void memory_barrier() noexcept { asm volatile("" ::: "memory"); }

inline void load_config(const TileConfig& cfg) noexcept {
  memory_barrier();
  _tile_loadconfig(&cfg);
}
inline void configure() noexcept { load_config(config_of(block_shapes())); }
inline void release() noexcept { _tile_release(); }

// The thread's tile state around a task (kernels::EngineTile's begin and end): the
// configuration it had is read back (another library's, or none) and ours loaded only where it
// differs; after the task the thread's configuration is loaded back (its tiles zero: tile data
// is not preserved across calls, the configuration is), or the tiles released where it had
// none, so that the thread does not go on with tile state in use.
class ThreadTiles {
 public:
  static void begin(const TileConfig& want) noexcept {
    State& s = state();
    _tile_storeconfig(&s.before);
    memory_barrier();
    s.ours = want;
    if (std::memcmp(&s.before, &want, sizeof want) != 0) load_config(want);
  }
  static void end() noexcept {
    const State& s = state();
    if (s.before.palette == 0)
      _tile_release();
    else if (std::memcmp(&s.before, &s.ours, sizeof s.ours) != 0)
      load_config(s.before);
  }

 private:
  struct State {
    TileConfig before, ours;
  };
  static State& state() noexcept {
    thread_local State s;
    return s;
  }
};

// The intrinsics take tile numbers as tokens (GCC pastes them into the assembly), so each tile
// operation is spelled out per tile number: C tiles 0-3, A tiles 4-5 and B tiles 5-7 (the block
// kernels: A 4, B 5 and 6; the weight-quantized ones: A 4 and 5, B 6 and 7).
#define ADAPTCORE_AMX_EACH_TILE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ADAPTCORE_AMX_EACH_DOT(X)                                                         \
  X(0, 4, 5)                                                                              \
  X(0, 4, 6)                                                                              \
  X(0, 4, 7)                                                                              \
  X(0, 5, 6)                                                                              \
  X(0, 5, 7)                                                                              \
  X(1, 4, 5) X(1, 4, 6) X(1, 4, 7) X(1, 5, 6) X(1, 5, 7) X(2, 4, 5) X(2, 4, 6) X(2, 4, 7) \
      X(2, 5, 6) X(2, 5, 7) X(3, 4, 5) X(3, 4, 6) X(3, 4, 7) X(3, 5, 6) X(3, 5, 7)

struct NativeOps {
  // The shapes are those the task's begin loaded (the model checks the kernels against them).
  explicit NativeOps(const TileShapes&) noexcept {}
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
    memory_barrier();  // what was just written there (a staged block) first
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
    memory_barrier();  // the rows it wrote, before anything reads them
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
