// The AMX path through the scalar model of the tile unit (kernels/x86_amx/tile_model.hpp), on
// every host: the model's instruction semantics (exact int8 sums that wrap, bf16 pairs summed
// with one rounding each, denormals flushed, short loads zero-filled), the packed layouts (depth
// padded to whole blocks) and the block kernels with their row, column and depth tails and
// epilogues against a reference. The executor's path through the model: lowp_test_util.hpp.
// amx_native_test.cpp runs the same kernels on the instructions where the CPU has them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/lowp_pack_template.hpp"
#include "kernels/x86_amx/amx_block.hpp"
#include "kernels/x86_amx/amx_layout.hpp"
#include "kernels/x86_amx/tile_model.hpp"

namespace adaptcore::kernels::amx {
namespace {

std::uint16_t to_bf16(float f) {  // truncation: the tests pick values bf16 holds exactly
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16);
}
float from_bf16(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

TEST(AmxTileModel, Int8SumsAreExactAndWrapModulo2To32) {
  TileModel t;
  std::vector<std::uint8_t> a(16 * 64), b(16 * 64);
  std::vector<std::int32_t> c(16 * 16, 0x7FFFFFF0);  // near the top: the sums wrap
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 37 + 11);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i * 91 + 5);
  t.load(0, c.data(), 64);
  t.load(1, a.data(), 64);
  t.load(2, b.data(), 64);
  t.dpbusd(0, 1, 2);
  t.store(0, c.data(), 64);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      std::uint32_t want = 0x7FFFFFF0u;
      for (int k = 0; k < 16; ++k)
        for (int q = 0; q < 4; ++q)
          want += static_cast<std::uint32_t>(static_cast<std::int32_t>(a[m * 64 + 4 * k + q]) *
                                             static_cast<std::int8_t>(b[k * 64 + 4 * n + q]));
      ASSERT_EQ(static_cast<std::uint32_t>(c[m * 16 + n]), want) << m << ' ' << n;
    }
  // Signed A, unsigned B: the other order of signedness.
  t.zero(0);
  t.dpbsud(0, 1, 2);
  t.store(0, c.data(), 64);
  std::int32_t want = 0;
  for (int k = 0; k < 16; ++k)
    for (int q = 0; q < 4; ++q) want += static_cast<std::int8_t>(a[4 * k + q]) * b[k * 64 + q];
  EXPECT_EQ(c[0], want);
}

TEST(AmxTileModel, Bf16PairsRoundOnceEachAndFlushDenormals) {
  TileModel t;
  std::vector<std::uint16_t> a(16 * 32, 0), b(16 * 32, 0);
  std::vector<float> c(16 * 16, 0.0f);
  // Row 0 of A times column 0 of B: 1 + 2^-24 + 2^-24 summed one at a time stays 1 (each
  // addition rounds to even); a single rounding of the exact sum would give 1 + 2^-23.
  a[0] = to_bf16(1.0f), b[0] = to_bf16(1.0f);
  a[1] = to_bf16(std::ldexp(1.0f, -12)), b[1] = to_bf16(std::ldexp(1.0f, -12));
  a[2] = to_bf16(std::ldexp(1.0f, -12)), b[32] = to_bf16(std::ldexp(1.0f, -12));
  // Row 1, column 2: a denormal input counts as zero (DAZ): times 2^100 it would be a normal
  // 2^-33, which no flush of the result would remove.
  a[32] = 0x0001, b[4] = to_bf16(std::ldexp(1.0f, 100));
  // Row 2, column 1: a product below fp32's normal range is flushed to zero.
  a[64] = to_bf16(std::ldexp(1.0f, -70)), b[2] = to_bf16(std::ldexp(1.0f, -60));
  t.load(1, a.data(), 64);
  t.load(2, b.data(), 64);
  t.zero(0);
  t.dpbf16ps(0, 1, 2);
  t.store(0, c.data(), 64);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(c[16 + 2], 0.0f);
  EXPECT_EQ(c[32 + 1], 0.0f);
}

