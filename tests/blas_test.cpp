// libadaptcore_blas.so through its exported C symbols only: this program links the shared
// library, not the core, and declares the BLAS prototypes itself (as a BLAS user would).
// It does NOT define xerbla_, so the library's default handler is in effect.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cblas_args.hpp"

extern "C" {
void cblas_sgemm(int layout, int transa, int transb, const int M, const int N, const int K,
                 const float alpha, const float* A, const int lda, const float* B, const int ldb,
                 const float beta, float* C, const int ldc);
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc);
}

namespace {

using adaptcore::test::kCol;
using adaptcore::test::kConjTrans;
using adaptcore::test::kNoTrans;
using adaptcore::test::kRow;
using adaptcore::test::kTrans;
const float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kGuard = -12345.0f;  // padding marker

// A stored matrix in a padded buffer with one guard element after it.
struct Mat {
  int rows, cols, ld;
  bool row;
  std::vector<float> v;
  Mat(int r, int c, bool row_major, int pad)
      : rows(r),
        cols(c),
        ld(std::max(1, row_major ? c : r) + pad),
        row(row_major),
        v(static_cast<std::size_t>((row_major ? r : c) * ld + 1), kGuard) {}
  float& at(int i, int j) { return v[static_cast<std::size_t>(row ? i * ld + j : j * ld + i)]; }
  float at(int i, int j) const {
    return v[static_cast<std::size_t>(row ? i * ld + j : j * ld + i)];
  }
  bool is_elem(std::size_t x) const {
    const int line = static_cast<int>(x) / ld, off = static_cast<int>(x) % ld;
    return line < (row ? rows : cols) && off < (row ? cols : rows);
  }
};

void fill(Mat& m, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) m.at(i, j) = u(rng);
}

// Checks C = alpha op(A) op(B) + beta C0 within a rounding bound and that padding and the
// guard were not written. Returns "" when correct.
std::string check(const Mat& a, bool ta, const Mat& b, bool tb, const Mat& c0, const Mat& c,
                  float alpha, float beta, int k) {
  for (int i = 0; i < c.rows; ++i)
    for (int j = 0; j < c.cols; ++j) {
      double s = 0, sa = 0;
      if (alpha != 0.0f)
        for (int p = 0; p < k; ++p) {
          const double x = ta ? a.at(p, i) : a.at(i, p);
          const double y = tb ? b.at(j, p) : b.at(p, j);
          s += x * y;
          sa += std::fabs(x * y);
        }
      double ref = alpha * s, bound = std::fabs(alpha) * sa;
      if (beta != 0.0f) {
        ref += static_cast<double>(beta) * c0.at(i, j);
        bound += std::fabs(static_cast<double>(beta) * c0.at(i, j));
      }
      bound = 2.0 * (k + 2) * std::numeric_limits<float>::epsilon() * bound + 1e-30;
      const double got = c.at(i, j);
      if (!(std::fabs(got - ref) <= bound))
        return "C(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(got) +
               ", expected " + std::to_string(ref);
    }
  for (std::size_t x = 0; x < c.v.size(); ++x)
    if (!c.is_elem(x) && c.v[x] != kGuard) return "padding written at " + std::to_string(x);
  return "";
}

struct Shape {
  int m, n, k;
};
constexpr Shape kShapes[] = {{1, 1, 1},     {7, 5, 3},    {64, 48, 100}, {130, 3, 257},
                             {3, 200, 1},   {33, 65, 17}, {1, 300, 400}, {250, 1, 300},
                             {97, 89, 101}, {8, 8, 5000}};

