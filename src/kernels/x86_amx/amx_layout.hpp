// The packed layouts of the AMX kernels and the portable routines that write them.
//
// Depth goes in blocks of 16 groups (a group: the 4 bytes one lane of a tile row holds, 2 bf16
// or 4 int8 values of consecutive k): one block is one tile row of 64 bytes, and a tile holds
// 16 rows. Both panels are stored tile by tile, each tile 1 KiB contiguous (16 rows of 64
// bytes, loaded with a stride of 64):
//   A panel, rows in tiles of 16:    word ((kb * tiles_m + tm) * 16 + r) * 16 + g
//                                    = group kb * 16 + g of row tm * 16 + r
//   B panel, columns in tiles of 16: word ((kb * tiles_n + tn) * 16 + g) * 16 + j
//                                    = group kb * 16 + g of column tn * 16 + j
// (the B tile is TDPBF16PS's / TDPBUSD's second source: row g holds column j's group g.)
// Depth, rows and columns past the operand's are zero, so padding adds products of zeros.
#pragma once

#include <cstdint>
#include <cstring>

namespace adaptcore::kernels::amx {

inline constexpr int kGroupsPerBlock = 16;
inline constexpr int kTileWords = 16 * 16;

constexpr std::int64_t depth_blocks(std::int64_t k, int group) noexcept {
  const std::int64_t groups = (k + group - 1) / group;
  return (groups + kGroupsPerBlock - 1) / kGroupsPerBlock;
}
// 32-bit words of a panel of `tiles` tiles of 16 lines over depth k.
constexpr std::int64_t panel_words(std::int64_t k, int group, int tiles) noexcept {
  return depth_blocks(k, group) * tiles * kTileWords;
}

// One group of line l (a row of A, a column of B) at depth p0..p0 + group - 1, element (l, p)
// at src[l * line_stride + p * depth_stride]; `flip` xors each byte with 0x80 (int8: s8 to u8).
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
    // Only the bytes of values inside the depth: padding stays zero (products of zeros).
    std::uint32_t mask = 0;
    for (int q = 0; q < group && p0 + q < k; ++q) mask |= 0xFFu << (8 * sizeof(E) * q);
    w ^= 0x80808080u & mask;
  }
  return w;
}

// op(A) of m rows (element (i, p) at a[i * rs + p * cs]) into an A panel of tiles_m tiles.
template <class E>
void pack_a(std::int64_t m, std::int64_t k, const E* a, std::int64_t rs, std::int64_t cs,
            int tiles_m, bool flip, std::uint32_t* out) noexcept {
  constexpr int group = 4 / static_cast<int>(sizeof(E));
  const std::int64_t blocks = depth_blocks(k, group);
  for (std::int64_t kb = 0; kb < blocks; ++kb)
    for (int tm = 0; tm < tiles_m; ++tm)
      for (int r = 0; r < 16; ++r) {
        std::uint32_t* o = out + ((kb * tiles_m + tm) * 16 + r) * 16;
        const std::int64_t i = tm * 16 + r;
        for (int g = 0; g < kGroupsPerBlock; ++g) {
          const std::int64_t p0 = (kb * kGroupsPerBlock + g) * group;
          o[g] = i < m && p0 < k ? group_word(a, rs, cs, i, p0, k, flip) : 0u;
        }
      }
}

// op(B) of n columns (element (p, j) at b[p * rs + j * cs]) into a B panel of tiles_n tiles.
template <class E>
void pack_b(std::int64_t k, std::int64_t n, const E* b, std::int64_t rs, std::int64_t cs,
            int tiles_n, bool flip, std::uint32_t* out) noexcept {
  constexpr int group = 4 / static_cast<int>(sizeof(E));
  const std::int64_t blocks = depth_blocks(k, group);
  for (std::int64_t kb = 0; kb < blocks; ++kb)
    for (int tn = 0; tn < tiles_n; ++tn)
      for (int g = 0; g < kGroupsPerBlock; ++g) {
        std::uint32_t* o = out + ((kb * tiles_n + tn) * 16 + g) * 16;
        const std::int64_t p0 = (kb * kGroupsPerBlock + g) * group;
        for (int jj = 0; jj < 16; ++jj) {
          const std::int64_t j = tn * 16 + jj;
          o[jj] = j < n && p0 < k ? group_word(b, cs, rs, j, p0, k, flip) : 0u;
        }
      }
}

}  // namespace adaptcore::kernels::amx
