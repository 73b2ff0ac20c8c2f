// The packed layouts of the AMX tile (kernels/lowp.hpp, EngineTile) and the portable routines
// that write them.
//
// Depth goes in blocks of 16 groups (a group: the 4 bytes one lane of a tile row holds, 2 bf16
// or 4 int8 values of consecutive k): one block is one tile row of 64 bytes of A, or the 16
// rows of a B tile. Panels are padded with zeros to whole blocks (G groups -> P = G rounded up
// to 16), so the tile unit multiplies whole tiles and padding adds products of zeros:
//   A panel of mr = 16 x TM rows, a tile per block and 16 rows, each tile 1 KiB contiguous
//   (loaded with a stride of 64 bytes):
//     word ((kb * TM + tm) * 16 + i) * 16 + g  = group kb * 16 + g of row tm * 16 + i
//   B panel of nr = 16 x TN columns: the group layout of the vector kernels (lowp.hpp), P rows
//     word g * nr + j                          = group g of column j
//   so the B tile of block kb and columns tn * 16.. is 16 rows of 64 bytes, nr * 4 bytes
//   apart (TDPBF16PS's / TDPBUSD's second source: row g holds column j's group g).
// A panel of mr rows is P x mr words, B's P x nr: the executor's panel offsets (rows or columns
// x packed steps) hold with the steps padded (EngineTile::depth_block).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/lowp.hpp"

namespace adaptcore::kernels::amx {

inline constexpr int kGroupsPerBlock = 16;
inline constexpr int kTileWords = 16 * 16;

constexpr std::int64_t groups_of(std::int64_t k, int group) noexcept {
  return (k + group - 1) / group;
}
// Groups of a panel over depth k: whole blocks.
constexpr std::int64_t padded_groups(std::int64_t k, int group) noexcept {
  return (groups_of(k, group) + kGroupsPerBlock - 1) / kGroupsPerBlock * kGroupsPerBlock;
}
// 32-bit words of a panel of `lines` rows or columns (whole tiles) over depth k.
constexpr std::int64_t panel_words(std::int64_t k, int group, int lines) noexcept {
  return padded_groups(k, group) * lines;
}

// One group of line l (a row of A) at depth p0..p0 + group - 1, element (l, p) at
// src[l * line_stride + p * depth_stride]; `flip` xors each byte inside the depth with 0x80
// (int8: s8 to u8); depth past k stays zero.
template <class E>
std::uint32_t group_word(const E* src, std::int64_t line_stride, std::int64_t depth_stride,
                         std::int64_t l, std::int64_t p0, std::int64_t k, bool flip) noexcept {
  constexpr int group = 4 / static_cast<int>(sizeof(E));
  E g[group] = {};
  for (int q = 0; q < group && p0 + q < k; ++q)
    g[q] = src[l * line_stride + (p0 + q) * depth_stride];
  std::uint32_t w;
  std::memcpy(&w, g, sizeof w);
  if (flip) {
    std::uint32_t mask = 0;
    for (int q = 0; q < group && p0 + q < k; ++q) mask |= 0xFFu << (8 * sizeof(E) * q);
    w ^= 0x80808080u & mask;
  }
  return w;
}

// op(A) of m rows (element (i, p) at a[i * rs + p * cs], E the element type) into panels of mr
// rows (a multiple of 16), each P x mr words, the last zero-padded: a LowpPackAFn.
template <class E>
void pack_a_panels(std::int64_t m, std::int64_t k, const void* src, std::int64_t rs,
                   std::int64_t cs, int mr, unsigned flags, std::uint32_t* out) noexcept {
  constexpr int group = 4 / static_cast<int>(sizeof(E));
  const E* a = static_cast<const E*>(src);
  const bool flip = (flags & kFlip) != 0;
  const std::int64_t groups = groups_of(k, group), padded = padded_groups(k, group);
  const int tiles = mr / 16;
  for (std::int64_t i0 = 0; i0 < m; i0 += mr, out += padded * mr) {
    for (std::int64_t kb = 0; kb < padded / kGroupsPerBlock; ++kb)
      for (int t = 0; t < tiles; ++t)
        for (int r = 0; r < 16; ++r) {
          std::uint32_t* line = out + ((kb * tiles + t) * 16 + r) * 16;
          const std::int64_t i = i0 + t * 16 + r, g0 = kb * kGroupsPerBlock;
          const std::int64_t live = i < m ? std::clamp<std::int64_t>(groups - g0, 0, 16) : 0;
          // Whole groups of a row stored along k: one copy (A row-major, the common case).
          std::int64_t whole = 0;
          if (cs == 1 && !flip && live > 0) whole = std::min(live, (k - g0 * group) / group);
          if (whole > 0)
            std::memcpy(line, a + i * rs + g0 * group, 4 * static_cast<std::size_t>(whole));
          for (std::int64_t g = whole; g < live; ++g)
            line[g] = group_word(a, rs, cs, i, (g0 + g) * group, k, flip);
          std::fill(line + live, line + 16, 0u);
        }
  }
}

// op(B) of n columns into panels of nr columns, P x nr words each: `Inner` (a LowpPackBFn of the
// group layout, with its column sums) packs each panel's G rows, the padding rows are zeroed.
template <class E, LowpPackBFn Inner>
void pack_b_panels(std::int64_t k, std::int64_t n, const void* src, std::int64_t rs,
                   std::int64_t cs, int nr, unsigned flags, std::uint32_t* out,
                   std::int32_t* colsum) noexcept {
  constexpr int group = 4 / static_cast<int>(sizeof(E));
  const std::int64_t groups = groups_of(k, group), padded = padded_groups(k, group);
  const E* b = static_cast<const E*>(src);
  for (std::int64_t j = 0; j < n; j += nr, out += padded * nr) {
    Inner(k, std::min<std::int64_t>(nr, n - j), b + j * cs, rs, cs, nr, flags, out,
          colsum != nullptr ? colsum + j : nullptr);
    std::fill(out + groups * nr, out + padded * nr, 0u);
  }
}

}  // namespace adaptcore::kernels::amx
