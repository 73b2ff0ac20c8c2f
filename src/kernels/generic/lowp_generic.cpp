// Low-precision paths for CPUs without the dot-product instructions, and the table lookup.
// Baseline flags only, so they run on any x86-64 CPU:
//   bf16: each value widened to fp32 while packing (exact: a bf16 is the top half of an fp32),
//         then the ISA path's own fp32 kernels; a bf16 x bf16 product (8 x 8 significant bits)
//         is exact in fp32, so the error is the fp32 accumulation's, as with vdpbf16ps.
//   int8: a portable kernel over the same 4-byte groups as vpdpbusd, exact modulo 2^32.
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "kernels/lowp.hpp"

namespace {
#include "kernels/lowp_pack_template.hpp"

using adaptcore::kernels::LowpArgs;

// Byte q of a group word, as the operand's type.
template <bool Signed>
inline std::int32_t byte_of(std::uint32_t w, int q) {
  const auto b = static_cast<std::uint8_t>(w >> (8 * q));
  return Signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(b)) : b;
}

template <int PMR, int M, int NR, bool Swapped>
void int8_generic(const LowpArgs& x) {
  std::uint32_t acc[M][NR] = {};  // unsigned: wrapping is defined, as in vpdpbusd
  const std::uint32_t* a = x.a;
  const std::uint32_t* b = x.b;
  for (int64_t g = 0; g < x.groups; ++g) {
    for (int i = 0; i < M; ++i) {
      const std::uint32_t aw = a[i];
      const std::int32_t a0 = byte_of<Swapped>(aw, 0), a1 = byte_of<Swapped>(aw, 1),
                         a2 = byte_of<Swapped>(aw, 2), a3 = byte_of<Swapped>(aw, 3);
      for (int j = 0; j < NR; ++j) {
        const std::uint32_t bw = b[j];
        // |each product| <= 32640: the sum of four fits in int32.
        const std::int32_t s = a0 * byte_of<!Swapped>(bw, 0) + a1 * byte_of<!Swapped>(bw, 1) +
                               a2 * byte_of<!Swapped>(bw, 2) + a3 * byte_of<!Swapped>(bw, 3);
        acc[i][j] += static_cast<std::uint32_t>(s);
      }
    }
    a += PMR;
    b += NR;
  }
  auto* c = static_cast<std::int32_t*>(x.c);
  const auto beta = static_cast<std::uint32_t>(x.ibeta);
  for (int i = 0; i < M; ++i) {
    std::int32_t* row = c + i * x.ldc;
    for (int j = 0; j < x.n; ++j) {
      std::uint32_t r = acc[i][j];
      if (beta != 0) r += beta * static_cast<std::uint32_t>(row[j]);
      row[j] = static_cast<std::int32_t>(r);
    }
  }
}

template <int PMR, int NR, bool Swapped, int... Ms>
constexpr std::array<adaptcore::kernels::LowpFn, adaptcore::kernels::kMaxMr> int8_rows(
    std::integer_sequence<int, Ms...>) {
  return {&int8_generic<PMR, Ms + 1, NR, Swapped>...};
}

template <int MR, int NR>
constexpr adaptcore::kernels::LowpTile int8_tile() {
  adaptcore::kernels::LowpTile t{};
  t.mr = MR;
  t.nr = NR;
  t.fn = int8_rows<MR, NR, false>(std::make_integer_sequence<int, MR>{});
  t.fn_swapped = int8_rows<MR, NR, true>(std::make_integer_sequence<int, MR>{});
  return t;
}

constexpr adaptcore::kernels::LowpTile kInt8Tiles[] = {int8_tile<4, 16>()};

constexpr adaptcore::kernels::LowpKernels int8_table(adaptcore::Isa isa) {
  return {adaptcore::DType::U8S8, isa, "int32-generic", 4, 4, 1.0, kInt8Tiles,
          &pack_a_groups<Int8Quads>, &pack_b_groups<Int8Quads>, nullptr};
}
constexpr adaptcore::kernels::LowpKernels kInt8[] = {
    int8_table(adaptcore::Isa::Generic), int8_table(adaptcore::Isa::Avx2),
    int8_table(adaptcore::Isa::Avx512)};

// bf16 -> fp32 tables: one per ISA path, over that path's fp32 tiles (made on first use, as
// the fp32 tables live in other units).
struct ConvertTable {
  std::array<adaptcore::kernels::LowpTile, 8> tiles{};
  adaptcore::kernels::LowpKernels ks{};
};

ConvertTable make_convert(const adaptcore::kernels::IsaKernels& f) {
  ConvertTable t;
  const std::size_t count = std::min(f.tiles.size(), t.tiles.size());
  for (std::size_t i = 0; i < count; ++i) {
    t.tiles[i].mr = f.tiles[i].mr;
    t.tiles[i].nr = f.tiles[i].nr;
    t.tiles[i].fp32 = &f.tiles[i];
  }
  t.ks = {adaptcore::DType::Bf16, f.isa, "fp32-convert", 1, f.lanes, 1.0,
          std::span<const adaptcore::kernels::LowpTile>(t.tiles.data(), count),
          &pack_a_groups<Bf16ToF32>, &pack_b_groups<Bf16ToF32>, nullptr};
  return t;
}

const adaptcore::kernels::LowpKernels* convert_kernels(adaptcore::Isa isa) {
  using adaptcore::Isa;
  const adaptcore::kernels::IsaKernels* f = adaptcore::kernels::kernels_for(isa);
  if (f == nullptr) return nullptr;
  switch (isa) {
    case Isa::Avx512: {
      static const ConvertTable t = make_convert(*f);
      return &t.ks;
    }
    case Isa::Avx2: {
      static const ConvertTable t = make_convert(*f);
      return &t.ks;
    }
    case Isa::Generic: {
      static const ConvertTable t = make_convert(*f);
      return &t.ks;
    }
    case Isa::Auto:
      break;
  }
  return nullptr;
}
}  // namespace

namespace adaptcore::kernels {

const LowpKernels* lowp_kernels_for(DType dtype, Isa isa, bool native) noexcept {
  if (isa == Isa::Auto || dtype == DType::F32 || kernels_for(isa) == nullptr) return nullptr;
  if (dtype == DType::Bf16) {
    if (isa == Isa::Avx512 && native && bf16_avx512_kernels() != nullptr)
      return bf16_avx512_kernels();
    return convert_kernels(isa);
  }
  if (isa == Isa::Avx512 && native && int8_vnni_kernels() != nullptr) return int8_vnni_kernels();
  return &kInt8[isa == Isa::Generic ? 0 : isa == Isa::Avx2 ? 1 : 2];
}

}  // namespace adaptcore::kernels