TEST(Cblas, MatchesReference) {
  std::mt19937 rng(1);
  int calls = 0;
  for (const Shape s : kShapes)
    for (int layout : {kRow, kCol})
      for (int ta : {kNoTrans, kTrans, kConjTrans})
        for (int tb : {kNoTrans, kTrans, kConjTrans}) {
          const bool row = layout == kRow, at = ta != kNoTrans, bt = tb != kNoTrans;
          const int pad = (calls++ % 3) * 2;
          Mat a(at ? s.k : s.m, at ? s.m : s.k, row, pad),
              b(bt ? s.n : s.k, bt ? s.k : s.n, row, 1);
          Mat c(s.m, s.n, row, pad + 1);
          fill(a, rng), fill(b, rng), fill(c, rng);
          const Mat c0 = c;
          const float alpha = 1.5f, beta = (calls % 2) ? -0.5f : 0.0f;
          cblas_sgemm(layout, ta, tb, s.m, s.n, s.k, alpha, a.v.data(), a.ld, b.v.data(), b.ld,
                      beta, c.v.data(), c.ld);
          EXPECT_EQ(check(a, at, b, bt, c0, c, alpha, beta, s.k), "")
              << s.m << "x" << s.n << "x" << s.k << " layout " << layout << " " << ta << "/" << tb;
        }
}

TEST(FortranSgemm, MatchesReference) {
  std::mt19937 rng(2);
  int calls = 0;
  for (const Shape s : kShapes)
    for (char ta : {'N', 'n', 'T', 't', 'C', 'c'})
      for (char tb : {'N', 't', 'C'}) {
        const bool at = ta != 'N' && ta != 'n', bt = tb != 'N' && tb != 'n';
        const int pad = calls++ % 4;
        Mat a(at ? s.k : s.m, at ? s.m : s.k, false, pad),
            b(bt ? s.n : s.k, bt ? s.k : s.n, false, 2);
        Mat c(s.m, s.n, false, pad);
        fill(a, rng), fill(b, rng), fill(c, rng);
        const Mat c0 = c;
        const float alpha = -0.75f, beta = (calls % 2) ? 2.0f : 0.0f;
        sgemm_(&ta, &tb, &s.m, &s.n, &s.k, &alpha, a.v.data(), &a.ld, b.v.data(), &b.ld, &beta,
               c.v.data(), &c.ld);
        EXPECT_EQ(check(a, at, b, bt, c0, c, alpha, beta, s.k), "")
            << s.m << "x" << s.n << "x" << s.k << " " << ta << tb;
      }
}

