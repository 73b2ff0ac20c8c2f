// The tables of the generic level's units (config.cpp registers them), and the portable
// low-precision tables every x86 level below the dot-product levels builds over its own fp32
// kernels.
#pragma once

#include <array>

#include "adaptcore/types.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"

namespace adaptcore::kernels {

const IsaKernels& generic_kernels() noexcept;    // sgemm_generic.cpp
const WqKernels& wq_generic_kernels() noexcept;  // wq_generic.cpp

// int8 through a portable kernel over vpdpbusd's 4-byte groups (exact modulo 2^32), filed
// under `level` (whose fp32 post-ops its executor applies).
LowpKernels portable_int8_kernels(Isa level) noexcept;  // lowp_generic.cpp

// bf16 widened to fp32 while packing, then the fp32 kernels `fp32` (exact: a bf16 is the top
// half of an fp32, and a product of two is exact in fp32). Holds the tiles its table points to,
// so it stays where it was made.
struct Bf16ConvertKernels {
  explicit Bf16ConvertKernels(const IsaKernels& fp32) noexcept;  // lowp_generic.cpp
  Bf16ConvertKernels(const Bf16ConvertKernels&) = delete;
  Bf16ConvertKernels& operator=(const Bf16ConvertKernels&) = delete;

  std::array<LowpTile, 8> tiles{};
  LowpKernels table{};
};

// The Level of an x86 level that adds fp32 kernels (Fp32(), its own) and runs bf16 and int8 over
// them the portable way; made on first use (its config.cpp's level_<name>()).
template <Isa Id, const IsaKernels& (*Fp32)() noexcept>
const Level& fp32_level() noexcept {
  static const Bf16ConvertKernels bf16(Fp32());
  static const LowpKernels int8 = portable_int8_kernels(Id);
  static const Level level{Id, &Fp32(), &bf16.table, &int8};
  return level;
}

}  // namespace adaptcore::kernels
