// A program that defines its own xerbla_ (as LAPACK-style applications do): the BLAS library's
// sgemm_ must report argument errors to this xerbla_, with reference SGEMM's INFO numbers and
// check order, and must leave C untouched. Links only the shared libadaptcore_blas.so.
#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc);
void cblas_sgemm(int layout, int transa, int transb, const int M, const int N, const int K,
                 const float alpha, const float* A, const int lda, const float* B, const int ldb,
                 const float beta, float* C, const int ldc);
}

namespace {
int g_calls = 0;
int g_info = 0;
std::string g_name;
int g_len = 0;
}  // namespace

// Overrides the library's weak default (the library exports xerbla_ and calls it through the
// PLT, so this definition in the executable takes precedence).
extern "C" void xerbla_(const char* srname, const int* info, int len) {
  ++g_calls;
  g_info = *info;
  g_len = len;
  g_name.assign(srname, static_cast<std::size_t>(len > 0 && len < 64 ? len : 0));
}

namespace {

struct Call {
  char ta = 'N', tb = 'N';
  int m = 4, n = 6, k = 5;
  int lda = -1, ldb = -1, ldc = -1;  // -1: the minimum for the transposes
  int min_lda() const { return std::max(1, (ta == 'N' || ta == 'n') ? m : k); }
  int min_ldb() const { return std::max(1, (tb == 'N' || tb == 'n') ? k : n); }
  int min_ldc() const { return std::max(1, m); }
};

// Runs sgemm_; returns the INFO xerbla_ received (0 if it was not called) and checks C.
int run(const Call& c, bool* untouched = nullptr) {
  std::vector<float> a(4096, 1.0f), b(4096, 1.0f), cc(4096);
  for (std::size_t i = 0; i < cc.size(); ++i) cc[i] = static_cast<float>(i);
  const std::vector<float> before = cc;
  const int lda = c.lda < 0 ? c.min_lda() : c.lda, ldb = c.ldb < 0 ? c.min_ldb() : c.ldb,
            ldc = c.ldc < 0 ? c.min_ldc() : c.ldc;
  const float alpha = 1.0f, beta = 0.0f;
  g_calls = 0;
  g_info = 0;
  g_name.clear();
  sgemm_(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, cc.data(),
         &ldc);
  if (untouched != nullptr) *untouched = cc == before;
  if (g_calls > 1) ADD_FAILURE() << "xerbla_ called " << g_calls << " times";
  if (g_calls == 1) {
    EXPECT_EQ(g_name, "SGEMM ");
    EXPECT_EQ(g_len, 6);
  }
  return g_calls ? g_info : 0;
}

void expect_info(const Call& c, int info, const std::string& what) {
  bool untouched = false;
  EXPECT_EQ(run(c, &untouched), info) << what;
  EXPECT_TRUE(untouched) << what << ": C modified by a refused call";
}

TEST(UserXerbla, ReceivesReferenceInfoNumbers) {
  Call c;
  {
    Call x = c;
    x.ta = 'X';
    expect_info(x, 1, "transa 'X'");
    x.ta = '\0';
    expect_info(x, 1, "transa NUL");
  }
  {
    Call x = c;
    x.tb = 'q';
    expect_info(x, 2, "transb 'q'");
  }
  {
    Call x = c;
    x.m = -1;
    expect_info(x, 3, "m");
  }
  {
    Call x = c;
    x.n = -1;
    expect_info(x, 4, "n");
  }
  {
    Call x = c;
    x.k = -1;
    expect_info(x, 5, "k");
  }
  for (char ta : {'N', 'n', 'T', 't', 'C', 'c'})
    for (char tb : {'N', 'T', 'c'}) {
      Call x = c;
      x.ta = ta, x.tb = tb;
      const std::string T = std::string(1, ta) + tb;
      Call y = x;
      y.lda = x.min_lda() - 1;
      expect_info(y, 8, T + " lda");
      y = x;
      y.ldb = x.min_ldb() - 1;
      expect_info(y, 10, T + " ldb");
      y = x;
      y.ldc = x.min_ldc() - 1;
      expect_info(y, 13, T + " ldc");
      bool untouched = true;
      EXPECT_EQ(run(x, &untouched), 0) << T << ": minimal leading dimensions are valid";
      EXPECT_FALSE(untouched) << T << ": a valid call must compute C";
    }
  // ldX >= max(1, rows) also for empty matrices.
  Call z;
  z.m = 0;
  z.lda = 0;
  expect_info(z, 8, "lda = 0 with m = 0");
  z = Call{};
  z.m = 0;
  z.ldc = 0;
  expect_info(z, 13, "ldc = 0 with m = 0");
}

TEST(UserXerbla, ReferenceCheckOrder) {
  Call c;
  c.ta = 'X', c.m = -1;
  expect_info(c, 1, "transa before m");
  c = Call{};
  c.tb = 'X', c.k = -1;
  expect_info(c, 2, "transb before k");
  c = Call{};
  c.m = -1, c.n = -1, c.k = -1;
  expect_info(c, 3, "m before n and k");
  c = Call{};
  c.n = -1, c.lda = 0;
  expect_info(c, 4, "n before lda");
  c = Call{};
  c.lda = 0, c.ldb = 0, c.ldc = 0;
  expect_info(c, 8, "lda before ldb and ldc");
  c = Call{};
  c.ldb = 0, c.ldc = 0;
  expect_info(c, 10, "ldb before ldc");
}

TEST(UserXerbla, NotCalledForValidOrCblasCalls) {
  EXPECT_EQ(run(Call{}), 0);
  Call empty;
  empty.m = 0, empty.n = 0, empty.k = 0;
  EXPECT_EQ(run(empty), 0);
  // cblas_sgemm reports its errors through cblas_xerbla (here the library's default, which
  // prints on stderr), in CBLAS numbering, not through xerbla_.
  std::vector<float> buf(64, 1.0f);
  g_calls = 0;
  ::testing::internal::CaptureStderr();
  cblas_sgemm(101, 111, 111, -1, 4, 4, 1.0f, buf.data(), 4, buf.data(), 4, 0.0f, buf.data(), 4);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(g_calls, 0);
  EXPECT_NE(err.find("Parameter 4 to routine cblas_sgemm was incorrect"), std::string::npos) << err;
}

}  // namespace