// Reference-BLAS semantics: beta == 0 does not read C, alpha == 0 does not read A or B, and
// (alpha == 0 or k == 0) with beta == 1 returns at once (C untouched, bit for bit).
TEST(Blas, SpecialValues) {
  const int m = 9, n = 7, k = 5;
  std::vector<float> a(m * k, 1.0f), b(k * n, 2.0f), c(m * n, kNaN);
  const float one = 1.0f, zero = 0.0f, two = 2.0f;
  // beta == 0 over NaN.
  cblas_sgemm(kRow, kNoTrans, kNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
  for (float x : c) ASSERT_EQ(x, 10.0f);
  std::fill(c.begin(), c.end(), kNaN);
  sgemm_("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &zero, c.data(), &m);
  for (float x : c) ASSERT_EQ(x, 10.0f);
  // alpha == 0: NaN operands, beta scales.
  std::vector<float> nan_a(m * k, kNaN), nan_b(k * n, kNaN);
  cblas_sgemm(kCol, kTrans, kNoTrans, m, n, k, 0.0f, nan_a.data(), k, nan_b.data(), k, 0.5f,
              c.data(), m);
  for (float x : c) ASSERT_EQ(x, 5.0f);
  sgemm_("T", "T", &m, &n, &k, &zero, nan_a.data(), &k, nan_b.data(), &n, &two, c.data(), &m);
  for (float x : c) ASSERT_EQ(x, 10.0f);
  // Quick returns: C holds NaN and -0.0 and must come back unchanged, even with NULL operands.
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = i % 2 ? kNaN : -0.0f;
  const std::vector<float> before = c;
  cblas_sgemm(kRow, kNoTrans, kNoTrans, m, n, k, 0.0f, nullptr, k, nullptr, n, 1.0f, c.data(), n);
  sgemm_("N", "N", &m, &n, &k, &zero, nullptr, &m, nullptr, &k, &one, c.data(), &m);
  const int k0 = 0;
  sgemm_("N", "N", &m, &n, &k0, &one, nullptr, &m, nullptr, &m, &one, c.data(), &m);
  EXPECT_EQ(std::memcmp(before.data(), c.data(), c.size() * sizeof(float)), 0);
  // m == 0 / n == 0: nothing is touched, NULL everywhere is fine.
  const int m0 = 0;
  sgemm_("N", "N", &m0, &n, &k, &one, nullptr, &m, nullptr, &k, &zero, nullptr, &m);
  cblas_sgemm(kRow, kNoTrans, kNoTrans, m, 0, k, 1.0f, nullptr, k, nullptr, 1, 0.0f, nullptr, 1);
  // k == 0, beta != 1: C = beta * C.
  std::fill(c.begin(), c.end(), 3.0f);
  cblas_sgemm(kCol, kNoTrans, kNoTrans, m, n, 0, 1.0f, nullptr, m, nullptr, 1, -2.0f, c.data(), m);
  for (float x : c) ASSERT_EQ(x, -6.0f);
}

// ---- Argument errors -------------------------------------------------------------------

using CblasCall = adaptcore::test::CblasArgs;

// Runs the call on guarded buffers; returns what was printed on stderr and whether C (and
// everything around it) was left untouched.
std::string run_cblas(const CblasCall& c, bool* untouched) {
  std::vector<float> a(4096, 1.0f), b(4096, 1.0f), cc(4096);
  for (std::size_t i = 0; i < cc.size(); ++i) cc[i] = static_cast<float>(i);
  const std::vector<float> before = cc;
  ::testing::internal::CaptureStderr();
  cblas_sgemm(c.layout, c.ta, c.tb, c.m, c.n, c.k, 1.0f, a.data(), c.lda < 0 ? c.min_lda() : c.lda,
              b.data(), c.ldb < 0 ? c.min_ldb() : c.ldb, 0.0f, cc.data(),
              c.ldc < 0 ? c.min_ldc() : c.ldc);
  const std::string err = ::testing::internal::GetCapturedStderr();
  *untouched = cc == before;
  return err;
}

std::string expected_message(int param) {
  return "Parameter " + std::to_string(param) + " to routine cblas_sgemm was incorrect";
}

void expect_cblas_error(const CblasCall& c, int param, const std::string& what) {
  bool untouched = false;
  const std::string err = run_cblas(c, &untouched);
  EXPECT_NE(err.find(expected_message(param)), std::string::npos)
      << what << ": expected parameter " << param << ", stderr was: '" << err << "'";
  EXPECT_TRUE(untouched) << what << ": C was modified by a refused call";
}

TEST(CblasErrors, ReferenceParameterNumbers) {
  for (int layout : {kRow, kCol}) {
    const std::string L = layout == kRow ? "row-major" : "col-major";
    CblasCall c;
    c.layout = layout;
    {
      CblasCall x = c;
      x.ta = 0;
      expect_cblas_error(x, 2, L + " TransA");
      x.ta = 114;
      expect_cblas_error(x, 2, L + " TransA 114");
    }
    {
      CblasCall x = c;
      x.tb = 110;
      expect_cblas_error(x, 3, L + " TransB");
    }
    {
      CblasCall x = c;
      x.m = -1;
      expect_cblas_error(x, 4, L + " M");
    }
    {
      CblasCall x = c;
      x.n = -1;
      expect_cblas_error(x, 5, L + " N");
    }
    {
      CblasCall x = c;
      x.k = -1;
      expect_cblas_error(x, 6, L + " K");
    }
    // Leading dimensions, for every transpose combination (the minimum depends on them).
    for (int ta : {kNoTrans, kTrans, kConjTrans})
      for (int tb : {kNoTrans, kTrans}) {
        CblasCall x = c;
        x.ta = ta, x.tb = tb;
        const std::string T = L + " " + std::to_string(ta) + "/" + std::to_string(tb);
        CblasCall y = x;
        y.lda = x.min_lda() - 1;
        expect_cblas_error(y, 9, T + " lda");
        y = x;
        y.ldb = x.min_ldb() - 1;
        expect_cblas_error(y, 11, T + " ldb");
        y = x;
        y.ldc = x.min_ldc() - 1;
        expect_cblas_error(y, 14, T + " ldc");
        bool untouched = false;
        EXPECT_EQ(run_cblas(x, &untouched), "") << T << ": minimal leading dimensions are valid";
        EXPECT_FALSE(untouched) << T << ": a valid call must compute C";
      }
  }
  CblasCall bad_layout;
  bad_layout.layout = 0;
  bad_layout.m = -1;  // layout is checked first
  expect_cblas_error(bad_layout, 1, "layout");
  bad_layout.layout = 103;
  expect_cblas_error(bad_layout, 1, "layout 103");
}

// Which error wins when several are present: reference CBLAS forwards a row-major call as the
// column-major call with A and B (M and N) exchanged, so N is checked before M and ldb before
// lda there.
TEST(CblasErrors, ReferenceCheckOrder) {
  CblasCall c;
  c.m = -1, c.n = -1;
  c.layout = kCol;
  expect_cblas_error(c, 4, "col-major M and N");
  c.layout = kRow;
  expect_cblas_error(c, 5, "row-major M and N");
  CblasCall d;
  d.lda = 0, d.ldb = 0;
  d.layout = kCol;
  expect_cblas_error(d, 9, "col-major lda and ldb");
  d.layout = kRow;
  expect_cblas_error(d, 11, "row-major lda and ldb");
  CblasCall e;
  e.ta = 0, e.m = -1;
  expect_cblas_error(e, 2, "TransA before M");
  CblasCall f;
  f.k = -1, f.ldc = 0;
  expect_cblas_error(f, 6, "K before ldc");
}

// Errors in sgemm_ go to xerbla_, here the library's default: the reference message on stderr,
// and the call returns (the reference XERBLA would STOP the program).
TEST(FortranErrors, DefaultXerblaPrintsAndReturns) {
  const int m = 4, n = 4, k = 4, bad_lda = 3, ld = 4;
  const float one = 1.0f;
  std::vector<float> a(64, 1.0f), c(64, 7.0f);
  ::testing::internal::CaptureStderr();
  sgemm_("N", "N", &m, &n, &k, &one, a.data(), &bad_lda, a.data(), &ld, &one, c.data(), &ld);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("On entry to SGEMM parameter number  8 had an illegal value"),
            std::string::npos)
      << err;
  for (float x : c) EXPECT_EQ(x, 7.0f);
  ::testing::internal::CaptureStderr();
  sgemm_("X", "N", &m, &n, &k, &one, a.data(), &ld, a.data(), &ld, &one, c.data(), &ld);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("parameter number  1 had"),
            std::string::npos);
  const int ldc3 = 3;
  ::testing::internal::CaptureStderr();
  sgemm_("N", "N", &m, &n, &k, &one, a.data(), &ld, a.data(), &ld, &one, c.data(), &ldc3);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("parameter number 13 had"),
            std::string::npos);
  for (float x : c) EXPECT_EQ(x, 7.0f);
}

// A call that passes the BLAS checks but that the engine refuses (an operand it must read is
// NULL; C overlapping A) is reported on stderr and leaves C untouched instead of crashing.
TEST(Blas, EngineRefusalsAreReported) {
  std::vector<float> buf(64, 1.0f), c(64, 7.0f);
  ::testing::internal::CaptureStderr();
  cblas_sgemm(kRow, kNoTrans, kNoTrans, 4, 4, 4, 1.0f, nullptr, 4, buf.data(), 4, 0.0f, c.data(),
              4);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cblas_sgemm"), std::string::npos) << err;
  for (float x : c) EXPECT_EQ(x, 7.0f);
  const int n4 = 4;
  const float one = 1.0f;
  ::testing::internal::CaptureStderr();
  sgemm_("N", "N", &n4, &n4, &n4, &one, c.data(), &n4, buf.data(), &n4, &one, c.data(), &n4);
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("SGEMM"), std::string::npos) << err;
  for (float x : c) EXPECT_EQ(x, 7.0f);
}

}  // namespace
