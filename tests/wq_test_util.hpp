// Helpers of the weight-quantized tests: random operands with the hard cases (outliers, rows of
// zeros, subnormal-range rows), the fp64 reference of dequantized weights x activations, and
// the per-element error bound of docs/QUANT.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"

namespace adaptcore::test {

// Integer weights (op(W) k x n row-major) and their scales, as a checkpoint ships them.
struct IntWeights {
  int64_t k = 0, n = 0, group = 0;
  bool int4 = false;
  std::vector<std::int8_t> q;  // q[p * n + j]
  std::vector<float> scale;    // scale[g * n + j]
  int64_t groups() const { return group > 0 ? (k + group - 1) / group : 1; }
  double value(int64_t p, int64_t j) const {
    const int64_t g = group > 0 ? p / group : 0;
    return static_cast<double>(q[static_cast<std::size_t>(p * n + j)]) *
           static_cast<double>(scale[static_cast<std::size_t>(g * n + j)]);
  }
};

inline IntWeights random_int_weights(std::mt19937_64& rng, int64_t k, int64_t n, int64_t group,
                                     bool int4, bool extremes = false) {
  IntWeights w;
  w.k = k, w.n = n, w.group = group, w.int4 = int4;
  const int lo = int4 ? -8 : -128, hi = int4 ? 7 : 127;
  std::uniform_int_distribution<int> qd(lo, hi);
  w.q.resize(static_cast<std::size_t>(k * n));
  for (auto& v : w.q) v = static_cast<std::int8_t>(extremes ? (rng() & 1 ? lo : hi) : qd(rng));
  std::uniform_real_distribution<float> sd(0.001f, 0.05f);
  w.scale.resize(static_cast<std::size_t>(w.groups() * n));
  for (auto& s : w.scale) s = sd(rng);
  return w;
}

// Activation rows of several kinds: Gaussian, Gaussian with a few outliers 1000x larger, all
// zeros, subnormal-range magnitudes (1e-39 .. 1e-45), huge (1e30), or mixed tiny groups.
enum class RowKind { Gauss, Outliers, Zeros, Subnormal, Huge, TinyGroups };

inline void fill_row(std::mt19937_64& rng, RowKind kind, float* x, int64_t k) {
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int64_t> pos(0, std::max<int64_t>(0, k - 1));
  for (int64_t p = 0; p < k; ++p) x[p] = nd(rng);
  switch (kind) {
    case RowKind::Gauss: break;
    case RowKind::Outliers:
      for (int t = 0; t < 3; ++t) x[pos(rng)] *= 1000.0f;
      break;
    case RowKind::Zeros: std::fill(x, x + k, 0.0f); break;
    case RowKind::Subnormal:
      for (int64_t p = 0; p < k; ++p) x[p] *= 1e-39f;
      break;
    case RowKind::Huge:
      for (int64_t p = 0; p < k; ++p) x[p] *= 1e30f;
      break;
    case RowKind::TinyGroups:  // every other block of 32 a million-fold smaller
      for (int64_t p = 0; p < k; ++p)
        if ((p / 32) % 2 == 1) x[p] *= 1e-6f;
      break;
  }
}

// Per-element activation error bound relative to the group maximum r_g (docs/QUANT.md):
// two parts |x - x^| <= r_g / 32512 (1 + 2^-10), one part <= r_g / 254 (1 + 2^-10), plus what a
// flushed or underflowing value can lose: 2^-95 of the row maximum.
inline double act_error(double r_group, double r_row, int parts) {
  const double d = parts == 2 ? r_group / 32512.0 : r_group / 254.0;
  return d * (1.0 + 0x1p-10) + 0x1p-95 * r_row;
}

struct Bounded {
  double worst_ratio = 0.0;  // max over elements of |error| / bound (must stay <= 1)
  double max_abs_err = 0.0;
  bool nan_mismatch = false;
};

// Checks C (m x n, c[i * ldc + j]) computed as beta C0 + A W against the fp64 reference with
// the bound: sum_p d_p |w_pj| + gamma (sum_p (|x_p| + d_p) |w_pj|) + |beta c0| 2u + underflow,
// gamma = (groups + 6) u / (1 - (groups + 6) u).
inline Bounded check_bound(const std::vector<float>& a, int64_t m, int64_t k, const IntWeights& w,
                           int64_t act_group, int parts, float beta, const std::vector<float>& c0,
                           const std::vector<float>& c, int64_t ldc) {
  Bounded out;
  const int64_t n = w.n;
  const int64_t groups = (k + act_group - 1) / act_group;
  const double u = 0x1p-24;
  const double gamma = (groups + 6) * u / (1.0 - (groups + 6) * u);
  std::vector<double> d(static_cast<std::size_t>(k));
  for (int64_t i = 0; i < m; ++i) {
    const float* x = a.data() + i * k;
    double r_row = 0.0;
    bool finite = true;
    for (int64_t p = 0; p < k; ++p) {
      r_row = std::max(r_row, std::fabs(static_cast<double>(x[p])));
      finite = finite && std::isfinite(x[p]);
    }
    for (int64_t g = 0; g < groups; ++g) {
      double r = 0.0;
      const int64_t p1 = std::min(k, (g + 1) * act_group);
      for (int64_t p = g * act_group; p < p1; ++p)
        r = std::max(r, std::fabs(static_cast<double>(x[p])));
      for (int64_t p = g * act_group; p < p1; ++p)
        d[static_cast<std::size_t>(p)] = act_error(r, r_row, parts);
    }
    for (int64_t j = 0; j < n; ++j) {
      const float got = c[static_cast<std::size_t>(i * ldc + j)];
      if (!finite) {
        out.nan_mismatch |= !std::isnan(got);
        continue;
      }
      double exact = 0.0, act = 0.0, mag = 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const double wv = w.value(p, j), dp = d[static_cast<std::size_t>(p)];
        exact += static_cast<double>(x[p]) * wv;
        act += dp * std::fabs(wv);
        mag += (std::fabs(static_cast<double>(x[p])) + dp) * std::fabs(wv);
      }
      const double cb = beta == 0.0f
                            ? 0.0
                            : static_cast<double>(beta) * c0[static_cast<std::size_t>(i * ldc + j)];
      exact += cb;
      const double bound =
          act + gamma * mag + 2.0 * u * std::fabs(cb) * 2.0 + (groups + 6) * 0x1p-149;
      const double err = std::fabs(static_cast<double>(got) - exact);
      if (std::isnan(got)) {
        out.worst_ratio = std::numeric_limits<double>::infinity();
        continue;
      }
      out.max_abs_err = std::max(out.max_abs_err, err);
      out.worst_ratio =
          std::max(out.worst_ratio, bound > 0.0 ? err / bound : (err > 0 ? 1e300 : 0.0));
    }
  }
  return out;
}

}  // namespace adaptcore::test
