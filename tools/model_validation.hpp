// Statistics of the model-validation tool (`adaptcore validate-model`), kept apart from the
// measuring so tests can check them: per-shape regret and rank correlation, and the summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace adaptcore::validation {

struct CandidateResult {
  std::string plan;     // describe(plan)
  double predicted_us;  // the model's prediction
  double measured_us;   // median of the measured runs
};

struct ShapeResult {
  int64_t m = 0, n = 0, k = 0;
  std::string cls;
  std::vector<CandidateResult> candidates;  // candidates[chosen] is the model's choice
  std::size_t chosen = 0;

  std::size_t best_measured() const;  // index of the fastest measured candidate
  double regret() const;              // time(chosen) / time(best measured), >= 1
  double spearman() const;            // rank correlation of predicted and measured times
};

struct Summary {
  std::size_t shapes = 0;
  double geomean_regret = 1.0;
  double p95_regret = 1.0;
  double max_regret = 1.0;
  double picked_best_share = 0.0;   // shapes where the choice was the fastest measured
  double within_3pct_share = 0.0;   // shapes with regret <= 1.03
  double median_abs_error = 0.0;    // median over all candidates of |pred - meas| / meas
  double median_spearman = 0.0;
};

Summary summarize(const std::vector<ShapeResult>& shapes);

// Spearman's rank correlation of two equally long series (average ranks for ties); 1 for
// fewer than two points.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

// The q-quantile (0..1) of v by linear interpolation; 0 for an empty v.
double quantile(std::vector<double> v, double q);

}  // namespace adaptcore::validation
