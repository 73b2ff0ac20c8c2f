// The shape key: everything a plan depends on, nothing it does not (no pointers, alpha, beta).
// Two calls with equal keys can share a plan.
#pragma once

#include <cstdint>
#include <functional>

#include "adaptcore/types.hpp"
#include "core/problem.hpp"

namespace adaptcore {

// Element types of a GEMM: fp32; bf16 x bf16 with fp32 accumulation (fp32 or bf16 C); u8 x s8
// with s32 accumulation (s8 x s8 runs as u8 x s8 after a +128 shift). Plans differ per type
// (element size changes cache capacities, each has its own kernels), so it is part of the key.
// Weight-quantized GEMM (docs/QUANT.md) adds int8 or int4 weights with activations split into
// two int8 parts (W8A16, W4A16) or one (W8A8, W4A8: dynamic activation quantization); the
// weight group size and the activation type are in the key's wq_group / a_bf16.
enum class DType : std::uint8_t {
  F32 = 0, Bf16 = 1, U8S8 = 2, W8A16 = 3, W8A8 = 4, W4A16 = 5, W4A8 = 6
};
// The dtypes of gemm / gemm_bf16 / gemm_*s8s32, which plan files carry (weight-quantized plans
// are not written to plan files, and entries with those dtypes are rejected).
inline constexpr std::uint8_t kDTypeCount = 3;
inline constexpr std::uint8_t kAllDTypeCount = 7;
inline bool is_weight_quantized(DType d) noexcept {
  return static_cast<std::uint8_t>(d) >= 3 && static_cast<std::uint8_t>(d) < kAllDTypeCount;
}
inline const char* to_string(DType d) noexcept {
  switch (d) {
    case DType::F32: return "f32";
    case DType::Bf16: return "bf16";
    case DType::U8S8: return "u8s8";
    case DType::W8A16: return "w8a16";
    case DType::W8A8: return "w8a8";
    case DType::W4A16: return "w4a16";
    case DType::W4A8: return "w4a8";
  }
  return "?";
}

struct ShapeKey {
  int64_t m = 0, n = 0, k = 0;
  bool a_row_unit = false;  // A rows contiguous (read with AMode::RowUnit when not packed)
  bool b_row_unit = true;   // B rows contiguous (may be read in place)
  bool a_k_unit = true;     // A contiguous along k (a_cs == 1)
  bool b_k_unit = false;    // B contiguous along k (b_rs == 1): dot-product kernels apply
  // log2 of the largest power of two dividing the byte distance between the rows of A
  // (row-major A) and of B (capped at 16): all that cache-set conflicts of in-place reads
  // depend on, so plans can be shared across leading dimensions with the same value.
  std::uint8_t a_ld_log2 = 2;
  std::uint8_t b_ld_log2 = 2;
  Isa isa = Isa::Generic;
  int threads = 1;  // threads available to the call
  DType dtype = DType::F32;
  // Weight-quantized dtypes only: the weights' K-group (0: one scale per column) and whether
  // the activations are bf16 (else fp32).
  std::uint16_t wq_group = 0;
  bool a_bf16 = false;

  friend bool operator==(const ShapeKey&, const ShapeKey&) = default;
};

inline std::uint8_t stride_log2(int64_t elements) {
  const auto bytes = static_cast<std::uint64_t>(elements) * 4u;
  const int tz = bytes == 0 ? 16 : __builtin_ctzll(bytes);
  return static_cast<std::uint8_t>(tz < 16 ? tz : 16);
}

inline ShapeKey make_key(const GemmProblem& p, Isa isa, int threads) {
  ShapeKey key;
  key.m = p.m, key.n = p.n, key.k = p.k;
  key.a_row_unit = p.a_row_unit();
  key.b_row_unit = p.b_row_unit();
  key.a_k_unit = p.a_cs == 1;
  key.b_k_unit = p.b_rs == 1;
  key.a_ld_log2 = key.a_row_unit ? stride_log2(p.a_rs) : stride_log2(p.a_cs);
  key.b_ld_log2 = key.b_row_unit ? stride_log2(p.b_rs) : stride_log2(p.b_cs);
  key.isa = isa;
  key.threads = threads;
  return key;
}

// 64-bit mix of the key (splitmix64 finaliser over the packed fields): cheap and well spread,
// so an open-addressing table needs no second hash.
inline std::uint64_t hash_key(const ShapeKey& k) noexcept {
  auto mix = [](std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
  };
  const std::uint64_t flags = (k.a_row_unit ? 1u : 0u) | (k.b_row_unit ? 2u : 0u) |
                              (k.a_k_unit ? 1ULL << 56 : 0u) | (k.b_k_unit ? 1ULL << 57 : 0u) |
                              (static_cast<std::uint64_t>(k.isa) << 2) |
                              (static_cast<std::uint64_t>(k.dtype) << 6) |
                              (k.a_bf16 ? 1ULL << 58 : 0u) |
                              (static_cast<std::uint64_t>(k.wq_group) << 24) |
                              (static_cast<std::uint64_t>(k.a_ld_log2) << 40) |
                              (static_cast<std::uint64_t>(k.b_ld_log2) << 48) |
                              (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.threads))
                               << 8);
  std::uint64_t h = mix(static_cast<std::uint64_t>(k.m) + 0x9e3779b97f4a7c15ULL);
  h = mix(h ^ static_cast<std::uint64_t>(k.n));
  h = mix(h ^ static_cast<std::uint64_t>(k.k));
  return mix(h ^ flags);
}

}  // namespace adaptcore
