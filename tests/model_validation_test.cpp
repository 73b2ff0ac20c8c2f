// The statistics behind `adaptcore validate-model`: regret, rank correlation, summary.
#include "model_validation.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace adaptcore::validation {
namespace {

ShapeResult shape(std::vector<std::pair<double, double>> pred_meas, std::size_t chosen = 0) {
  ShapeResult r;
  r.m = 8, r.n = 16, r.k = 32;
  for (std::size_t i = 0; i < pred_meas.size(); ++i)
    r.candidates.push_back({"p" + std::to_string(i), pred_meas[i].first, pred_meas[i].second});
  r.chosen = chosen;
  return r;
}

TEST(ModelValidation, RegretIsChosenOverFastestMeasured) {
  const ShapeResult r = shape({{1.0, 12.0}, {2.0, 10.0}, {3.0, 15.0}});
  EXPECT_EQ(r.best_measured(), 1u);
  EXPECT_DOUBLE_EQ(r.regret(), 1.2);
  const ShapeResult good = shape({{1.0, 9.0}, {2.0, 10.0}});
  EXPECT_DOUBLE_EQ(good.regret(), 1.0);
}

TEST(ModelValidation, ConfirmationReplacesTheSelectionRatio) {
  ShapeResult r = shape({{1.0, 12.0}, {2.0, 10.0}});
  EXPECT_DOUBLE_EQ(r.regret(), 1.2);
  // The rematch finds the two closer: that ratio counts, the selection's is kept apart.
  r.confirm_chosen_us = 11.0, r.confirm_chosen2_us = 11.55, r.confirm_best_us = 10.0;
  EXPECT_DOUBLE_EQ(r.regret(), 1.1);
  EXPECT_DOUBLE_EQ(r.selection_regret(), 1.2);
  EXPECT_NEAR(r.noise(), 1.05, 1e-12);
  // A choice that wins the rematch has no regret.
  r.confirm_best_us = 12.0;
  EXPECT_DOUBLE_EQ(r.regret(), 1.0);
  const Summary s = summarize({r});
  EXPECT_DOUBLE_EQ(s.picked_best_share, 1.0);
  EXPECT_DOUBLE_EQ(s.geomean_selection_regret, 1.2);
  EXPECT_NEAR(s.geomean_noise, 1.05, 1e-12);
}

TEST(ModelValidation, SpearmanPerfectReversedAndTied) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  // Ties get average ranks: x ranks 1.5 1.5 3, y ranks 1 2 3.
  EXPECT_NEAR(spearman({5, 5, 7}, {1, 2, 3}), 0.8660254, 1e-6);
  EXPECT_DOUBLE_EQ(spearman({1}, {2}), 1.0);
}

TEST(ModelValidation, QuantileInterpolates) {
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.95), 4.8);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0.0);
}

TEST(ModelValidation, SummaryAggregates) {
  std::vector<ShapeResult> shapes = {
      shape({{1.0, 10.0}, {2.0, 20.0}}),  // regret 1, picked best, errors 0.9 and 0.9
      shape({{1.0, 12.0}, {2.0, 10.0}}),  // regret 1.2, errors 11/12 and 0.8
  };
  const Summary s = summarize(shapes);
  EXPECT_EQ(s.shapes, 2u);
  EXPECT_NEAR(s.geomean_regret, std::sqrt(1.2), 1e-12);
  EXPECT_DOUBLE_EQ(s.max_regret, 1.2);
  EXPECT_DOUBLE_EQ(s.picked_best_share, 0.5);
  EXPECT_DOUBLE_EQ(s.within_3pct_share, 0.5);
  EXPECT_NEAR(s.p95_regret, 1.19, 1e-12);
  EXPECT_NEAR(s.median_abs_error, 0.9, 1e-12);  // of 0.8, 0.9, 0.9, 0.9167
}

}  // namespace
}  // namespace adaptcore::validation
