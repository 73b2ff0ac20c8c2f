// `adaptcore run --dtype bf16|u8s8`: the low-precision half of `adaptcore run`.
#pragma once

#include "cli_common.hpp"

namespace adaptcore::cli {

struct LowpRunOptions {
  int reps = 0;
  double seconds = 0.5;
  bool check = true;
  bool peak = true;
  bool json = false;
  bool packed = false;  // bf16: B packed once by pack_weights, then gemm_packed
};

// Times C = A B for the shape on random data (bf16 -> fp32 C, or u8 x s8 -> s32 C), checks
// sampled entries (bf16: relative error against double; int8: exact against int64), and states
// the rate against the measured peak of the dot-product instruction the kernels use.
void run_lowp(const ContextArgs& ctx_args, const ShapeArgs& shape, DType dtype,
              const LowpRunOptions& opt);

}  // namespace adaptcore::cli
