// bfloat16 for the C++ API: a distinct element type, so that a buffer of fp16 values or of plain
// 16-bit integers cannot reach a bf16 entry point by accident (both would pass silently if the
// entry points took uint16_t, as the C API must).
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace adaptcore {

// The 16-bit pattern of a bf16 value is the top half of the fp32 with the same sign, exponent
// and leading 7 fraction bits.
constexpr float bf16_to_float(std::uint16_t x) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(x) << 16);
}
// Round to nearest, ties to even; NaN stays NaN (quieted), infinities stay infinite.
constexpr std::uint16_t float_to_bf16(float f) noexcept {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

// One bf16 value. Layout-compatible with uint16_t (a buffer of bit patterns from the C API or a
// file may be viewed as bf16 with reinterpret_cast), trivial like float: a default-constructed
// bf16 is uninitialised, bf16{} is +0. Conversions are explicit both ways; there is no
// arithmetic (compute in float) and no comparison (bitwise equality is not float equality:
// -0 == +0, NaN != NaN).
struct bf16 {
  std::uint16_t bits;

  bf16() = default;
  constexpr explicit bf16(float f) noexcept : bits(float_to_bf16(f)) {}
  constexpr explicit operator float() const noexcept { return bf16_to_float(bits); }

  static constexpr bf16 from_bits(std::uint16_t b) noexcept {
    bf16 v{};
    v.bits = b;
    return v;
  }
};

static_assert(sizeof(bf16) == sizeof(std::uint16_t));
static_assert(alignof(bf16) == alignof(std::uint16_t));
static_assert(std::is_standard_layout_v<bf16>);
static_assert(std::is_trivial_v<bf16>);
static_assert(std::is_trivially_copyable_v<bf16>);
// Only explicit conversions: a float expression never becomes a bf16 (or back) unnoticed.
static_assert(!std::is_convertible_v<float, bf16> && !std::is_convertible_v<bf16, float>);
static_assert(!std::is_convertible_v<std::uint16_t, bf16>);

}  // namespace adaptcore
