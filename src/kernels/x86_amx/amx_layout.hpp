// The packed layouts of the AMX kernels and the portable routines that write them.
//
// Depth goes in blocks of 16 groups (a group: the 4 bytes one lane of a tile row holds, 2 bf16
// or 4 int8 values of consecutive k): one block is one tile row of 64 bytes, and a tile holds
// 16 rows. Of G groups, the F = G / 16 whole blocks are stored tile by tile, each tile 1 KiB
// contiguous (16 rows of 64 bytes, loaded with a stride of 64); the R = G % 16 groups left
// follow as a remainder the kernels add without the tile unit:
//   A panel, rows in tiles of 16:    word ((kb * tiles_m + tm) * 16 + i) * 16 + g   (kb < F)
//                                    word F * tiles_m * 256 + (tm * 16 + i) * R + g  (rest)
//                                    = group kb * 16 + g of row tm * 16 + i
//   B panel, columns in tiles of 16: word ((kb * tiles_n + tn) * 16 + g) * 16 + j   (kb < F)
//                                    word F * tiles_n * 256 + (tn * R + g) * 16 + j  (rest)
//                                    = group kb * 16 + g of column tn * 16 + j
// (the B tile is TDPBF16PS's / TDPBUSD's second source: row g holds column j's group g.) A
// panel is G x 16 x tiles words, as the other kernels' group panels of the same width, so the
// executor's panel offsets (rows or columns x groups) hold. Depth in the last group, rows and
// columns past the operand's are zero, so padding adds products of zeros.
#pragma once

#include <cstdint>
#include <cstring>

namespace adaptcore::kernels::amx {

inline constexpr int kGroupsPerBlock = 16;
inline constexpr int kTileWords = 16 * 16;

constexpr std::int64_t groups_of(std::int64_t k, int group) noexcept {
  return (k + group - 1) / group;
}
// 32-bit words of a panel of `tiles` tiles of 16 lines over depth k.
constexpr std::int64_t panel_words(std::int64_t k, int group, int tiles) noexcept {
  return groups_of(k, group) * 16 * tiles;
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

// `lines` lines (rows of A, columns of B; element (l, p) at src[l * line_stride + p *
// depth_stride]) into a panel of `tiles` tiles of 16 lines. An A tile holds a line per tile row
// (LinePerRow), a B tile a group per tile row.
template <class E, bool LinePerRow>
void pack_panel(std::int64_t lines, std::int64_t k, const E* src, std::int64_t line_stride,
                std::int64_t depth_stride, int tiles, bool flip, std::uint32_t* out) noexcept {
  constexpr int group = 4 / static_cast<int>(sizeof(E));
  const std::int64_t groups = groups_of(k, group), full = groups / kGroupsPerBlock;
  const std::int64_t rest = groups - full * kGroupsPerBlock;
  auto word = [&](std::int64_t l, std::int64_t g) {
    return l < lines ? group_word(src, line_stride, depth_stride, l, g * group, k, flip) : 0u;
  };
  for (std::int64_t kb = 0; kb < full; ++kb)
    for (int t = 0; t < tiles; ++t)
      for (int row = 0; row < 16; ++row)
        for (int col = 0; col < 16; ++col) {
          const int l = LinePerRow ? row : col, g = LinePerRow ? col : row;
          out[((kb * tiles + t) * 16 + row) * 16 + col] =
              word(t * 16 + l, kb * kGroupsPerBlock + g);
        }
  std::uint32_t* o = out + full * tiles * kTileWords;
  for (int t = 0; t < tiles; ++t)
    for (int l = 0; l < 16; ++l)
      for (std::int64_t g = 0; g < rest; ++g)
        o[LinePerRow ? (t * 16 + l) * rest + g : (t * rest + g) * 16 + l] =
            word(t * 16 + l, full * kGroupsPerBlock + g);
}

// op(A) of m rows (element (i, p) at a[i * rs + p * cs]) into an A panel of tiles_m tiles.
template <class E>
void pack_a(std::int64_t m, std::int64_t k, const E* a, std::int64_t rs, std::int64_t cs,
            int tiles_m, bool flip, std::uint32_t* out) noexcept {
  pack_panel<E, true>(m, k, a, rs, cs, tiles_m, flip, out);
}

// op(B) of n columns (element (p, j) at b[p * rs + j * cs]) into a B panel of tiles_n tiles.
template <class E>
void pack_b(std::int64_t k, std::int64_t n, const E* b, std::int64_t rs, std::int64_t cs,
            int tiles_n, bool flip, std::uint32_t* out) noexcept {
  pack_panel<E, false>(n, k, b, cs, rs, tiles_n, flip, out);
}

}  // namespace adaptcore::kernels::amx
