// A weight-quantized GEMM call (gemm_quantized) after validation: op(A) as element strides,
// C as element strides (a column-major C is written through its strides, not transposed: the
// weights are packed for one orientation).
#pragma once

#include <cstdint>

#include "adaptcore/adaptcore.hpp"
#include "core/shape_key.hpp"
#include "core/wq_weights.hpp"

namespace adaptcore {

struct WqProblem {
  int64_t m = 0;
  const void* a = nullptr;  // op(A)(i, p) at a + (i * a_rs + p * a_cs) elements
  bool a_bf16 = false;
  int64_t a_rs = 1, a_cs = 1;
  float* c = nullptr;  // C(i, j) at c[i * c_rs + j * c_cs]
  int64_t c_rs = 1, c_cs = 1;
  float beta = 0.0f;
  int parts = 2;
  const detail::QuantizedWeightsImpl* w = nullptr;
  // The columns computed: [col0, col0 + cols) of the weights (col0 a multiple of the 32-column
  // panels), C's first column being col0's; cols 0: all of them. A grouped call's unit runs a
  // chunk of an expert's columns this way.
  int64_t col0 = 0, cols = 0;
  // The fused epilogue (core/post_ops.hpp) over C (null: none), normalised to C's rows, or with
  // post_transposed (a column-major C) to C^T; owned by the caller for the call's duration.
  const struct PostOpChain* post = nullptr;
  bool post_transposed = false;

  int64_t n() const noexcept { return cols > 0 ? cols : w->n; }
  int64_t k() const noexcept { return w->k; }
};

// Checks in this order: layout, transpose, m (InvalidDimension when negative), parts
// (InvalidArgument), handle (NullPointer when empty), leading dimensions, size overflow, null
// operands, C overlapping A (Aliasing).
Status make_wq_problem(Layout layout, Trans transa, int64_t m, const void* a, bool a_bf16,
                       int64_t lda, const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                       ActivationParts parts, WqProblem& out) noexcept;

// The dtype of a weight format and part count (W8A16, W8A8, W4A16, W4A8).
DType wq_dtype(WeightFormat format, int parts) noexcept;

ShapeKey make_key(const WqProblem& p, Isa isa, int threads) noexcept;
// The key of a shape without operands (row-major A with rows k apart): what `adaptcore explain`
// shows and `run` times.
ShapeKey make_wq_shape_key(int64_t m, int64_t n, int64_t k, DType dtype, int64_t group, bool a_bf16,
                           Isa isa, int threads) noexcept;

}  // namespace adaptcore
