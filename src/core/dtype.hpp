// Element types of a GEMM, the leaf every layer may include. fp32; bf16 x bf16 with fp32
// accumulation (fp32 or bf16 C); u8 x s8 with s32 accumulation (s8 x s8 runs as u8 x s8 after a
// +128 shift). Weight-quantized GEMM (docs/QUANT.md) adds int8 or int4 weights with activations
// split into two int8 parts (W8A16, W4A16) or one (W8A8, W4A8: dynamic activation quantization).
// Plans differ per type (element size changes cache capacities, each has its own kernels), so it
// is part of the shape key.
#pragma once

#include <cstdint>

#include "core/enum_names.hpp"

namespace adaptcore {

enum class DType : std::uint8_t {
  F32 = 0,
  Bf16 = 1,
  U8S8 = 2,
  W8A16 = 3,
  W8A8 = 4,
  W4A16 = 5,
  W4A8 = 6
};
// The dtypes plan files carry (gemm, gemm_bf16, gemm_*s8s32).
inline constexpr std::uint8_t kDTypeCount = 3;
inline constexpr std::uint8_t kAllDTypeCount = 7;

inline bool is_weight_quantized(DType d) noexcept {
  return static_cast<std::uint8_t>(d) >= 3 && static_cast<std::uint8_t>(d) < kAllDTypeCount;
}
inline bool wq_dtype_int4(DType d) noexcept { return d == DType::W4A16 || d == DType::W4A8; }
inline int wq_dtype_parts(DType d) noexcept {
  return d == DType::W8A16 || d == DType::W4A16 ? 2 : 1;
}
// Bytes of one element of op(A) and op(B) as the caller stores them (fp32 4, bf16 2, int8 1).
inline int input_bytes(DType d) noexcept { return d == DType::Bf16 ? 2 : d == DType::U8S8 ? 1 : 4; }

inline const char* to_string(DType d) noexcept {
  using enum DType;
  return name_of(d, {{F32, "f32"},
                     {Bf16, "bf16"},
                     {U8S8, "u8s8"},
                     {W8A16, "w8a16"},
                     {W8A8, "w8a8"},
                     {W4A16, "w4a16"},
                     {W4A8, "w4a8"}});
}

}  // namespace adaptcore
