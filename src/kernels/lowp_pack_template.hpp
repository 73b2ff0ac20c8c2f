// Packing into 32-bit group panels (see lowp.hpp), written once over a group format and
// included by each unit that needs it (the unnamed namespace gives each its own copy, compiled
// with that unit's ISA flags). Formats:
//   Bf16Pairs  two consecutive k values of bf16 per word (low half first), for vdpbf16ps
//   Bf16ToF32  one bf16 value widened to its fp32 bit pattern, for the fp32 kernels
//   Int8Quads  four consecutive k values of 8 bits per word (lowest byte first), for vpdpbusd;
//              kFlip xors every real byte with 0x80 (padding stays 0)
#pragma once

#include <algorithm>
#include <cstdint>

namespace adaptcore::kernels {
namespace {

// Each format: elem() places one value in its slot; word() builds a whole group from G
// consecutive values in memory (one 32-bit load where the group is contiguous).
struct Bf16Pairs {
  using T = std::uint16_t;
  static constexpr int G = 2;
  static constexpr int kBits = 16;
  static std::uint32_t elem(T x, unsigned) { return x; }
  static std::uint32_t word(const T* p, unsigned) {
    std::uint32_t w;
    __builtin_memcpy(&w, p, 4);  // little-endian: the first value in the low half
    return w;
  }
};
struct Bf16ToF32 {
  using T = std::uint16_t;
  static constexpr int G = 1;
  static constexpr int kBits = 0;
  static std::uint32_t elem(T x, unsigned) { return static_cast<std::uint32_t>(x) << 16; }
  static std::uint32_t word(const T* p, unsigned) { return static_cast<std::uint32_t>(*p) << 16; }
};
struct Int8Quads {
  using T = std::uint8_t;
  static constexpr int G = 4;
  static constexpr int kBits = 8;
  static std::uint32_t elem(T x, unsigned flags) {
    return static_cast<std::uint32_t>(static_cast<std::uint8_t>(x ^ ((flags & 1u) ? 0x80u : 0u)));
  }
  static std::uint32_t word(const T* p, unsigned flags) {
    std::uint32_t w;
    __builtin_memcpy(&w, p, 4);
    return w ^ ((flags & 1u) ? 0x80808080u : 0u);
  }
};

// The word of `count` (<= G) values starting at p, `stride` elements apart.
template <class F>
inline std::uint32_t group_word(const typename F::T* p, int64_t stride, int count, unsigned flags) {
  std::uint32_t w = 0;
  for (int q = 0; q < count; ++q) w |= F::elem(p[q * stride], flags) << (q * F::kBits);
  return w;
}

// Depth k in groups of F: how many words a line takes (the last one zero-padded), how many of
// them are whole, and the values of the partial one (0 if none).
template <class F>
struct GroupDepth {
  int64_t groups, full;
  int tail;
  explicit GroupDepth(int64_t k)
      : groups((k + F::G - 1) / F::G),
        full(k / F::G),
        tail(static_cast<int>(k - k / F::G * F::G)) {}
};

// Group g of `lines` adjacent lines (element l of depth row q at r[q * depth_stride + l]) into
// o[0, lines): the G depth rows interleaved line by line (vectorises).
template <class F>
inline void adjacent_lines_group(std::uint32_t* o, const typename F::T* r, int64_t depth_stride,
                                 int lines, unsigned flags) {
  for (int l = 0; l < lines; ++l) {
    std::uint32_t w = 0;
    for (int q = 0; q < F::G; ++q) w |= F::elem(r[q * depth_stride + l], flags) << (q * F::kBits);
    o[l] = w;
  }
}

// A written panel's last, partial group (k % G values of each line, the rest zero) and its
// lines past the edge (zero in every group).
template <class F>
inline void finish_panel(std::uint32_t* panel, const typename F::T* first, int64_t line_stride,
                         int64_t depth_stride, const GroupDepth<F>& d, int lines, int width,
                         unsigned flags) {
  if (d.tail > 0) {
    for (int l = 0; l < lines; ++l)
      panel[d.full * width + l] = group_word<F>(
          first + l * line_stride + d.full * F::G * depth_stride, depth_stride, d.tail, flags);
  }
  for (int64_t g = 0; g < d.groups; ++g)
    for (int l = lines; l < width; ++l) panel[g * width + l] = 0;
}

// Source rows adjacent lines are packed in at once (pack_adjacent_lines): as the fp32 packer's
// (pack_template.hpp, kPackBRows).
inline constexpr int64_t kPackLowpRows = 8;

// pack_group_lines for lines adjacent in memory and depth steps `depth_stride` apart (a
// row-major B, whose columns are the lines; a column-major A), over every panel a few source
// rows at a time (kPackLowpRows), each panel's words of them in turn. Panel by panel, each
// panel read all k rows at once: a stream per row, which the prefetchers lose out of DRAM, and
// rows a power of two apart sharing L1 sets. Same output and after_panel contract.
template <class F, class AfterPanel>
void pack_adjacent_lines(int64_t count, int64_t k, const typename F::T* s, int64_t depth_stride,
                         int width, unsigned flags, std::uint32_t* out, AfterPanel after_panel) {
  const GroupDepth<F> d(k);
  const int64_t panel_words = d.groups * width;
  constexpr int64_t kGroupsAtOnce = kPackLowpRows / F::G > 0 ? kPackLowpRows / F::G : 1;
  for (int64_t g0 = 0; g0 < d.full; g0 += kGroupsAtOnce) {
    const int64_t g1 = std::min(d.full, g0 + kGroupsAtOnce);
    std::uint32_t* panel = out;
    for (int64_t l0 = 0; l0 < count; l0 += width, panel += panel_words) {
      const int lines = static_cast<int>(std::min<int64_t>(width, count - l0));
      for (int64_t g = g0; g < g1; ++g)
        adjacent_lines_group<F>(panel + g * width, s + l0 + g * F::G * depth_stride, depth_stride,
                                lines, flags);
    }
  }
  std::uint32_t* panel = out;
  for (int64_t l0 = 0; l0 < count; l0 += width, panel += panel_words) {
    const int lines = static_cast<int>(std::min<int64_t>(width, count - l0));
    finish_panel<F>(panel, s + l0, 1, depth_stride, d, lines, width, flags);
    after_panel(panel, l0, lines);
  }
}

// Packs `count` lines (rows of A, columns of op(B)) of depth k into panels of `width` lines:
// element (l, p) at src[l * line_stride + p * depth_stride], panel word g * width + l holds
// group g of line l, lines past the edge are zero. after_panel(panel, first line, lines) runs
// on each panel once it is written (while it is in cache).
template <class F, class AfterPanel>
void pack_group_lines(int64_t count, int64_t k, const void* src, int64_t line_stride,
                      int64_t depth_stride, int width, unsigned flags, std::uint32_t* out,
                      AfterPanel after_panel) {
  using T = typename F::T;
  constexpr int G = F::G;
  const T* s = static_cast<const T*>(src);
  if (line_stride == 1 && depth_stride != 1) {
    pack_adjacent_lines<F>(count, k, s, depth_stride, width, flags, out, after_panel);
    return;
  }
  const GroupDepth<F> d(k);
  for (int64_t l0 = 0; l0 < count; l0 += width, out += d.groups * width) {
    const int lines = static_cast<int>(std::min<int64_t>(width, count - l0));
    const T* first = s + l0 * line_stride;
    if (depth_stride == 1) {
      // Lines contiguous along k: walk them side by side so the panel is written in order, one
      // 32-bit load per group.
      for (int64_t g = 0; g < d.full; ++g) {
        std::uint32_t* o = out + g * width;
        const T* p = first + g * G;
        for (int l = 0; l < lines; ++l) o[l] = F::word(p + l * line_stride, flags);
      }
    } else {
      for (int l = 0; l < lines; ++l) {
        const T* line = first + l * line_stride;
        for (int64_t g = 0; g < d.full; ++g)
          out[g * width + l] = group_word<F>(line + g * G * depth_stride, depth_stride, G, flags);
      }
    }
    finish_panel<F>(out, first, line_stride, depth_stride, d, lines, width, flags);
    after_panel(out, l0, lines);
  }
}

// The contract of LowpPackAFn: rows of A are the panel lines.
template <class F>
void pack_a_groups(int64_t m, int64_t k, const void* src, int64_t rs, int64_t cs, int mr,
                   unsigned flags, std::uint32_t* out) {
  pack_group_lines<F>(m, k, src, rs, cs, mr, flags, out, [](const std::uint32_t*, int64_t, int) {});
}

// The contract of LowpPackBFn: columns of op(B) are the panel lines; the column sums of the
// packed bytes (padding is zero), read with the operand's sign (kSigned), are added to colsum.
template <class F>
void pack_b_groups(int64_t k, int64_t n, const void* src, int64_t rs, int64_t cs, int nr,
                   unsigned flags, std::uint32_t* out, std::int32_t* colsum) {
  const int64_t groups = GroupDepth<F>(k).groups;
  const auto sums = [&](const std::uint32_t* panel, int64_t j0, int cols) {
    if (colsum == nullptr) return;
    const bool sgn = (flags & 2u) != 0;
    for (int64_t g = 0; g < groups; ++g) {
      const std::uint32_t* o = panel + g * nr;
      for (int j = 0; j < cols; ++j) {
        const std::uint32_t w = o[j];
        std::int32_t sum = 0;
        for (int q = 0; q < 4; ++q) {
          const std::uint8_t byte = static_cast<std::uint8_t>(w >> (8 * q));
          sum += sgn ? static_cast<std::int32_t>(static_cast<std::int8_t>(byte)) : byte;
        }
        colsum[j0 + j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(colsum[j0 + j]) +
                                                   static_cast<std::uint32_t>(sum));
      }
    }
  };
  pack_group_lines<F>(n, k, src, cs, rs, nr, flags, out, sums);
}

}  // namespace
}  // namespace adaptcore::kernels
