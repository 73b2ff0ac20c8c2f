// The portable int8 multiply-accumulate for the shared register tile (tile_mainloop.hpp): one
// "lane" per column, a 32-bit group of 4 bytes per k-quad, the same arithmetic as vpdpbusd
// (each byte product exact, their sum exact in int32, added to an unsigned 32-bit accumulator:
// wrapping is defined, as in the instruction). Baseline flags only.
#pragma once

#include <cstdint>

namespace adaptcore::kernels {
namespace {

// Accumulator traits with one 32-bit lane, for the epilogue (WrapAccumulate, store_tile).
struct ScalarI32 {
  using reg = std::uint32_t;  // unsigned: wrapping is defined
  using elem = std::int32_t;
  static constexpr int W = 1;
  static reg zero() { return 0; }
  static reg load(const elem* p) { return static_cast<reg>(*p); }
  static reg load_n(const elem* p, int n) { return n > 0 ? load(p) : 0; }
  static void store(elem* p, reg r) { *p = static_cast<elem>(r); }
  static void store_n(elem* p, reg r, int n) {
    if (n > 0) store(p, r);
  }
  static reg add(reg a, reg b) { return a + b; }
  static reg mul(reg a, reg b) { return a * b; }
  static reg set1(elem x) { return static_cast<reg>(x); }
};

// Byte q of a group word, as the operand's type.
template <bool Signed>
inline std::int32_t byte_of(std::uint32_t w, int q) {
  const auto b = static_cast<std::uint8_t>(w >> (8 * q));
  return Signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(b)) : b;
}

// A as u8 and B as s8, or the opposite when Swapped (a column-major C swaps the operands).
template <bool Swapped>
struct DotBytesStep {
  using Acc = ScalarI32;
  using a_elem = std::uint32_t;
  using b_elem = std::uint32_t;
  using b_reg = std::uint32_t;
  static std::uint32_t bcast(const std::uint32_t* p) { return *p; }
  static std::uint32_t load_b(const std::uint32_t* p) { return *p; }
  static std::uint32_t mac(std::uint32_t acc, std::uint32_t a, std::uint32_t b) {
    // |each product| <= 32640: the sum of four fits in int32.
    const std::int32_t s = byte_of<Swapped>(a, 0) * byte_of<!Swapped>(b, 0) +
                           byte_of<Swapped>(a, 1) * byte_of<!Swapped>(b, 1) +
                           byte_of<Swapped>(a, 2) * byte_of<!Swapped>(b, 2) +
                           byte_of<Swapped>(a, 3) * byte_of<!Swapped>(b, 3);
    return acc + static_cast<std::uint32_t>(s);
  }
};

}  // namespace
}  // namespace adaptcore::kernels
