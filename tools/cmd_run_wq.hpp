// `adaptcore run --dtype w8a16|w4a16`: the weight-quantized half of `adaptcore run`.
#pragma once

#include "cli_common.hpp"

namespace adaptcore::cli {

struct WqRunOptions {
  int reps = 0;
  double seconds = 0.5;
  bool check = true;
  bool peak = true;
  bool json = false;
  bool compare = true;
  // The timed gemm_quantized calls rotate over copies of the weights filling 256 MiB (each call
  // finds its weights in memory, as a model's next layer does); the comparisons stay warm.
  bool cold = false;
};

// Quantizes random Gaussian weights (op(W) k x n) once, times gemm_quantized for M x K Gaussian
// activations, and reports GFLOP/s (2 m n k), the weight-streaming rate, the fraction of the
// measured vpdpbusd peak (two parts count twice the multiply-adds) and of a DRAM read bandwidth
// measured in the same run, and the error against an fp64 reference of dequantized weights x
// activations (sampled entries). With compare, bf16 GEMM (bf16 activations and dequantized
// weights rounded to bf16) and dequantize-to-fp32 + fp32 GEMM are timed and checked alongside.
void run_wq(const ContextArgs& ctx_args, const ShapeArgs& shape, DType dtype, const WqArgs& wq,
            const WqRunOptions& opt);

}  // namespace adaptcore::cli
