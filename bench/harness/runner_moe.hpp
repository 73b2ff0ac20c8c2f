// The `moe` suite of `adaptcore bench` (bench/README.md, "Mixture-of-Experts"): one expert FFN
// half per case, run whole (gather of the tokens' rows, every expert's GEMM, the weighted
// scatter-add into the tokens), by adaptcore's gemm_grouped and by the baselines in the same
// run: a loop over the experts with MKL's packed sgemm and with oneDNN's matmul on reordered
// weights, MKL's cblas_sgemm_batch with a group per expert, and the padded batched GEMM (every
// expert padded to the largest count, one batch group). Every result is checked on sampled
// elements against a double-precision reference.
#pragma once

#include <iosfwd>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/runner.hpp"

namespace adaptcore::bench {

// Models, token counts and routings of the suite, at the options' threads, GFLOP cap (per
// half), timing target, settle pause, seed and libraries (mkl, onednn). progress may be null.
nlohmann::ordered_json run_moe_suite(const RunOptions& options, std::ostream* progress);

// The spread of per-core times: the busiest core over the mean, minus 1 (0 for none); what the
// suite and `adaptcore explain/run --grouped` report of a schedule.
double core_spread(const std::vector<double>& core_us) noexcept;

// The records as CSV, and the summary the command prints (geomeans by model, tokens, routing).
std::string moe_csv(const nlohmann::ordered_json& doc);
void print_moe_summary(const nlohmann::ordered_json& doc, std::ostream& os);

}  // namespace adaptcore::bench
