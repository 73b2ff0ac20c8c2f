// The epilogue of every register-tile and dot-product kernel: what happens to the accumulators
// after the mainloop (tile_mainloop.hpp), kept apart from it so that a new output operation is
// a new policy type, not an edit of any loop.
//
// An output op turns accumulators into C values, per vector (reg) and per value (elem, for the
// dot-product tiles' horizontal sums):
//   needs_source()          whether C's old value is read (false: C may hold anything, NaN)
//   op(acc, slot)           the value to store when it is not
//   op(acc, c, slot)        the value to store given C's old value c
// `slot` says where the vector lies in the tile (row, first column, valid lanes), for ops that
// read per-row or per-column data (a bias, say). The ops here are the types' own:
//   LinearCombination  fp32 C = alpha * acc + beta * C   (fp32, and bf16's fp32 accumulators)
//   WrapAccumulate     int32 C = acc + ibeta * C modulo 2^32   (int8)
//   DequantizedOutput  fp32 C = acc * column scale * row factor + beta * C   (weight-quantized)
// TypedOutput picks between them by the accumulators' element type.
//
// store_tile is the one column-tail mechanism of the stores: whole vectors while the tile is
// complete, masked ones up to column n, none past it.
// Included by the ISA units; the unnamed namespace gives each its own copy, built with its flags.
#pragma once

#include <cstdint>
#include <type_traits>

namespace adaptcore::kernels {
namespace {

// Where an output vector lies: row of the tile, its first column, how many lanes are valid.
struct TileSlot {
  int row;
  int col;
  int valid;
};

template <class V>
struct LinearCombination {
  using reg = typename V::reg;
  float alpha, beta;
  reg valpha, vbeta;

  LinearCombination(float a, float b) : alpha(a), beta(b), valpha(V::set1(a)), vbeta(V::set1(b)) {}
  bool needs_source() const { return beta != 0.0f; }
  reg operator()(reg acc, TileSlot) const { return V::mul(valpha, acc); }
  reg operator()(reg acc, reg c, TileSlot) const { return V::fma(vbeta, c, V::mul(valpha, acc)); }
  float operator()(float acc) const { return alpha * acc; }
  float operator()(float acc, float c) const { return V::fma1(beta, c, alpha * acc); }
};

// Wrapping int32: vpmulld keeps the low 32 bits, the scalar form computes in uint32.
template <class V>
struct WrapAccumulate {
  using reg = typename V::reg;
  std::int32_t ibeta;
  reg vbeta;

  explicit WrapAccumulate(std::int32_t b) : ibeta(b), vbeta(V::set1(b)) {}
  bool needs_source() const { return ibeta != 0; }
  reg operator()(reg acc, TileSlot) const { return acc; }
  // beta == 1 (every depth block after the first) adds without the multiply.
  reg operator()(reg acc, reg c, TileSlot) const {
    return ibeta == 1 ? V::add(acc, c) : V::add(acc, V::mul(vbeta, c));
  }
  std::int32_t operator()(std::int32_t acc) const { return acc; }
  std::int32_t operator()(std::int32_t acc, std::int32_t c) const {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) +
                                     static_cast<std::uint32_t>(ibeta) *
                                         static_cast<std::uint32_t>(c));
  }
};

// Weight-quantized tiles (kernels/wq.hpp): the accumulators hold, summed over the activation
// groups, each group's exact int32 value times its activation scale (and the weights' group
// scale); the output is that times the weights' column scale (per-column weights), times the
// row's power-of-two factor, plus beta C. (The per-group flush before it is part of the
// mainloop: its scales change with every group.) `at` is the op on one value, for the portable
// kernel and a strided C.
template <class V>
struct DequantizedOutput {
  using reg = typename V::reg;
  const float* col_scale;   // [j] of the tile's columns; null for group-wise weights
  const float* row_factor;  // [i] of the tile's rows
  float beta;
  reg vbeta;

