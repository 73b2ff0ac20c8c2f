// A scalar model of the AMX tile unit (Intel SDM vol. 2, TILELOADD, TILESTORED, TILEZERO,
// TDPBF16PS, TDPBUSD/TDPBSSD/TDPBSUD/TDPBUUD; palette 1: eight tiles of up to 16 rows of 64
// bytes). It gives the AMX kernels (amx_block.hpp) an implementation that runs on any CPU, so
// their packing, blocking, tails and epilogues are tested on every host; on a host with AMX the
// same kernels run on the instructions (amx_ops_native.hpp) and are compared with this model.
//
// Semantics modelled: a load reads `rows` rows of `colsb` bytes, `stride` bytes apart, and
// zeroes the rest of the tile (as the hardware's configured shape does); TDPBF16PS adds, per
// output, the two bf16 products of each pair to the fp32 accumulator one at a time, each sum
// rounded to nearest even, with input and output denormals flushed to zero (DAZ, FTZ; MXCSR is
// not consulted); the int8 products are exact and the 32-bit sums wrap.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace adaptcore::kernels::amx {

inline constexpr int kTiles = 8;
inline constexpr int kTileRows = 16;
inline constexpr int kTileBytes = 64;  // bytes a tile row holds

// The shapes a tile configuration (palette 1) gives the eight tiles: rows, and bytes a row. The
// kernels' configurations are written once as these (amx_block.hpp, amx_wq.hpp); the native
// configuration is made from them (amx_ops_native.hpp) and the model checks every operation
// against them.
struct TileShapes {
  std::array<int, kTiles> rows{};
  std::array<int, kTiles> colsb{};
};

class TileModel {
 public:
  TileModel() = default;
  // A model with a configuration: every load, store and product is checked against it as the
  // hardware checks its own (a mismatch there is a fault, here an abort with the reason).
  explicit TileModel(const TileShapes& shapes) : shapes_(shapes), configured_(true) {}

  void zero(int t) noexcept {
    Tile& d = tile(t);
    d.bytes = {};
  }
  // Rows of `colsb` bytes from p, `stride` bytes apart; the rest of the tile is zero.
  void load(int t, const void* p, std::int64_t stride, int rows = kTileRows,
            int colsb = kTileBytes) noexcept {
    if (configured_ && (rows != shapes_.rows[static_cast<std::size_t>(t)] ||
                        colsb != shapes_.colsb[static_cast<std::size_t>(t)]))
      fault("a load of another shape than the tile's configured one");
    Tile& d = tile(t);
    d.bytes = {};
    const auto* src = static_cast<const unsigned char*>(p);
    for (int r = 0; r < rows; ++r) std::memcpy(d.bytes[r].data(), src + r * stride, colsb);
  }
  void store(int t, void* p, std::int64_t stride, int rows = kTileRows,
             int colsb = kTileBytes) const noexcept {
    if (configured_) {
      rows = shapes_.rows[static_cast<std::size_t>(t)];
      colsb = shapes_.colsb[static_cast<std::size_t>(t)];
    }
    const Tile& s = tiles_[static_cast<std::size_t>(t)];
    auto* dst = static_cast<unsigned char*>(p);
    for (int r = 0; r < rows; ++r) std::memcpy(dst + r * stride, s.bytes[r].data(), colsb);
  }

  // c (fp32) += a (rows x 16 bf16 pairs) . b (16 rows of 16 bf16 pairs).
  void dpbf16ps(int c, int a, int b) noexcept {
    check_product(c, a, b);
    Tile& tc = tile(c);
    const Tile &ta = tiles_[static_cast<std::size_t>(a)], &tb = tiles_[static_cast<std::size_t>(b)];
    for (int m = 0; m < kTileRows; ++m)
      for (int n = 0; n < kTileBytes / 4; ++n) {
        float acc = read<float>(tc, m, n);
        for (int k = 0; k < kTileBytes / 4; ++k)
          acc = bf16_pair(acc, read<std::uint32_t>(ta, m, k), read<std::uint32_t>(tb, k, n));
        write(tc, m, n, acc);
      }
  }

