#include "harness/grading.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace adaptcore::bench {

HardwareLimit hardware_limit(int64_t m, int64_t n, int64_t k, double peak_gflops,
                             double bandwidth_gbs) {
  HardwareLimit l;
  const double dm = static_cast<double>(m), dn = static_cast<double>(n),
               dk = static_cast<double>(k);
  l.flops = 2.0 * dm * dn * dk;
  l.min_bytes = 4.0 * (dm * dk + dk * dn + dm * dn);
  const double compute_s = peak_gflops > 0 ? l.flops / (peak_gflops * 1e9) : 0.0;
  const double memory_s = bandwidth_gbs > 0 ? l.min_bytes / (bandwidth_gbs * 1e9) : 0.0;
  l.seconds = std::max(compute_s, memory_s);
  l.bound = compute_s >= memory_s ? "compute" : "memory";
  return l;
}

double error_tolerance(int64_t k) {
  return 2.0 * static_cast<double>(k + 2) * std::ldexp(1.0, -24);
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

CheckResult check_against_reference(const GemmCall& call, int64_t samples, std::uint64_t seed,
                                    double full_check_work) {
  CheckResult r;
  auto check = [&](int64_t i, int64_t j) {
    r.max_error = std::max(r.max_error, entry_error(call, i, j));
    ++r.checked;
  };
  const double work = static_cast<double>(call.m) * static_cast<double>(call.n) *
                      static_cast<double>(call.k);
  if (work <= full_check_work) {
    for (int64_t i = 0; i < call.m; ++i)
      for (int64_t j = 0; j < call.n; ++j) check(i, j);
  } else {
    const int64_t last_i = call.m - 1, last_j = call.n - 1;
    for (auto [i, j] : {std::pair{int64_t{0}, int64_t{0}}, std::pair{int64_t{0}, last_j},
                        std::pair{last_i, int64_t{0}}, std::pair{last_i, last_j}})
      check(i, j);
    std::mt19937_64 rng(seed);
    const int64_t edge = std::max<int64_t>(1, samples / 8);
    for (int64_t s = 0; s < edge; ++s) {
      check(last_i, static_cast<int64_t>(rng() % static_cast<std::uint64_t>(call.n)));
      check(static_cast<int64_t>(rng() % static_cast<std::uint64_t>(call.m)), last_j);
    }
    for (int64_t s = r.checked; s < samples; ++s)
      check(static_cast<int64_t>(rng() % static_cast<std::uint64_t>(call.m)),
            static_cast<int64_t>(rng() % static_cast<std::uint64_t>(call.n)));
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
