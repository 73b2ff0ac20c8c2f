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
  bool trans_a = false, trans_b = false;  // A stored k x m, B stored n x k
  std::string cls;
  std::vector<CandidateResult> candidates;  // candidates[chosen] is the model's choice
  std::size_t chosen = 0;
  // Confirmation: the fastest candidate of the selection pass is only the fastest of noisy
  // medians (the minimum of many noisy figures is biased low), so the model's choice and that
  // candidate are timed again, head to head, in fresh interleaved rounds, the choice twice.
  // Zero when not run (the choice was itself the fastest in the selection pass).
  double confirm_chosen_us = 0;   // the choice, first of its two series
  double confirm_chosen2_us = 0;  // the choice again: the spread of the two is the noise
  double confirm_best_us = 0;     // the selection pass's fastest

  std::size_t best_measured() const;  // index of the fastest measured candidate
  // time(chosen) / time(fastest of the selection pass), from the confirmation when it ran
  // (at least 1: a choice that wins the rematch had no regret).
  double regret() const;
  double selection_regret() const;  // the same ratio from the selection pass alone
  double noise() const;             // max/min of the choice's two confirmation series, or 1
  double spearman() const;          // rank correlation of predicted and measured times
};

struct Summary {
  std::size_t shapes = 0;
  double geomean_regret = 1.0;
  double geomean_selection_regret = 1.0;  // without the confirmation (biased high)
  double geomean_noise = 1.0;             // spread of the same plan timed twice
  double p95_regret = 1.0;
  double max_regret = 1.0;
  double picked_best_share = 0.0;  // shapes with regret 1: the choice was (confirmed) the fastest
  double within_3pct_share = 0.0;  // shapes with regret <= 1.03
  double median_abs_error = 0.0;   // median over all candidates of |pred - meas| / meas
  double median_spearman = 0.0;
};

Summary summarize(const std::vector<ShapeResult>& shapes);

// Spearman's rank correlation of two equally long series (average ranks for ties); 1 for
// fewer than two points.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

// The q-quantile (0..1) of v by linear interpolation; 0 for an empty v.
double quantile(std::vector<double> v, double q);

}  // namespace adaptcore::validation
