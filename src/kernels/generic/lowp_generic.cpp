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

#include "kernels/generic/int8_step_generic.hpp"
#include "kernels/kernel_tables.hpp"
#include "kernels/lowp.hpp"
#include "kernels/lowp_pack_template.hpp"
#include "kernels/tile_kernels.hpp"

namespace {

using namespace adaptcore::kernels;

// 4 rows x 16 columns, one scalar lane per column.
constexpr LowpTile kInt8Tiles[] = {
    make_lowp_tile<DotBytesStep<false>, DotBytesStep<true>, 4, 16>()};

constexpr adaptcore::kernels::LowpKernels int8_table(adaptcore::Isa isa) {
  return {adaptcore::DType::U8S8,
          isa,
          "int32-generic",
          4,
          4,
          1.0,
          kInt8Tiles,
          &pack_a_groups<Int8Quads>,
          &pack_b_groups<Int8Quads>,
          nullptr};
}
constexpr adaptcore::kernels::LowpKernels kInt8[] = {int8_table(adaptcore::Isa::Generic),
                                                     int8_table(adaptcore::Isa::Avx2),
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
  t.ks = {adaptcore::DType::Bf16,
          f.isa,
          "fp32-convert",
          1,
          f.lanes,
          1.0,
          std::span<const adaptcore::kernels::LowpTile>(t.tiles.data(), count),
          &pack_a_groups<Bf16ToF32>,
          &pack_b_groups<Bf16ToF32>,
          nullptr};
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
    case Isa::Auto: break;
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
