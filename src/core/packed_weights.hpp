// The state behind adaptcore::PackedWeights: fp32 weights packed once into full-depth panels of
// a register tile's width (docs/PACKED.md, "Layout"), and the validation of a gemm_packed call.
//
// Panel q holds columns [q * nr, q * nr + w) with w = min(nr, n - q * nr): element (p, j) at
// data[q * nr * k + p * w + (j - q * nr)]. Whole panels are the kernels' packed-B panels over the
// whole depth, so a depth block [pc, pc + kc) of a panel is the packed panel a per-call packer
// would have made for it, at data + q * nr * k + pc * nr; the last panel is stored only as wide as
// its columns (its rows w apart, read with masked loads), so the handle holds exactly k * n
// floats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/aligned_array.hpp"
#include "core/lowp_problem.hpp"
#include "core/problem.hpp"

namespace adaptcore::kernels {
struct LowpKernels;  // the table a bf16 / int8 handle was packed for (kernels/lowp.hpp)
}

namespace adaptcore::detail {

struct PackedWeightsImpl {
  int64_t k = 0, n = 0;
  int nr = 0;
  Isa isa = Isa::Generic;
  // F32: the fp32 panels above. Bf16: the low-precision table `lowp`'s packed-B panels over the
  // whole depth, every panel nr words wide (the last padded with zeros: those kernels read whole
  // panels), lowp_panel_depth(k, group) words deep (ceil(k / group) rounded up to whole blocks
  // of 16, the padding zero: core/lowp_problem.hpp), a depth block [pc, pc + kc) of panel q at
  // q * nr * words_deep + pc / group * nr words.
  DType dtype = DType::F32;  // F32, Bf16 or U8S8 (int8 weights, s8)
  const kernels::LowpKernels* lowp = nullptr;
  // int8: the column sums of the weights over the whole depth (n values), for a zero point of A.
  std::vector<std::int32_t> colsum;
  // The storage: rows x cols 32-bit words (fp32: k x n; bf16 and int8: lowp_panel_depth(k,
  // group) x round_up(n, nr)), 64-byte aligned, and from 2 MiB on on a 2 MiB boundary with its whole
  // 2 MiB pages asked to be huge pages (madvise), the rest (at most 2 MiB) in ordinary pages.
  int64_t rows = 0, cols = 0;
  std::unique_ptr<float, FreeDeleter> data;

  std::size_t bytes() const noexcept {
    return (static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * 4 + 63) / 64 * 64;
  }
};

}  // namespace adaptcore::detail

namespace adaptcore {

// The normalised problem of a gemm_packed call without its operands (pointers null, alpha 1,
// beta 0): row-major op(A) (m x k, stored transposed or not with leading dimension lda) and C
// (ldc), op(B) from panels of nr columns. What the call, the planner's width choice and the
// tools' explain/run plan with.
GemmProblem packed_problem(int64_t m, int64_t n, int64_t k, bool trans_a, int64_t lda, int64_t ldc,
                           int nr) noexcept;

// Validates a gemm_packed call and builds its problem. Checks in this order: layout (row-major
// only), transpose, m (InvalidDimension when negative), handle (NullPointer when empty), leading
// dimensions, size overflow, null operands, C overlapping A or the weights (Aliasing).
Status make_packed_problem(Layout layout, Trans transa, int64_t m, float alpha, const float* a,
                           int64_t lda, const PackedWeights& w, float beta, float* c, int64_t ldc,
                           GemmProblem& out) noexcept;

// The bf16 counterparts: the problem of a call on bf16 panels (operands null as above; kind
// Bf16F32 or Bf16Bf16), and the validation of a call (the same checks; a handle of another
// type, here or in make_packed_problem, is InvalidArgument).
LowpProblem packed_lowp_problem(LowpKind kind, int64_t m, int64_t n, int64_t k, bool trans_a,
                                int64_t lda, int64_t ldc, int nr) noexcept;
Status make_packed_lowp_problem(LowpKind kind, Layout layout, Trans transa, int64_t m, float alpha,
                                const void* a, int64_t lda, const PackedWeights& w, float beta,
                                void* c, int64_t ldc, LowpProblem& out) noexcept;

}  // namespace adaptcore
