// A program that defines its own cblas_xerbla (as the reference CBLAS tests and many C
// applications do): cblas_sgemm must report argument errors to it, with the routine name
// "cblas_sgemm" and reference CBLAS's parameter numbers, exactly once per bad call, and must
// leave C untouched. Links only the shared libadaptcore_blas.so.
//
// Reference numbering (LAPACK CBLAS/src/cblas_sgemm.c and its xerbla.c): Order 1, TransA 2,
// TransB 3, then the Fortran SGEMM checks shifted by one. A row-major call is forwarded as the
// column-major call with A/B and M/N exchanged, so the handler receives the positions in that
// call: N 4, M 5, K 6, ldb 9, lda 11, ldc 14 (the reference test xscblat3 swaps 4/5 and 9/11
// back for its row-major expectations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "cblas_args.hpp"

extern "C" void cblas_sgemm(int layout, int transa, int transb, const int M, const int N,
                            const int K, const float alpha, const float* A, const int lda,
                            const float* B, const int ldb, const float beta, float* C,
                            const int ldc);

namespace {
int g_calls = 0;
int g_param = 0;
std::string g_rout;
std::string g_form;
}  // namespace

// Overrides the library's weak default (the library exports cblas_xerbla and calls it through
// the PLT, so this definition in the executable takes precedence).
extern "C" void cblas_xerbla(int p, const char* rout, const char* form, ...) {
  ++g_calls;
  g_param = p;
  g_rout = rout != nullptr ? rout : "(null)";
  char buf[256] = {};
  if (form != nullptr) {
    va_list args;
    va_start(args, form);
    std::vsnprintf(buf, sizeof buf, form, args);
    va_end(args);
  }
  g_form = buf;
}

namespace {

using adaptcore::test::kCol;
using adaptcore::test::kConjTrans;
using adaptcore::test::kNoTrans;
using adaptcore::test::kRow;
using adaptcore::test::kTrans;

using Call = adaptcore::test::CblasArgs;

// Runs the call; returns the parameter cblas_xerbla received (0: not called) and checks C.
int run(const Call& c, bool* untouched = nullptr) {
  std::vector<float> a(4096, 1.0f), b(4096, 1.0f), cc(4096);
  for (std::size_t i = 0; i < cc.size(); ++i) cc[i] = static_cast<float>(i);
  const std::vector<float> before = cc;
  g_calls = 0;
  g_param = 0;
  g_rout.clear();
  g_form.clear();
  cblas_sgemm(c.layout, c.ta, c.tb, c.m, c.n, c.k, 1.0f, a.data(), c.lda < 0 ? c.min_lda() : c.lda,
              b.data(), c.ldb < 0 ? c.min_ldb() : c.ldb, 0.0f, cc.data(),
              c.ldc < 0 ? c.min_ldc() : c.ldc);
  if (untouched != nullptr) *untouched = cc == before;
  if (g_calls > 1) ADD_FAILURE() << "cblas_xerbla called " << g_calls << " times";
  if (g_calls == 1) EXPECT_EQ(g_rout, "cblas_sgemm");
  return g_calls != 0 ? g_param : 0;
}

void expect_param(const Call& c, int param, const std::string& what) {
  bool untouched = false;
  EXPECT_EQ(run(c, &untouched), param) << what;
  EXPECT_TRUE(untouched) << what << ": C modified by a refused call";
}

// The positions cblas_xerbla receives for each argument of a call in `layout`.
struct Positions {
  int m, n, lda, ldb;
};

// Every argument made invalid in turn, for every transpose pair: the handler gets its position
// once; with minimal leading dimensions the call is valid and computes C.
void check_positions(int layout, Positions pos) {
  Call c;
  c.layout = layout;
  Call x = c;
  x.ta = 0;
  expect_param(x, 2, "TransA 0");
  EXPECT_EQ(g_form, "Illegal TransA setting, 0\n");
  x = c;
  x.tb = 114;
  expect_param(x, 3, "TransB 114");
  x = c;
  x.m = -1;
  expect_param(x, pos.m, "M");
  x = c;
  x.n = -1;
  expect_param(x, pos.n, "N");
  x = c;
  x.k = -1;
  expect_param(x, 6, "K");
  for (int ta : {kNoTrans, kTrans, kConjTrans})
    for (int tb : {kNoTrans, kTrans}) {
      Call t = c;
      t.ta = ta, t.tb = tb;
      const std::string T = std::to_string(ta) + "/" + std::to_string(tb);
      Call y = t;
      y.lda = t.min_lda() - 1;
      expect_param(y, pos.lda, T + " lda");
      y = t;
      y.ldb = t.min_ldb() - 1;
      expect_param(y, pos.ldb, T + " ldb");
      y = t;
      y.ldc = t.min_ldc() - 1;
      expect_param(y, 14, T + " ldc");
      bool untouched = true;
      EXPECT_EQ(run(t, &untouched), 0) << T << ": minimal leading dimensions are valid";
      EXPECT_FALSE(untouched) << T << ": a valid call must compute C";
    }
}

TEST(UserCblasXerbla, ColumnMajorParameterNumbers) {
  check_positions(kCol, Positions{4, 5, 9, 11});
}

// Row-major: the positions in the transposed column-major call (M 5, N 4, lda 11, ldb 9).
TEST(UserCblasXerbla, RowMajorParameterNumbersOfTheTransposedCall) {
  check_positions(kRow, Positions{5, 4, 11, 9});
}

TEST(UserCblasXerbla, LayoutAndCheckOrder) {
  for (int layout : {0, 103, -1}) {
    Call x;
    x.layout = layout;
    x.m = -1, x.ta = 0;  // layout is checked first
    expect_param(x, 1, "layout " + std::to_string(layout));
    EXPECT_EQ(g_form, "Illegal layout setting, " + std::to_string(layout) + "\n");
  }
  for (int layout : {kCol, kRow}) {
    Call x;
    x.layout = layout;
    x.ta = 0, x.m = -1;
    expect_param(x, 2, "TransA before M");
    x = Call{};
    x.layout = layout;
    x.m = -1, x.n = -1;
    // Column-major checks M first (4); row-major checks N first (4 in the transposed call).
    expect_param(x, 4, "M and N");
    x = Call{};
    x.layout = layout;
    x.lda = 0, x.ldb = 0;
    // Column-major: lda (9) first; row-major: ldb first, position 9 of the transposed call.
    expect_param(x, 9, "lda and ldb");
    x = Call{};
    x.layout = layout;
    x.k = -1, x.ldc = 0;
    expect_param(x, 6, "K before ldc");
  }
}

TEST(UserCblasXerbla, NotCalledForValidOrEmptyCalls) {
  Call valid;
  valid.layout = kCol;
  EXPECT_EQ(run(valid), 0);
  Call e;
  e.layout = kCol;
  e.m = 0, e.n = 0, e.k = 0;
  EXPECT_EQ(run(e), 0);
  e.layout = kRow;
  EXPECT_EQ(run(e), 0);
  EXPECT_EQ(g_calls, 0);
}

}  // namespace