  DequantizedOutput(const float* cs, const float* rf, float b)
      : col_scale(cs), row_factor(rf), beta(b), vbeta(V::set1(b)) {}
  bool needs_source() const { return beta != 0.0f; }
  reg operator()(reg acc, TileSlot s) const {
    reg x = acc;
    if (col_scale != nullptr)
      x = V::mul(
          x, s.valid == V::W ? V::load(col_scale + s.col) : V::load_n(col_scale + s.col, s.valid));
    return V::mul(x, V::set1(row_factor[s.row]));
  }
  reg operator()(reg acc, reg c, TileSlot s) const { return V::fma(c, vbeta, (*this)(acc, s)); }
  float at(float acc, int i, int j) const {
    float x = acc;
    if (col_scale != nullptr) x *= col_scale[j];
    return x * row_factor[i];
  }
  float at(float acc, float c, int i, int j) const { return V::fma1(c, beta, at(acc, i, j)); }
};

// The output op the accumulator type implies, from the kernel's arguments (alpha and beta, or
// ibeta).
struct TypedOutput {
  template <class V, class Args>
  static auto make(const Args& x) {
    if constexpr (std::is_integral_v<typename V::elem>)
      return WrapAccumulate<V>(x.ibeta);
    else
      return LinearCombination<V>(x.alpha, x.beta);
  }
};

// Starts pulling the C tile in before the mainloop when the op reads it, or when the caller
// asks for the lines it will only write (`written`: kWriteAheadMinSteps): its rows are ldc
// apart and would otherwise miss in the epilogue, after the depth loop, with nothing left to
// overlap the latency (docs/LOWP.md, "Kernel measurements").
template <class V, int M, int NV, class Op>
[[gnu::always_inline]] inline void prefetch_source(const typename V::elem* c, int64_t ldc, int n,
                                                   const Op& op, bool written = false) {
  if (!op.needs_source() && !written) return;
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      if (v * V::W < n) __builtin_prefetch(c + i * ldc + v * V::W, 1, 3);
    }
  }
}

// The same for a tile stored transposed (Plan::transpose_c): its n rows of C, ldc floats
// apart, a line each (or one line for the rows that share it).
template <class Op>
[[gnu::always_inline]] inline void prefetch_transposed_rows(const float* c, int64_t ldc, int n,
                                                            const Op& op, bool written) {
  if (!op.needs_source() && !written) return;
  const int64_t step = ldc * 4 >= 64 ? 1 : 64 / (ldc * 4);
  for (int64_t r = 0; r < n; r += step) __builtin_prefetch(c + r * ldc, 1, 3);
}

// Stores an M x NV tile of accumulators at c (rows ldc apart), columns [0, n) only. Whether C
// is read is decided per vector, not once around the loops: hoisted, the two copies of the
// stores made GCC 12 keep a copy of every vpdpbusd accumulator through the depth loop
// (objdump: a vmovdqa32 / vmovdqa64 pair per accumulator and step).
template <class V, int M, int NV, class Op>
[[gnu::always_inline]] inline void store_tile(const typename V::reg (&acc)[M][NV],
                                              typename V::elem* c, int64_t ldc, int n,
                                              const Op& op) {
  constexpr int W = V::W;
  constexpr int NR = NV * W;
  const bool source = op.needs_source();
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      typename V::elem* cp = c + i * ldc + v * W;
      if (n == NR) {
        const TileSlot slot{i, v * W, W};
        V::store(cp, source ? op(acc[i][v], V::load(cp), slot) : op(acc[i][v], slot));
      } else if (v * W < n) {
        const int nn = n - v * W;
        const TileSlot slot{i, v * W, nn < W ? nn : W};
        V::store_n(cp, source ? op(acc[i][v], V::load_n(cp, nn), slot) : op(acc[i][v], slot), nn);
      }
    }
  }
}

// Stores an M x N tile of dot products (one accumulator vector per output, summed across its
// lanes) at c (rows ldc apart).
template <class V, int M, int N, class Op>
[[gnu::always_inline]] inline void store_dots(const typename V::reg (&acc)[M][N],
                                              typename V::elem* c, int64_t ldc, const Op& op) {
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      typename V::elem* cp = c + i * ldc + j;
      const typename V::elem s = V::hsum(acc[i][j]);
      *cp = op.needs_source() ? op(s, *cp) : op(s);
    }
  }
}

}  // namespace
}  // namespace adaptcore::kernels
