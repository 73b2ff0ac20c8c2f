// The weight-quantized comparison table of a `--dtype w8a16|w4a16` run: per shape, adaptcore's
// two-part GEMM against each comparison path (speed ratio and error ratio) and, for decode
// shapes, its weight bandwidth, marked against the targets of the project's issue 5:
//   M >= 256, N and K >= 4096: >= 1.8x path (a), >= 0.9x bf16 GEMM, error >= 100x smaller;
//   M <= 8, N and K >= 4096: weight GB/s >= 85% of the measured DRAM read bandwidth.
#pragma once

#include <nlohmann/json.hpp>

namespace adaptcore::bench {

// From a run's records (schema: bench/README.md). One row per shape:
//   m, n, k, adaptcore_us, adaptcore_fro_error,
//   dequant_best (path a: fastest valid "dequant+*"), bf16_adaptcore ("bf16+adaptcore"),
//   bf16_best (fastest valid "bf16+*"), int8 ("int8+onednn"), one_part ("adaptcore-1part"):
//   each {lib, median_us,
//   fro_error, speedup (its time / adaptcore's), error_ratio (its error / adaptcore's)},
//   weight_gbs, dram_fraction, dram_fraction_of_best (adaptcore's), and "targets":
//   {name: true/false} for the targets that apply to the shape's class. Fields without data are
//   left out.
nlohmann::json quant_summary(const nlohmann::json& records);

}  // namespace adaptcore::bench
