// Packing into 32-bit group panels (see lowp.hpp), written once over a group format and
// included (inside an anonymous namespace) by each unit that needs it, so it is compiled with
// that unit's ISA flags. Formats:
//   Bf16Pairs  two consecutive k values of bf16 per word (low half first), for vdpbf16ps
//   Bf16ToF32  one bf16 value widened to its fp32 bit pattern, for the fp32 kernels
//   Int8Quads  four consecutive k values of 8 bits per word (lowest byte first), for vpdpbusd;
//              kFlip xors every real byte with 0x80 (padding stays 0)

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
inline std::uint32_t group_word(const typename F::T* p, int64_t stride, int count,
                                unsigned flags) {
  std::uint32_t w = 0;
  for (int q = 0; q < count; ++q) w |= F::elem(p[q * stride], flags) << (q * F::kBits);
  return w;
}

template <class F>
void pack_a_groups(int64_t m, int64_t k, const void* src, int64_t rs, int64_t cs, int mr,
                   unsigned flags, std::uint32_t* out) {
  using T = typename F::T;
  constexpr int G = F::G;
  const T* a = static_cast<const T*>(src);
  const int64_t groups = (k + G - 1) / G, full = k / G;
  const int tail = static_cast<int>(k - full * G);
  for (int64_t i0 = 0; i0 < m; i0 += mr, out += groups * mr) {
    const int rows = static_cast<int>(std::min<int64_t>(mr, m - i0));
    if (cs == 1 && rows == mr) {
      // Rows contiguous along k (row-major A): walk the mr rows side by side so the panel is
      // written in order, one 32-bit load per group.
      for (int64_t g = 0; g < full; ++g) {
        std::uint32_t* o = out + g * mr;
        const T* p = a + i0 * rs + g * G;
        for (int i = 0; i < mr; ++i) o[i] = F::word(p + i * rs, flags);
      }
    } else {
      for (int i = 0; i < rows; ++i) {
        const T* row = a + (i0 + i) * rs;
        if (cs == 1) {
          for (int64_t g = 0; g < full; ++g) out[g * mr + i] = F::word(row + g * G, flags);
        } else {
          for (int64_t g = 0; g < full; ++g)
            out[g * mr + i] = group_word<F>(row + g * G * cs, cs, G, flags);
        }
      }
    }
    for (int i = 0; i < rows; ++i)
      if (tail > 0) out[full * mr + i] = group_word<F>(a + (i0 + i) * rs + full * G * cs, cs, tail, flags);
    for (int i = rows; i < mr; ++i)
      for (int64_t g = 0; g < groups; ++g) out[g * mr + i] = 0;
  }
}

template <class F>
void pack_b_groups(int64_t k, int64_t n, const void* src, int64_t rs, int64_t cs, int nr,
                   unsigned flags, std::uint32_t* out, std::int32_t* colsum) {
  using T = typename F::T;
  constexpr int G = F::G;
  const T* b = static_cast<const T*>(src);
  const int64_t groups = (k + G - 1) / G, full = k / G;
  const int tail = static_cast<int>(k - full * G);
  for (int64_t j0 = 0; j0 < n; j0 += nr, out += groups * nr) {
    const int cols = static_cast<int>(std::min<int64_t>(nr, n - j0));
    if (cs == 1) {
      // Rows contiguous: G rows interleaved column by column (vectorises).
      for (int64_t g = 0; g < full; ++g) {
        std::uint32_t* o = out + g * nr;
        const T* r = b + g * G * rs + j0;
        for (int j = 0; j < cols; ++j) {
          std::uint32_t w = 0;
          for (int q = 0; q < G; ++q) w |= F::elem(r[q * rs + j], flags) << (q * F::kBits);
          o[j] = w;
        }
      }
      if (tail > 0) {
        std::uint32_t* o = out + full * nr;
        const T* r = b + full * G * rs + j0;
        for (int j = 0; j < cols; ++j) o[j] = group_word<F>(r + j, rs, tail, flags);
      }
    } else {
      // Columns contiguous along k (B transposed): each column's groups are consecutive.
      if (rs == 1) {
        // The columns side by side, so the panel is written in order.
        for (int64_t g = 0; g < full; ++g) {
          std::uint32_t* o = out + g * nr;
          const T* p = b + j0 * cs + g * G;
          for (int j = 0; j < cols; ++j) o[j] = F::word(p + j * cs, flags);
        }
      }
      for (int j = 0; j < cols; ++j) {
        const T* col = b + (j0 + j) * cs;
        if (rs != 1) {
          for (int64_t g = 0; g < full; ++g)
            out[g * nr + j] = group_word<F>(col + g * G * rs, rs, G, flags);
        }
        if (tail > 0) out[full * nr + j] = group_word<F>(col + full * G * rs, rs, tail, flags);
      }
    }
    for (int64_t g = 0; g < groups; ++g)
      for (int j = cols; j < nr; ++j) out[g * nr + j] = 0;
    if (colsum != nullptr) {
      // Column sums of the packed bytes (padding is zero), read with the operand's sign.
      const bool sgn = (flags & 2u) != 0;
      for (int64_t g = 0; g < groups; ++g) {
        const std::uint32_t* o = out + g * nr;
        for (int j = 0; j < cols; ++j) {
          const std::uint32_t w = o[j];
          std::int32_t s = 0;
          for (int q = 0; q < 4; ++q) {
            const std::uint8_t byte = static_cast<std::uint8_t>(w >> (8 * q));
            s += sgn ? static_cast<std::int32_t>(static_cast<std::int8_t>(byte)) : byte;
          }
          colsum[j0 + j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(colsum[j0 + j]) +
                                                     static_cast<std::uint32_t>(s));
        }
      }
    }
  }
}
