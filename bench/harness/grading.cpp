#include "harness/grading.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace adaptcore::bench {

HardwareLimit hardware_limit(int64_t m, int64_t n, int64_t k, double peak_gflops,
                             double bandwidth_gbs) {
  return hardware_limit(m, n, k, peak_gflops, bandwidth_gbs, ElementBytes{});
}

HardwareLimit hardware_limit(int64_t m, int64_t n, int64_t k, double peak_gflops,
                             double bandwidth_gbs, ElementBytes bytes) {
  HardwareLimit l;
  const double dm = static_cast<double>(m), dn = static_cast<double>(n),
               dk = static_cast<double>(k);
  l.flops = 2.0 * dm * dn * dk;
  l.min_bytes = bytes.a * dm * dk + bytes.b * dk * dn + bytes.c * dm * dn;
  const double compute_s = peak_gflops > 0 ? l.flops / (peak_gflops * 1e9) : 0.0;
  const double memory_s = bandwidth_gbs > 0 ? l.min_bytes / (bandwidth_gbs * 1e9) : 0.0;
  l.seconds = std::max(compute_s, memory_s);
  l.bound = compute_s >= memory_s ? "compute" : "memory";
  l.bandwidth_gbs = bandwidth_gbs;
  return l;
}

double error_tolerance(int64_t k) {
  return 2.0 * static_cast<double>(k + 2) * std::ldexp(1.0, -24);
}

double bf16_error_tolerance(int64_t k) {
  const double n = static_cast<double>(k + 2 * ((k + 63) / 64) + 4);
  const double nu = n * std::ldexp(1.0, -24);
  return nu / (1.0 - nu);
}

namespace {

// op(A)[i][p] and op(B)[p][j] of a row-major call.
double a_at(const GemmCall& c, int64_t i, int64_t p) {
  return c.trans_a ? c.a[p * c.lda + i] : c.a[i * c.lda + p];
}
double b_at(const GemmCall& c, int64_t p, int64_t j) {
  return c.trans_b ? c.b[j * c.ldb + p] : c.b[p * c.ldb + j];
}

// Error of one entry relative to the magnitude of its products; infinity for NaN/inf output.
double entry_error(const GemmCall& c, int64_t i, int64_t j) {
  double ref = 0, mag = 0;
  for (int64_t p = 0; p < c.k; ++p) {
    const double prod = a_at(c, i, p) * b_at(c, p, j);
    ref += prod;
    mag += std::fabs(prod);
  }
  const double got = c.c[i * c.ldc + j];
  if (!std::isfinite(got)) return INFINITY;
  const double diff = std::fabs(got - ref);
  return mag > 0 ? diff / mag : diff;  // all-zero products: any nonzero output is wrong
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> check_entries(int64_t m, int64_t n, int64_t k,
                                                       int64_t samples, std::uint64_t seed,
                                                       double full_check_work) {
  std::vector<std::pair<int64_t, int64_t>> e;
  if (m <= 0 || n <= 0) return e;
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (work <= full_check_work) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) e.emplace_back(i, j);
    return e;
  }
  const int64_t last_i = m - 1, last_j = n - 1;
  e = {{0, 0}, {0, last_j}, {last_i, 0}, {last_i, last_j}};
  std::mt19937_64 rng(seed);
  const int64_t edge = std::max<int64_t>(1, samples / 8);
  for (int64_t s = 0; s < edge; ++s) {
    // Two statements: the order of the draws is fixed (arguments' order is not).
    const auto j = static_cast<int64_t>(rng() % static_cast<std::uint64_t>(n));
    e.emplace_back(last_i, j);
    const auto i = static_cast<int64_t>(rng() % static_cast<std::uint64_t>(m));
    e.emplace_back(i, last_j);
  }
  for (auto s = static_cast<int64_t>(e.size()); s < samples; ++s) {
    const auto i = static_cast<int64_t>(rng() % static_cast<std::uint64_t>(m));
    const auto j = static_cast<int64_t>(rng() % static_cast<std::uint64_t>(n));
    e.emplace_back(i, j);
  }
  return e;
}

CheckResult check_against_reference(const GemmCall& call, int64_t samples, std::uint64_t seed,
                                    double full_check_work) {
  CheckResult r;
  for (const auto& [i, j] : check_entries(call.m, call.n, call.k, samples, seed, full_check_work)) {
    r.max_error = std::max(r.max_error, entry_error(call, i, j));
    ++r.checked;
  }
  r.pass = r.max_error <= error_tolerance(call.k);
  return r;
}

std::string m_class(int64_t m) {
  if (m <= 16) return "1-16";
  if (m <= 128) return "17-128";
  if (m <= 1024) return "129-1024";
  return "1025+";
}

std::string n_class(int64_t n) {
  if (n <= 256) return "1-256";
  if (n <= 2048) return "257-2048";
  if (n <= 8192) return "2049-8192";
  return "8193+";
}

}  // namespace adaptcore::bench
