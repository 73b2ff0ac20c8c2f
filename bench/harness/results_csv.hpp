// CSV views of a benchmark run, for spreadsheets and plotting scripts: one row per (shape,
// library) record of the run's JSON, and one row per shape of the full suite's model-only pass.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace adaptcore::bench {

// Columns: shape,m,n,k,trans_a,trans_b,lda,ldb,ldc,tag,m_class,n_class,lib,status,correct,error,
// setup_us,median_us,min_us,reps,gflops,limit_us,limit_bound,limit_fraction,predicted_us,plan.
// Missing values are empty cells.
std::string results_csv(const nlohmann::ordered_json& run);
// Columns: shape,m,n,k,m_class,n_class,plan,predicted_us,limit_us,limit_bound,
// predicted_limit_fraction.
std::string predicted_csv(const nlohmann::ordered_json& records);

}  // namespace adaptcore::bench
