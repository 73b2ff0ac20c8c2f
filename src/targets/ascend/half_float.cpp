#include "targets/ascend/half_float.hpp"

#include <bit>

namespace adaptcore::ascend {

std::uint16_t fp16_from_float(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xffu)  // infinity or NaN (NaN keeps a set quiet bit so it cannot become infinity)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mant != 0 ? 0x200u | (mant >> 13) : 0u));
  // Unbiased exponent; fp16 normals have -14 <= e <= 15.
  const int e = static_cast<int>(exp) - 127;
  if (e > 15) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow
  if (e >= -14) {
    // Normal: keep 10 of 23 mantissa bits, round the 13 dropped ones to nearest even. A carry
    // out of the mantissa increments the exponent, which is exactly right (up to infinity).
    std::uint32_t h = (static_cast<std::uint32_t>(e + 15) << 10) | (mant >> 13);
    const std::uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0)) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  // Subnormal or zero: value = mant24 * 2^(e - 23), fp16 subnormal unit 2^-24, so the result is
  // mant24 >> (-e - 1) rounded to nearest even (shift >= 25 leaves at most a half unit).
  if (exp == 0) return sign;  // fp32 zero or subnormal (far below half the fp16 minimum)
  mant |= 0x800000u;
  const int shift = -e - 1;  // >= 14
  if (shift > 25) return sign;
  std::uint32_t h = mant >> shift;
  const std::uint32_t rest = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1u) != 0)) ++h;  // may round up to the min normal
  return static_cast<std::uint16_t>(sign | h);
}

float float_from_fp16(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t x = 0;
  if (exp == 0x1fu) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else {
    // Subnormal: normalise. value = mant * 2^-24.
    int e = -14;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x3ffu;
    x = sign | (static_cast<std::uint32_t>(e + 127) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(x);
}

std::uint16_t bf16_from_float(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  const std::uint32_t lsb = (x >> 16) & 1u;
  return static_cast<std::uint16_t>((x + 0x7fffu + lsb) >> 16);
}

float float_from_bf16(std::uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace adaptcore::ascend