TEST(AmxTileModel, ShortLoadsZeroTheRestOfTheTile) {
  TileModel t;
  std::vector<std::uint8_t> ones(16 * 64, 0xFF), out(16 * 64, 0x11);
  t.load(0, ones.data(), 64, 3, 20);
  t.store(0, out.data(), 64);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c)
      ASSERT_EQ(out[r * 64 + c], r < 3 && c < 20 ? 0xFF : 0x00) << r << ' ' << c;
}

TEST(AmxLayout, PanelsHoldTheGroupsTileByTileZeroPadded) {
  // bf16 A of 3 rows, k = 35: 18 groups, padded to two blocks of 16; one panel of 16 rows.
  const int m = 3, k = 35;
  std::vector<std::uint16_t> a(m * k);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<std::uint16_t>(i + 1);
  std::vector<std::uint32_t> pa(panel_words(k, 2, 16), 0xDEADBEEF);
  ASSERT_EQ(pa.size(), 32u * 16);  // padded groups x rows
  pack_a_panels<std::uint16_t>(m, k, a.data(), k, 1, 16, 0, pa.data());
  // Block 0, row 2, group 5: elements (2, 10) and (2, 11).
  EXPECT_EQ(pa[2 * 16 + 5], (std::uint32_t{a[2 * k + 11]} << 16) | a[2 * k + 10]);
  // Block 1, row 1, group 1 (group 17): element (1, 34) and padding.
  EXPECT_EQ(pa[kTileWords + 1 * 16 + 1], std::uint32_t{a[1 * k + 34]});
  EXPECT_EQ(pa[kTileWords + 2 * 16 + 0], (std::uint32_t{a[2 * k + 33]} << 16) | a[2 * k + 32]);
  EXPECT_EQ(pa[kTileWords + 2 * 16 + 2], 0u);  // a group past the depth
  EXPECT_EQ(pa[5 * 16], 0u);                   // a row past m
  // The same A stored column-major and flipped as int8 would be: the element path.
  std::vector<std::uint16_t> at(m * k);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) at[p * m + i] = a[i * k + p];
  std::vector<std::uint32_t> pt(pa.size(), 0xDEADBEEF);
  pack_a_panels<std::uint16_t>(m, k, at.data(), 1, m, 16, 0, pt.data());
  EXPECT_EQ(pt, pa);
  // int8 B (k x n row-major), flipped, in two panels of 32 columns: the group layout of the
  // vector kernels with the padding rows zero, and the column sums of what was packed.
  const int n = 40, kb = 6;
  std::vector<std::int8_t> b(kb * n);
  for (int i = 0; i < kb * n; ++i) b[i] = static_cast<std::int8_t>(i * 7 - 60);
  std::vector<std::uint32_t> pb(panel_words(kb, 4, 32) * 2, 0xDEADBEEF);
  std::vector<std::int32_t> sums(n, 0);
  pack_b_panels<std::uint8_t, &pack_b_groups<Int8Quads>>(kb, n, b.data(), n, 1, 32, kFlip,
                                                         pb.data(), sums.data());
  // Panel 1, group 1 (k = 4, 5 and padding) of column 33 (panel column 1).
  const std::uint32_t w = pb[16 * 32 + 1 * 32 + 1];
  EXPECT_EQ(w & 0xFF, static_cast<std::uint8_t>(b[4 * n + 33]) ^ 0x80u);
  EXPECT_EQ((w >> 8) & 0xFF, static_cast<std::uint8_t>(b[5 * n + 33]) ^ 0x80u);
  EXPECT_EQ(w >> 16, 0u);
  for (int g = 2; g < 16; ++g) EXPECT_EQ(pb[g * 32 + 5], 0u) << g;  // padding rows
  std::int32_t want = 0;
  for (int p = 0; p < kb; ++p) want += static_cast<std::uint8_t>(b[p * n + 33]) ^ 0x80;
  EXPECT_EQ(sums[33], want);
}

