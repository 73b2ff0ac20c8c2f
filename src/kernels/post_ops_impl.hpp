// The fused epilogue's operations on a block of C (core/post_ops.hpp), written as plain loops
// the compiler vectorises for the ISA unit that includes this file (fp32_kernels.hpp: each path
// gets its own copy, compiled with its instruction set). The transcendental functions are
// branch-free fp32 approximations, so they vectorise too (a call to std::exp or std::erf per
// element would not, and would cost more than the GEMM tile it follows):
//   exp(x)  = 2^n p(r), n = round(x log2 e), r = x - n ln 2 (two-part ln 2), p the degree-6
//             Taylor polynomial on |r| <= ln2 / 2: relative error < 2e-7 before rounding
//   GeluErf 0.5 x erfc(-x / sqrt 2), erfc by a Chebyshev fit: relative error < 1.2e-7 (and no
//           cancellation in either tail)
//   GeluTanh x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)  (0.5 (1 + tanh u) = sigmoid(2u))
//   Silu    x sigmoid(x), sigmoid(y) = 1 / (1 + exp(-y))
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "core/post_ops.hpp"

namespace adaptcore::kernels {
namespace {

inline float post_exp(float x) {
  x = std::min(88.0f, std::max(-87.0f, x));
  // Round to nearest by the 1.5 * 2^23 shift (exact for |x log2 e| < 2^22), which vectorises
  // where a call to floor or nearbyint would not.
  constexpr float kShift = 12582912.0f;
  const float n = (x * 1.44269504088896341f + kShift) - kShift;
  const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723e-6f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * std::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);
}

inline float post_sigmoid_times(float x, float y) { return x / (1.0f + post_exp(-y)); }

// erfc(z) for z >= 0 with a relative error below 1.2e-7 (Numerical Recipes' erfcc, a
// Chebyshev fit of exp(z^2) erfc(z)): the tail stays accurate where 1 - erf(z) would cancel.
inline float post_erfc(float z) {
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  return t * post_exp(p - z * z);
}

// 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2): for x < 0 the tail itself, for x >= 0
// 2 - the tail, both without cancellation.
inline float post_gelu_erf(float x) {
  const float e = post_erfc(std::max(x, -x) * 0.7071067811865476f);
  return 0.5f * x * (x < 0.0f ? e : 2.0f - e);
}

// Round to nearest even (adaptcore::float_to_bf16, written without the branch so it
// vectorises): NaN keeps a quiet NaN's top bits.
inline std::uint16_t post_to_bf16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return static_cast<std::uint16_t>(nan ? ((u >> 16) | 0x40u) : rounded);
}

// The output operation (SwiGlu, Store) on row i of the block, its values in row[0, w) for
// columns [j0, j0 + w). SwiGlu: the pairs (2p, 2p + 1) inside the segment (the executors' blocks
// start and end on even columns: whole register tiles and panels).
inline void post_output(const PostOpChain::Op& op, const float* __restrict row, int64_t i,
                        int64_t j0, int64_t w) {
  auto put = [&](auto* base, int64_t first, int64_t count, auto value) {
    auto* o = base + i * op.out_rs + first * op.out_cs;
    if (op.out_cs == 1)
      for (int64_t x = 0; x < count; ++x) o[x] = value(x);
    else  // an output stored across its rows (a one-column C solved as its transpose)
      for (int64_t x = 0; x < count; ++x) o[x * op.out_cs] = value(x);
  };
  auto emit = [&](int64_t first, int64_t count, auto value) {
    if (op.out_bf16)
      put(static_cast<std::uint16_t*>(op.out), first, count,
          [&](int64_t x) { return post_to_bf16(value(x)); });
    else
      put(static_cast<float*>(op.out), first, count, value);
  };
  if (op.kind == PostOpKind::Store) {
    emit(j0, w, [&](int64_t x) { return row[x]; });
    return;
  }
  const int64_t first = j0 % 2;  // 1: the segment starts on an up column, skipped
  const float* __restrict g = row + first;
  emit((j0 + first) / 2, (w - first) / 2,
       [&](int64_t p) { return post_sigmoid_times(g[2 * p], g[2 * p]) * g[2 * p + 1]; });
}

// Rows [i0, i1) x columns [j0, j1) of the normalised C, element (i, j) at
// c[(i - i0) * ldc + (j - j0)] (c is the block's first element), each operation over a row
// segment in turn (the segment stays in L1 between them); the chain's vectors, residual and
// output are indexed by the global (i, j).
void apply_post_ops(const PostOpChain& chain, float* c, int64_t ldc, int64_t i0, int64_t i1,
                    int64_t j0, int64_t j1) {
  const int64_t w = j1 - j0;
  const int count = chain.fused_count();
  for (int64_t i = i0; i < i1; ++i) {
    float* __restrict row = c + (i - i0) * ldc;
    for (int o = 0; o < count; ++o) {
      const PostOpChain::Op& op = chain.ops[static_cast<std::size_t>(o)];
      switch (op.kind) {
        case PostOpKind::Bias:
        case PostOpKind::Scale:
        case PostOpKind::Residual: {
          const float* d = op.data + i * op.rs + j0 * op.cs;
          const bool add = op.kind != PostOpKind::Scale;
          if (op.cs == 1) {
            if (add)
              for (int64_t j = 0; j < w; ++j) row[j] += d[j];
            else
              for (int64_t j = 0; j < w; ++j) row[j] *= d[j];
          } else if (op.cs == 0) {  // one value for the whole row
            const float v = d[0];
            if (add)
              for (int64_t j = 0; j < w; ++j) row[j] += v;
            else
              for (int64_t j = 0; j < w; ++j) row[j] *= v;
          } else {  // a residual read across its rows (a transposed problem)
            for (int64_t j = 0; j < w; ++j) row[j] += d[j * op.cs];
          }
          break;
        }
        case PostOpKind::Relu:
          for (int64_t j = 0; j < w; ++j) row[j] = std::max(row[j], 0.0f);
          break;
        case PostOpKind::GeluTanh:
          for (int64_t j = 0; j < w; ++j) {
            const float x = row[j];
            const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
            row[j] = post_sigmoid_times(x, 2.0f * u);
          }
          break;
        case PostOpKind::GeluErf:
          for (int64_t j = 0; j < w; ++j) row[j] = post_gelu_erf(row[j]);
          break;
        case PostOpKind::Silu:
          for (int64_t j = 0; j < w; ++j) row[j] = post_sigmoid_times(row[j], row[j]);
          break;
        case PostOpKind::SwiGlu:
        case PostOpKind::Store: post_output(op, row, i, j0, w); break;
      }
    }
  }
}

}  // namespace
}  // namespace adaptcore::kernels
