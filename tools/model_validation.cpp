#include "model_validation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace adaptcore::validation {
namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double avg = 0.5 * static_cast<double>(i + j) + 1.0;  // ties share the mean rank
    for (std::size_t t = i; t <= j; ++t) r[idx[t]] = avg;
    i = j + 1;
  }
  return r;
}

}  // namespace

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return 1.0;
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / static_cast<double>(n);
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  if (sxx == 0 || syy == 0) return 1.0;  // all equal on one side: no ordering to disagree with
  return sxy / std::sqrt(sxx * syy);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::size_t ShapeResult::best_measured() const {
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i)
    if (candidates[i].measured_us < candidates[best].measured_us) best = i;
  return best;
}

double ShapeResult::selection_regret() const {
  if (candidates.empty()) return 1.0;
  return candidates[chosen].measured_us / candidates[best_measured()].measured_us;
}

double ShapeResult::regret() const {
  if (confirm_chosen_us > 0 && confirm_best_us > 0)
    return std::max(1.0, confirm_chosen_us / confirm_best_us);
  return selection_regret();
}

double ShapeResult::noise() const {
  if (confirm_chosen_us <= 0 || confirm_chosen2_us <= 0) return 1.0;
  return std::max(confirm_chosen_us, confirm_chosen2_us) /
         std::min(confirm_chosen_us, confirm_chosen2_us);
}

double ShapeResult::spearman() const {
  std::vector<double> predicted, measured;
  for (const auto& c : candidates) {
    predicted.push_back(c.predicted_us);
    measured.push_back(c.measured_us);
  }
  return validation::spearman(predicted, measured);
}

Summary summarize(const std::vector<ShapeResult>& shapes) {
  Summary s;
  s.shapes = shapes.size();
  if (shapes.empty()) return s;
  std::vector<double> regrets, errors, rhos;
  double log_sum = 0, log_sel = 0, log_noise = 0;
  std::size_t best = 0, close = 0, confirmed = 0;
  for (const auto& r : shapes) {
    const double g = r.regret();
    regrets.push_back(g);
    log_sum += std::log(g);
    log_sel += std::log(r.selection_regret());
    if (r.confirm_chosen2_us > 0) {
      log_noise += std::log(r.noise());
      ++confirmed;
    }
    best += g <= 1.0 ? 1 : 0;  // fastest in the selection pass, or won the rematch
    close += g <= 1.03 ? 1 : 0;
    rhos.push_back(r.spearman());
    for (const auto& c : r.candidates)
      errors.push_back(std::fabs(c.predicted_us - c.measured_us) / c.measured_us);
  }
  const double n = static_cast<double>(shapes.size());
  s.geomean_regret = std::exp(log_sum / n);
  s.geomean_selection_regret = std::exp(log_sel / n);
  if (confirmed > 0) s.geomean_noise = std::exp(log_noise / static_cast<double>(confirmed));
  s.p95_regret = quantile(regrets, 0.95);
  s.max_regret = *std::max_element(regrets.begin(), regrets.end());
  s.picked_best_share = static_cast<double>(best) / n;
  s.within_3pct_share = static_cast<double>(close) / n;
  s.median_abs_error = quantile(errors, 0.5);
  s.median_spearman = quantile(rhos, 0.5);
  return s;
}

}  // namespace adaptcore::validation