// C = alpha A B + beta C (bf16) or A B + ibeta C (int8) for every row, column and depth tail
// of a block, through the model.
template <Dot D, int TM, int TN>
void check_block(int m, int n, int k, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message() << "TM " << TM << " TN " << TN << " m " << m << " n " << n
                                  << " k " << k << " dot " << static_cast<int>(D));
  constexpr bool bf16 = D == Dot::Bf16;
  using E = std::conditional_t<bf16, std::uint16_t, std::uint8_t>;
  constexpr int group = bf16 ? 2 : 4;
  std::uniform_int_distribution<int> small(-8, 8), byte(0, 255);
  std::vector<E> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  std::vector<double> av(a.size()), bv(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if constexpr (bf16) {
      a[i] = to_bf16(static_cast<float>(small(rng)) * 0.25f), av[i] = from_bf16(a[i]);
    } else {
      a[i] = static_cast<E>(byte(rng));
      av[i] = D == Dot::U8S8 ? a[i] : static_cast<std::int8_t>(a[i]);
    }
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    if constexpr (bf16) {
      b[i] = to_bf16(static_cast<float>(small(rng)) * 0.5f), bv[i] = from_bf16(b[i]);
    } else {
      b[i] = static_cast<E>(byte(rng));
      bv[i] = D == Dot::U8S8 ? static_cast<std::int8_t>(b[i]) : b[i];
    }
  }
  std::vector<std::uint32_t> pa(panel_words(k, group, 16 * TM)), pb(panel_words(k, group, 16 * TN));
  pack_a_panels<E>(m, k, a.data(), k, 1, 16 * TM, 0, pa.data());
  pack_b_panels<E, &pack_b_groups<std::conditional_t<bf16, Bf16Pairs, Int8Quads>>>(
      k, n, b.data(), n, 1, 16 * TN, 0, pb.data(), nullptr);
  using Acc = std::conditional_t<bf16, float, std::int32_t>;
  const int ldc = n + 3;
  std::vector<Acc> c(static_cast<std::size_t>(m) * ldc), c0;
  for (auto& x : c) x = static_cast<Acc>(small(rng));
  c0 = c;
  BlockArgs x;
  x.groups = padded_groups(k, group);
  x.a = pa.data(), x.b = pb.data(), x.c = c.data(), x.ldc = ldc;
  x.alpha = 0.5f, x.beta = bf16 ? -1.0f : 0.0f, x.ibeta = bf16 ? 0 : 3;
  x.m = m, x.n = n;
  ModelOps ops(block_shapes());
  block<D, TM, TN>(ops, x);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < ldc; ++j) {
      if (j >= n) {  // past n: untouched
        ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j]) << i << ' ' << j;
        continue;
      }
      double s = 0.0;
      for (int p = 0; p < k; ++p) s += av[i * k + p] * bv[p * n + j];
      if constexpr (bf16) {
        // Small multiples of 1/8 with |sum| < 2^24 / 8: every partial sum is exact in fp32.
        ASSERT_EQ(c[i * ldc + j], static_cast<float>(0.5 * s - c0[i * ldc + j])) << i << ' ' << j;
      } else {
        const auto want = static_cast<std::uint32_t>(static_cast<std::int64_t>(s)) +
                          3u * static_cast<std::uint32_t>(c0[i * ldc + j]);
        ASSERT_EQ(static_cast<std::uint32_t>(c[i * ldc + j]), want) << i << ' ' << j;
      }
    }
}

TEST(AmxBlock, EveryTailAndEpilogueThroughTheModel) {
  std::mt19937 rng(5);
  for (const int k : {1, 2, 31, 32, 33, 64, 65, 130})
    for (const auto& [m, n] : {std::pair{1, 1}, {16, 16}, {17, 5}, {32, 32}, {9, 31}}) {
      check_block<Dot::Bf16, 2, 2>(m, n, k, rng);
      check_block<Dot::U8S8, 2, 2>(m, n, k, rng);
      check_block<Dot::S8U8, 2, 2>(m, n, k, rng);
      if (m <= 16) {
        check_block<Dot::Bf16, 1, 4>(m, std::min(64, n * 2), k, rng);
        check_block<Dot::U8S8, 1, 4>(m, std::min(64, n * 2 + 1), k, rng);
      }
    }
}

}  // namespace
}  // namespace adaptcore::kernels::amx
