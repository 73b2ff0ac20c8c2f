// Grading logic of the benchmark harness: the hardware-limit formula, the reference check
// (it must catch wrong, stale and non-finite outputs and pass correct ones of every layout),
// the shape classes, and the CSV view.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "harness/grading.hpp"
#include "harness/results_csv.hpp"

namespace adaptcore::bench {
namespace {

TEST(BenchGrading, LimitIsTheLargerOfComputeAndMemory) {
  // 1024^3 on 100 GFLOP/s and 10 GB/s: 2.147 GFLOP -> 21.47 ms; 12 MiB -> 1.26 ms.
  HardwareLimit l = hardware_limit(1024, 1024, 1024, 100.0, 10.0);
  EXPECT_DOUBLE_EQ(l.flops, 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(l.min_bytes, 4.0 * 3 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(l.seconds, l.flops / 100e9);
  EXPECT_STREQ(l.bound, "compute");
  // A matrix-vector product is bound by reading B: 4 (4096 + 4096*4096 + 4096) bytes at 10 GB/s.
  l = hardware_limit(1, 4096, 4096, 100.0, 10.0);
  EXPECT_DOUBLE_EQ(l.seconds, 4.0 * (4096.0 + 4096.0 * 4096.0 + 4096.0) / 10e9);
  EXPECT_STREQ(l.bound, "memory");
}

struct Operands {
  std::vector<float> a, b, c;
  GemmCall call{};
};

// Row-major operands of op(A) op(B) with padded leading dimensions, C computed in double.
Operands make(int64_t m, int64_t n, int64_t k, bool ta, bool tb, int64_t pad) {
  Operands o;
  const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
  o.a.assign(static_cast<std::size_t>((ta ? k : m) * lda), 0.0f);
  o.b.assign(static_cast<std::size_t>((tb ? n : k) * ldb), 0.0f);
  o.c.assign(static_cast<std::size_t>(m * ldc), std::numeric_limits<float>::quiet_NaN());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : o.a) v = u(rng);
  for (auto& v : o.b) v = u(rng);
  o.call = GemmCall{m, n, k, ta, tb, o.a.data(), lda, o.b.data(), ldb, o.c.data(), ldc};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += static_cast<double>(ta ? o.a[p * lda + i] : o.a[i * lda + p]) *
             static_cast<double>(tb ? o.b[j * ldb + p] : o.b[p * ldb + j]);
      o.c[static_cast<std::size_t>(i * ldc + j)] = static_cast<float>(s);
    }
  return o;
}

TEST(BenchGrading, CorrectResultsPassInEveryLayout) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Operands o = make(17, 23, 301, ta, tb, 3);
      const CheckResult r = check_against_reference(o.call);
      EXPECT_TRUE(r.pass) << ta << tb << " error " << r.max_error;
      EXPECT_EQ(r.checked, 17 * 23);  // small: every entry
      EXPECT_LT(r.max_error, error_tolerance(301));
    }
}

TEST(BenchGrading, WrongStaleAndNonFiniteOutputsFail) {
  Operands o = make(9, 10, 64, false, false, 0);
  o.c[3 * 10 + 4] += 0.5f;  // one wrong entry
  EXPECT_FALSE(check_against_reference(o.call).pass);

  o = make(9, 10, 64, false, true, 2);
  o.c[8 * 12 + 9] = std::numeric_limits<float>::quiet_NaN();  // last entry never written
  const CheckResult nan = check_against_reference(o.call);
  EXPECT_FALSE(nan.pass);
  EXPECT_TRUE(std::isinf(nan.max_error));

  // A result that missed the last depth step (a dropped tail): off by one product.
  o = make(5, 6, 33, true, false, 0);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 6; ++j)
      o.c[static_cast<std::size_t>(i * 6 + j)] -= o.a[32 * 5 + i] * o.b[32 * 6 + j];
  EXPECT_FALSE(check_against_reference(o.call).pass);
}

TEST(BenchGrading, LargeShapesAreSampledIncludingTheEdges) {
  Operands o = make(70, 90, 40, false, false, 0);
  // Force sampling (work 252,000 above a threshold of 1000); an error in the last row is found
  // because the edges are always checked.
  CheckResult r = check_against_reference(o.call, 64, 3, 1000);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.checked, 64);
  o.c[69 * 90 + 0] = 5.0f;
  EXPECT_FALSE(check_against_reference(o.call, 64, 3, 1000).pass);
}

TEST(BenchGrading, ToleranceGrowsWithDepth) {
  EXPECT_LT(error_tolerance(16), error_tolerance(4096));
  EXPECT_NEAR(error_tolerance(4096), 2.0 * 4098 * std::ldexp(1.0, -24), 1e-18);
}

TEST(BenchGrading, ShapeClasses) {
  EXPECT_EQ(m_class(1), "1-16");
  EXPECT_EQ(m_class(16), "1-16");
  EXPECT_EQ(m_class(17), "17-128");
  EXPECT_EQ(m_class(1024), "129-1024");
  EXPECT_EQ(m_class(8192), "1025+");
  EXPECT_EQ(n_class(256), "1-256");
  EXPECT_EQ(n_class(4096), "2049-8192");
  EXPECT_EQ(n_class(28672), "8193+");
}

TEST(BenchGrading, CsvQuotesAndLeavesMissingCellsEmpty) {
  nlohmann::ordered_json run;
  run["records"] = nlohmann::ordered_json::array();
  run["records"].push_back({{"shape", 0}, {"m", 1}, {"lib", "mkl"}, {"tag", "a,\"b\""}});
  const std::string csv = results_csv(run);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.rfind("shape,m,n,k,", 0), 0u);
  const std::string row = csv.substr(csv.find('\n') + 1);
  EXPECT_EQ(row.rfind("0,1,,,", 0), 0u) << row;
  EXPECT_NE(row.find("\"a,\"\"b\"\"\""), std::string::npos) << row;
  EXPECT_EQ(results_csv(nlohmann::ordered_json::object()).find('\n'), header.size());
}

}  // namespace
}  // namespace adaptcore::bench
