// The shape key: everything a plan depends on, nothing it does not (no pointers, alpha, beta).
// Two calls with equal keys can share a plan.
#pragma once

#include <cstdint>
#include <functional>

#include "adaptcore/types.hpp"
#include "core/dtype.hpp"
#include "core/problem.hpp"

namespace adaptcore {

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
  // The call's operands start in memory (Residency): every first read of A, B and C is
  // priced from DRAM, whatever their size. False: they are where they fit.
  bool cold = false;
  // B prepacked into full-depth panels of this many columns (PackedWeights, GemmProblem::
  // b_panel_nr): only register tiles of that width reading B in place apply. 0: B as stored.
  std::uint8_t b_panel_nr = 0;

  friend bool operator==(const ShapeKey&, const ShapeKey&) = default;
};

// log2 of the largest power of two dividing a distance of `elements` elements of
// `element_bytes` each, capped at 16 (0 elements: 16).
inline std::uint8_t stride_log2(int64_t elements, int element_bytes = 4) noexcept {
  const auto bytes =
      static_cast<std::uint64_t>(elements) * static_cast<std::uint64_t>(element_bytes);
  const int tz = bytes == 0 ? 16 : __builtin_ctzll(bytes);
  return static_cast<std::uint8_t>(tz < 16 ? tz : 16);
}

inline ShapeKey make_key(const GemmProblem& p, Isa isa, int threads) noexcept {
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
  key.b_panel_nr = static_cast<std::uint8_t>(p.b_panel_nr);
  return key;
}

// The key of the transposed problem C^T = op(B)^T op(A)^T (Plan::transpose_c): m and n
// exchanged, op(B)^T in A's place and op(A)^T in B's, with their layout flags.
inline ShapeKey transposed_key(const ShapeKey& k) noexcept {
  ShapeKey t = k;
  t.m = k.n, t.n = k.m;
  t.a_row_unit = !k.b_row_unit;  // op(B)^T (j, p) = op(B)(p, j): rows contiguous if b_cs != 1
  t.b_row_unit = !k.a_row_unit;  // op(A)^T (p, i): rows contiguous if a_rs == 1
  t.a_k_unit = k.b_k_unit;
  t.b_k_unit = k.a_k_unit;
  t.a_ld_log2 = k.b_ld_log2;
  t.b_ld_log2 = k.a_ld_log2;
  return t;
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
  const std::uint64_t flags =
      (k.a_row_unit ? 1u : 0u) | (k.b_row_unit ? 2u : 0u) | (k.a_k_unit ? 1ULL << 56 : 0u) |
      (k.b_k_unit ? 1ULL << 57 : 0u) | (static_cast<std::uint64_t>(k.isa) << 2) |
      (static_cast<std::uint64_t>(k.dtype) << 6) | (k.a_bf16 ? 1ULL << 58 : 0u) |
      (k.cold ? 1ULL << 59 : 0u) | (static_cast<std::uint64_t>(k.wq_group) << 24) |
      (static_cast<std::uint64_t>(k.a_ld_log2) << 40) |
      (static_cast<std::uint64_t>(k.b_ld_log2) << 48) |
      (static_cast<std::uint64_t>(k.b_panel_nr) << 33) |
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.threads)) << 8);
  // The four words multiplied by distinct odd constants side by side (the multiplies do not
  // wait for each other), then one finalizer so that the table's low bits depend on every
  // field. Latency 5.5 ns against 14.5 for four chained finalizers (the hash was the largest
  // part of a 1x1x1 call's ~60 ns in perf of adaptcore_bench_dispatch); over a 5,760-key
  // shape grid the fullest of 4,096 slots holds 7 keys (chained: 9).
  const std::uint64_t h = (static_cast<std::uint64_t>(k.m) * 0x9e3779b97f4a7c15ULL) ^
                          (static_cast<std::uint64_t>(k.n) * 0xc2b2ae3d27d4eb4fULL) ^
                          (static_cast<std::uint64_t>(k.k) * 0x165667b19e3779f9ULL) ^
                          (flags * 0xd6e8feb86659fd93ULL);
  return mix(h);
}

}  // namespace adaptcore
