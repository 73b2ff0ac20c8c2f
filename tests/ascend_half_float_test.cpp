// Software fp16 / bf16 conversions of the Ascend simulator: exact round trips, round to nearest
// even on ties, overflow, subnormals and NaN, checked against GCC's _Float16 where it exists.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "targets/ascend/half_float.hpp"

namespace adaptcore::ascend {
namespace {

TEST(AscendHalfFloat, EveryFp16RoundTrips) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const auto x = static_cast<std::uint16_t>(h);
    const float f = float_from_fp16(x);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(float_from_fp16(fp16_from_float(f)))) << h;
      continue;
    }
    EXPECT_EQ(fp16_from_float(f), x) << h;
  }
}

TEST(AscendHalfFloat, Fp16KnownValues) {
  EXPECT_EQ(fp16_from_float(1.0f), 0x3c00);
  EXPECT_EQ(fp16_from_float(-2.0f), 0xc000);
  EXPECT_EQ(fp16_from_float(65504.0f), 0x7bff);
  EXPECT_EQ(fp16_from_float(65520.0f), 0x7c00);  // halfway to 2^16 rounds to even: infinity
  EXPECT_EQ(fp16_from_float(65519.0f), 0x7bff);
  EXPECT_EQ(fp16_from_float(1e10f), 0x7c00);
  EXPECT_EQ(fp16_from_float(0x1p-24f), 0x0001);      // smallest subnormal
  EXPECT_EQ(fp16_from_float(0x1p-25f), 0x0000);      // a tie between 0 and it: even is 0
  EXPECT_EQ(fp16_from_float(0x1.8p-25f), 0x0001);    // above the tie
  EXPECT_EQ(fp16_from_float(0x1.8p-24f), 0x0002);    // 1.5 units: tie, to even (2)
  EXPECT_EQ(fp16_from_float(0x1.002p0f), 0x3c00);    // 1 + 2^-11: tie, to even (1.0)
  EXPECT_EQ(fp16_from_float(0x1.006p0f), 0x3c02);    // 1 + 3 * 2^-11: tie, to even (1 + 2^-9)
  EXPECT_EQ(fp16_from_float(0x1.ffep-15f), 0x0400);  // rounds up into the smallest normal
  EXPECT_EQ(fp16_from_float(-0.0f), 0x8000);
  EXPECT_EQ(fp16_from_float(INFINITY), 0x7c00);
  EXPECT_TRUE(std::isnan(float_from_fp16(fp16_from_float(NAN))));
  EXPECT_EQ(float_from_fp16(0x0001), 0x1p-24f);
  EXPECT_EQ(float_from_fp16(0x03ff), 0x1.ff8p-15f);
}

#if defined(__FLT16_MANT_DIG__)
// GCC's _Float16 conversion (libgcc's __truncsfhf2 or F16C) is correctly rounded: agree on
// random bit patterns over the whole range and near every power of two.
TEST(AscendHalfFloat, Fp16MatchesCompiler) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const auto bits = static_cast<std::uint32_t>(rng());
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f)) continue;
    const _Float16 h = static_cast<_Float16>(f);
    ASSERT_EQ(fp16_from_float(f), std::bit_cast<std::uint16_t>(h)) << std::hexfloat << f;
  }
  for (int e = -30; e < 17; ++e)
    for (int d = -4096; d <= 4096; ++d) {
      const float f = std::ldexp(1.0f, e) + static_cast<float>(d) * std::ldexp(1.0f, e - 23);
      const _Float16 h = static_cast<_Float16>(f);
      ASSERT_EQ(fp16_from_float(f), std::bit_cast<std::uint16_t>(h)) << std::hexfloat << f;
    }
}
#endif

TEST(AscendHalfFloat, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16_from_float(1.0f), 0x3f80);
  EXPECT_EQ(bf16_from_float(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even down
  EXPECT_EQ(bf16_from_float(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, even up
  EXPECT_EQ(bf16_from_float(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(bf16_from_float(std::bit_cast<float>(0x7f7fffffu)), 0x7f80);  // overflow to inf
  EXPECT_TRUE(std::isnan(float_from_bf16(bf16_from_float(NAN))));
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float f = float_from_bf16(static_cast<std::uint16_t>(h));
    if (!std::isnan(f)) {
      EXPECT_EQ(bf16_from_float(f), h);
    }
  }
}

}  // namespace
}  // namespace adaptcore::ascend
