// A grouped (Mixture-of-Experts) call after validation (adaptcore::GroupedGemm): each expert's
// first routed row, its packed weights, and the fused epilogue over the routed rows' results.
#pragma once

#include <cstdint>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/packed_weights.hpp"
#include "core/post_ops.hpp"
#include "core/wq_weights.hpp"

namespace adaptcore {

struct GroupedProblem {
  int64_t experts = 0, k = 0, n = 0;
  int64_t routed = 0;              // R = sum of M_e
  std::vector<int64_t> first_row;  // experts + 1 entries: expert e's routed rows [first_row[e],
                                   // first_row[e + 1])
  // The experts' weights, one kind: fp32 panels, or quantized (W8A16 / W4A16) with the
  // activations split into `parts` parts. Null for an expert without rows.
  std::vector<const detail::PackedWeightsImpl*> weights;
  std::vector<const detail::QuantizedWeightsImpl*> qweights;
  int parts = 2;
  // bf16 experts: `weights` hold bf16 panels, the activations are a_bf16 (a null).
  bool bf16_experts = false;
  const bf16* a_bf16 = nullptr;
  const float* a = nullptr;
  int64_t lda = 0;
  const int64_t* gather = nullptr;
  float* c = nullptr;
  int64_t ldc = 0, c_rows = 0;
  const int64_t* scatter = nullptr;
  const float* scatter_weights = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  PostOpChain post;  // over the routed rows' results (R x n, row r of expert order)

  bool quantized() const noexcept { return !qweights.empty(); }
  // The columns of a unit's panel: fp32 panels of the expert's nr, quantized ones of 32.
  int64_t panel_cols(int64_t e) const noexcept;

  int64_t rows(int64_t e) const noexcept {
    return first_row[static_cast<std::size_t>(e) + 1] - first_row[static_cast<std::size_t>(e)];
  }
};

// Validates a grouped call (the checks and their order: adaptcore.hpp, gemm_grouped) and builds
// its problem. The handles' ISA is the dispatcher's to check against its kernels.
Status make_grouped_problem(const GroupedGemm& call, const CallOptions& options,
                            GroupedProblem& out) noexcept;

}  // namespace adaptcore