  // c (s32) += a (rows x 16 quads of bytes) . b (16 rows of 16 quads); signedness of each
  // side: TDPBUSD is <false, true> (a unsigned, b signed), TDPBSSD <true, true>, ...
  template <bool ASigned, bool BSigned>
  void dpb(int c, int a, int b) noexcept {
    check_product(c, a, b);
    Tile& tc = tile(c);
    const Tile &ta = tiles_[static_cast<std::size_t>(a)], &tb = tiles_[static_cast<std::size_t>(b)];
    for (int m = 0; m < kTileRows; ++m)
      for (int n = 0; n < kTileBytes / 4; ++n) {
        std::int32_t acc = read<std::int32_t>(tc, m, n);
        for (int k = 0; k < kTileBytes / 4; ++k)
          acc = int8_quad<ASigned, BSigned>(acc, read<std::uint32_t>(ta, m, k),
                                            read<std::uint32_t>(tb, k, n));
        write(tc, m, n, acc);
      }
  }
  // One accumulator and one group of each side, as the instructions combine them: the two bf16
  // products of a pair added one at a time (each exact in fp32, each sum rounded to nearest
  // even; denormal inputs and results flushed), the four int8 products exact and the sum
  // wrapped.
  static float bf16_pair(float acc, std::uint32_t a, std::uint32_t b) noexcept {
    acc = flush(acc);
    for (int h = 0; h < 2; ++h) {
      const float x = bf16(static_cast<std::uint16_t>(a >> (16 * h)));
      const float y = bf16(static_cast<std::uint16_t>(b >> (16 * h)));
      acc = flush(std::fma(x, y, acc));
    }
    return acc;
  }
  template <bool ASigned, bool BSigned>
  static std::int32_t int8_quad(std::int32_t acc, std::uint32_t a, std::uint32_t b) noexcept {
    auto sum = static_cast<std::uint32_t>(acc);
    for (int q = 0; q < 4; ++q) {
      const auto x8 = static_cast<std::uint8_t>(a >> (8 * q));
      const auto y8 = static_cast<std::uint8_t>(b >> (8 * q));
      const std::int32_t x = ASigned ? static_cast<std::int8_t>(x8) : x8;
      const std::int32_t y = BSigned ? static_cast<std::int8_t>(y8) : y8;
      sum += static_cast<std::uint32_t>(x * y);  // modulo 2^32, as the hardware
    }
    return static_cast<std::int32_t>(sum);
  }

  void dpbusd(int c, int a, int b) noexcept { dpb<false, true>(c, a, b); }
  void dpbssd(int c, int a, int b) noexcept { dpb<true, true>(c, a, b); }
  void dpbsud(int c, int a, int b) noexcept { dpb<true, false>(c, a, b); }

 private:
  struct Tile {
    std::array<std::array<unsigned char, kTileBytes>, kTileRows> bytes{};
  };
  std::array<Tile, kTiles> tiles_{};
  TileShapes shapes_{};
  bool configured_ = false;

  [[noreturn]] static void fault(const char* why) noexcept {
    std::fprintf(stderr, "AMX tile model: %s\n", why);
    std::abort();
  }
  // The instructions' shape rules (SDM, TDPBF16PS / TDPBUSD: "#UD if ..."): the A tile's depth
  // (bytes / 4) is B's rows, C is as wide as B and as tall as A.
  void check_product(int c, int a, int b) const noexcept {
    if (!configured_) return;
    const auto at = [](const std::array<int, kTiles>& x, int t) {
      return x[static_cast<std::size_t>(t)];
    };
    if (at(shapes_.colsb, a) / 4 != at(shapes_.rows, b) ||
        at(shapes_.colsb, c) != at(shapes_.colsb, b) || at(shapes_.rows, c) != at(shapes_.rows, a))
      fault("a tile product of operands whose configured shapes do not fit");
  }

  Tile& tile(int t) noexcept { return tiles_[static_cast<std::size_t>(t)]; }
  template <class T>
  static T read(const Tile& t, int row, int index) noexcept {
    T v;
    std::memcpy(&v, t.bytes[static_cast<std::size_t>(row)].data() + index * sizeof(T), sizeof v);
    return v;
  }
  template <class T>
  static void write(Tile& t, int row, int index, T v) noexcept {
    std::memcpy(t.bytes[static_cast<std::size_t>(row)].data() + index * sizeof(T), &v, sizeof v);
  }
  static float bf16(std::uint16_t bits) noexcept {
    return flush(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16));
  }
  // Denormals to a zero of the same sign (DAZ on inputs, FTZ on results).
  static float flush(float x) noexcept {
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
  }
};

}  // namespace adaptcore::kernels::amx
