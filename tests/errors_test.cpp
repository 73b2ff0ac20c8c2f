// Invalid arguments and configuration errors: every Status reachable from gemm / ac_sgemm and
// from the context's configuration calls, the documented check order, and the cases that must
// NOT be errors (NULL operands that are not read, disjoint blocks of one buffer). A refused
// call must leave C untouched.
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "dispatch/internal_access.hpp"
#include "exec/thread_pool.hpp"
#include "hw/usable_cpus.hpp"
#include "kernels/registry.hpp"
#include "process_test_util.hpp"
#include "test_util.hpp"

namespace adaptcore::test {
namespace {

constexpr int64_t kBig = std::numeric_limits<int64_t>::max();

// Operands big enough for any of the small shapes below, C filled with a pattern.
struct Buffers {
  std::vector<float> a = std::vector<float>(4096, 1.0f);
  std::vector<float> b = std::vector<float>(4096, 1.0f);
  std::vector<float> c = std::vector<float>(4096);
  Buffers() {
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i);
  }
  bool c_untouched() const {
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c[i] != static_cast<float>(i)) return false;
    return true;
  }
};

class Errors : public ::testing::Test {
 protected:
  Context& ctx() { return *ctx_; }
  Status call(Layout l, Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, int64_t lda,
              int64_t ldb, int64_t ldc, float alpha = 1.0f, float beta = 0.0f) {
    return gemm(l, ta, tb, m, n, k, alpha, buf_.a.data(), lda, buf_.b.data(), ldb, beta,
                buf_.c.data(), ldc, ctx());
  }
  std::unique_ptr<Context> ctx_ = make_context(Isa::Auto, 2);
  Buffers buf_;
};

TEST_F(Errors, InvalidLayout) {
  for (int bad : {0, 100, 103, -101}) {
    EXPECT_EQ(call(static_cast<Layout>(bad), Trans::No, Trans::No, 4, 4, 4, 4, 4, 4),
              Status::InvalidLayout)
        << bad;
    EXPECT_EQ(ac_sgemm(static_cast<ac_layout_t>(bad), AC_NO_TRANS, AC_NO_TRANS, 4, 4, 4, 1.0f,
                       buf_.a.data(), 4, buf_.b.data(), 4, 0.0f, buf_.c.data(), 4),
              AC_STATUS_INVALID_LAYOUT);
  }
  // View form: each operand's layout is checked.
  auto a = row_major<const float>(buf_.a.data(), 4, 4);
  auto b = row_major<const float>(buf_.b.data(), 4, 4);
  auto c = row_major<float>(buf_.c.data(), 4, 4);
  auto bad = [](auto v) {
    v.layout = static_cast<Layout>(7);
    return v;
  };
  EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, bad(a), b, 0.0f, c, ctx()), Status::InvalidLayout);
  EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, a, bad(b), 0.0f, c, ctx()), Status::InvalidLayout);
  EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, a, b, 0.0f, bad(c), ctx()), Status::InvalidLayout);
  EXPECT_TRUE(buf_.c_untouched());
}

TEST_F(Errors, InvalidTranspose) {
  for (int bad : {0, 110, 114, -112}) {
    const Trans t = static_cast<Trans>(bad);
    EXPECT_EQ(call(Layout::RowMajor, t, Trans::No, 4, 4, 4, 4, 4, 4), Status::InvalidTranspose);
    EXPECT_EQ(call(Layout::ColMajor, Trans::No, t, 4, 4, 4, 4, 4, 4), Status::InvalidTranspose);
    EXPECT_EQ(ac_sgemm(AC_COL_MAJOR, AC_TRANS, static_cast<ac_transpose_t>(bad), 4, 4, 4, 1.0f,
                       buf_.a.data(), 4, buf_.b.data(), 4, 0.0f, buf_.c.data(), 4),
              AC_STATUS_INVALID_TRANSPOSE);
    auto a = row_major<const float>(buf_.a.data(), 4, 4);
    auto c = row_major<float>(buf_.c.data(), 4, 4);
    EXPECT_EQ(gemm(t, Trans::No, 1.0f, a, a, 0.0f, c, ctx()), Status::InvalidTranspose);
    EXPECT_EQ(gemm(Trans::Yes, t, 1.0f, a, a, 0.0f, c, ctx()), Status::InvalidTranspose);
  }
  EXPECT_TRUE(buf_.c_untouched());
}

TEST_F(Errors, NegativeDimensions) {
  for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
    EXPECT_EQ(call(l, Trans::No, Trans::No, -1, 4, 4, 4, 4, 4), Status::InvalidDimension);
    EXPECT_EQ(call(l, Trans::No, Trans::No, 4, -1, 4, 4, 4, 4), Status::InvalidDimension);
    EXPECT_EQ(call(l, Trans::No, Trans::No, 4, 4, -1, 4, 4, 4), Status::InvalidDimension);
    EXPECT_EQ(call(l, Trans::Yes, Trans::Yes, 4, 4, std::numeric_limits<int64_t>::min(), 4, 4, 4),
              Status::InvalidDimension);
  }
  EXPECT_EQ(ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 4, -7, 4, 1.0f, buf_.a.data(), 4,
                     buf_.b.data(), 4, 0.0f, buf_.c.data(), 4),
            AC_STATUS_INVALID_DIMENSION);
  MatrixView<const float> a{buf_.a.data(), -1, 4, 4, Layout::RowMajor};
  auto b = row_major<const float>(buf_.b.data(), 4, 4);
  auto c = row_major<float>(buf_.c.data(), 4, 4);
  EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, a, b, 0.0f, c, ctx()), Status::InvalidDimension);
  MatrixView<float> c2{buf_.c.data(), 4, -4, 4, Layout::RowMajor};
  EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, b, b, 0.0f, c2, ctx()), Status::InvalidDimension);
  EXPECT_TRUE(buf_.c_untouched());
}

// The documented order: layout, transposes, dimensions, leading dimensions, size overflow,
// NULL pointers, aliasing. Each call has every later error too.
TEST_F(Errors, CheckOrder) {
  const Layout bad_l = static_cast<Layout>(1);
  const Trans bad_t = static_cast<Trans>(1);
  float* c = buf_.c.data();
  EXPECT_EQ(gemm(bad_l, bad_t, Trans::No, -1, 4, 4, 1.0f, nullptr, 0, nullptr, 0, 0.0f, nullptr, 0,
                 ctx()),
            Status::InvalidLayout);
  EXPECT_EQ(gemm(Layout::RowMajor, bad_t, Trans::No, -1, 4, 4, 1.0f, nullptr, 0, nullptr, 0, 0.0f,
                 nullptr, 0, ctx()),
            Status::InvalidTranspose);
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, -1, 4, 4, 1.0f, nullptr, 0, nullptr, 0,
                 0.0f, nullptr, 0, ctx()),
            Status::InvalidDimension);
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 4, 1.0f, nullptr, 0, nullptr, kBig,
                 0.0f, nullptr, 4, ctx()),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 4, 1.0f, nullptr, kBig / 2, nullptr,
                 4, 0.0f, nullptr, 4, ctx()),
            Status::SizeOverflow);
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 4, 1.0f, c, 4, nullptr, 4, 0.0f, c,
                 4, ctx()),
            Status::NullPointer);
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 4, 1.0f, c, 4, c + 100, 4, 0.0f, c,
                 4, ctx()),
            Status::Aliasing);
  EXPECT_TRUE(buf_.c_untouched());
}

// Minimum leading dimensions: max(1, cols) of the stored matrix in row-major, max(1, rows) in
// column-major, for A (m x k, or k x m transposed), B (k x n, or n x k) and C (m x n).
struct LdCase {
  Layout layout;
  Trans ta, tb;
};

class LeadingDimension : public ::testing::TestWithParam<LdCase> {};

TEST_P(LeadingDimension, EachTooSmallIsRejectedAndTheMinimumWorks) {
  const auto [l, ta, tb] = GetParam();
  auto ctx = make_context(Isa::Auto, 1);
  const int64_t m = 5, n = 7, k = 3;  // all different, so a wrong rule cannot pass
  const bool row = l == Layout::RowMajor;
  const int64_t a_rows = transposed(ta) ? k : m, a_cols = transposed(ta) ? m : k;
  const int64_t b_rows = transposed(tb) ? n : k, b_cols = transposed(tb) ? k : n;
  const int64_t lda = row ? a_cols : a_rows, ldb = row ? b_cols : b_rows, ldc = row ? n : m;
  Buffers buf;
  auto run = [&](int64_t xa, int64_t xb, int64_t xc) {
    return gemm(l, ta, tb, m, n, k, 1.0f, buf.a.data(), xa, buf.b.data(), xb, 0.0f, buf.c.data(),
                xc, *ctx);
  };
  EXPECT_EQ(run(lda - 1, ldb, ldc), Status::InvalidLeadingDimension) << "lda";
  EXPECT_EQ(run(lda, ldb - 1, ldc), Status::InvalidLeadingDimension) << "ldb";
  EXPECT_EQ(run(lda, ldb, ldc - 1), Status::InvalidLeadingDimension) << "ldc";
  EXPECT_EQ(run(0, ldb, ldc), Status::InvalidLeadingDimension);
  EXPECT_EQ(run(lda, ldb, -ldc), Status::InvalidLeadingDimension);
  EXPECT_TRUE(buf.c_untouched());
  EXPECT_EQ(run(lda, ldb, ldc), Status::Ok);
  // Every C element is k = 3 (ones times ones); padding beyond m x n is untouched.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      EXPECT_EQ(buf.c[static_cast<std::size_t>(row ? i * ldc + j : j * ldc + i)], 3.0f);
  EXPECT_EQ(buf.c[static_cast<std::size_t>(m * n)], static_cast<float>(m * n));
  // Views, same rules.
  MatrixView<const float> va{buf.a.data(), a_rows, a_cols, lda, l};
  MatrixView<const float> vb{buf.b.data(), b_rows, b_cols, ldb, l};
  MatrixView<float> vc{buf.c.data(), m, n, ldc, l};
  auto dec = [](auto v) {
    v.ld -= 1;
    return v;
  };
  EXPECT_EQ(gemm(ta, tb, 1.0f, dec(va), vb, 0.0f, vc, *ctx), Status::InvalidLeadingDimension);
  EXPECT_EQ(gemm(ta, tb, 1.0f, va, dec(vb), 0.0f, vc, *ctx), Status::InvalidLeadingDimension);
  EXPECT_EQ(gemm(ta, tb, 1.0f, va, vb, 0.0f, dec(vc), *ctx), Status::InvalidLeadingDimension);
  EXPECT_EQ(gemm(ta, tb, 1.0f, va, vb, 0.0f, vc, *ctx), Status::Ok);
}

std::vector<LdCase> all_ld_cases() {
  std::vector<LdCase> out;
  for (Layout l : {Layout::RowMajor, Layout::ColMajor})
    for (Trans ta : {Trans::No, Trans::Yes, Trans::ConjYes})
      for (Trans tb : {Trans::No, Trans::Yes, Trans::ConjYes}) out.push_back({l, ta, tb});
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, LeadingDimension, ::testing::ValuesIn(all_ld_cases()),
                         [](const auto& info) {
                           return std::string(name(info.param.layout)) + "_" + name(info.param.ta) +
                                  name(info.param.tb);
                         });

TEST_F(Errors, LeadingDimensionOfEmptyMatricesIsStillAtLeastOne) {
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, Trans::No, 0, 0, 0, 0, 1, 1),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(call(Layout::ColMajor, Trans::No, Trans::No, 0, 0, 0, 1, 1, 0),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(call(Layout::ColMajor, Trans::No, Trans::No, 0, 0, 0, 1, 1, 1), Status::Ok);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 0, 1, 4, 4), Status::Ok);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 0, 0, 4, 4),
            Status::InvalidLeadingDimension);
}

TEST_F(Errors, NullPointers) {
  float* a = buf_.a.data();
  float* b = buf_.b.data();
  float* c = buf_.c.data();
  auto g = [&](int64_t m, int64_t n, int64_t k, float alpha, const float* pa, const float* pb,
               float beta, float* pc) {
    return gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, alpha, pa, 8, pb, 8, beta, pc, 8,
                ctx());
  };
  // Operands that must be read or written.
  EXPECT_EQ(g(4, 4, 4, 1.0f, nullptr, b, 0.0f, c), Status::NullPointer);
  EXPECT_EQ(g(4, 4, 4, 1.0f, a, nullptr, 0.0f, c), Status::NullPointer);
  EXPECT_EQ(g(4, 4, 4, 1.0f, a, b, 0.0f, nullptr), Status::NullPointer);
  EXPECT_EQ(g(4, 4, 4, 0.0f, nullptr, nullptr, 0.0f, nullptr), Status::NullPointer);  // C written
  EXPECT_EQ(g(4, 4, 0, 1.0f, nullptr, nullptr, 2.0f, nullptr), Status::NullPointer);
  EXPECT_EQ(
      ac_sgemm(AC_COL_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 4, 4, 4, 1.0f, nullptr, 4, b, 4, 0.0f, c, 4),
      AC_STATUS_NULL_POINTER);
  EXPECT_TRUE(buf_.c_untouched());
  // Not errors: the NULL operand is not accessed.
  EXPECT_EQ(g(0, 4, 4, 1.0f, nullptr, nullptr, 0.0f, nullptr), Status::Ok);  // m == 0
  EXPECT_EQ(g(4, 0, 4, 1.0f, nullptr, nullptr, 0.0f, nullptr), Status::Ok);  // n == 0
  EXPECT_EQ(g(4, 4, 0, 1.0f, nullptr, nullptr, 1.0f, c), Status::Ok);        // k == 0
  EXPECT_EQ(g(4, 4, 4, 0.0f, nullptr, b, 1.0f, c), Status::Ok);              // alpha == 0
  EXPECT_EQ(g(4, 4, 4, 0.0f, a, nullptr, 1.0f, c), Status::Ok);
  EXPECT_TRUE(buf_.c_untouched());  // beta == 1 in all of them
  EXPECT_EQ(g(4, 4, 4, 0.0f, nullptr, nullptr, 0.5f, c), Status::Ok);
  EXPECT_EQ(buf_.c[9], 4.5f);  // C(1,1) = 0.5 * 9
  // Views.
  auto va = row_major<const float>(nullptr, 4, 4);
  auto vb = row_major<const float>(b, 4, 4);
  auto vc = row_major<float>(c, 4, 4);
  EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, va, vb, 0.0f, vc, ctx()), Status::NullPointer);
  EXPECT_EQ(gemm(Trans::No, Trans::No, 0.0f, va, vb, 1.0f, vc, ctx()), Status::Ok);
}

TEST_F(Errors, SizeOverflow) {
  // (rows - 1) * ld overflows int64.
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, Trans::No, 4, 2, 2, kBig / 2, 2, 2),
            Status::SizeOverflow);
  EXPECT_EQ(call(Layout::ColMajor, Trans::No, Trans::No, 2, 4, 2, 2, kBig / 2, 2),
            Status::SizeOverflow);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, Trans::No, 3, 2, 2, 2, 2, kBig - 1),
            Status::SizeOverflow);
  // The element count fits int64 but not as bytes.
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, Trans::Yes, 2, 2, 2, int64_t{1} << 61, 2, 2),
            Status::SizeOverflow);
  // Huge dimensions with minimal leading dimensions.
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, Trans::No, int64_t{1} << 62, 4, 1, 1, 4, 4),
            Status::SizeOverflow);
  // The extent fits, but the pointer plus the extent wraps around the address space. The
  // pointers are never dereferenced: the call is refused first.
  const auto top = reinterpret_cast<float*>(~std::uintptr_t{0} - 4095);
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 64, 64, 4, 1.0f, buf_.a.data(), 4,
                 buf_.b.data(), 64, 0.0f, top, 64, ctx()),
            Status::SizeOverflow);
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 2048, 1.0f, top, 2048, buf_.b.data(),
                 4, 0.0f, buf_.c.data(), 4, ctx()),
            Status::SizeOverflow);
  EXPECT_EQ(ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 3, 2, 2, 1.0f, buf_.a.data(), kBig / 2,
                     buf_.b.data(), 2, 0.0f, buf_.c.data(), 2),
            AC_STATUS_SIZE_OVERFLOW);
  EXPECT_TRUE(buf_.c_untouched());
}

TEST_F(Errors, AliasingIsRefused) {
  std::vector<float> m(64 * 64, 1.0f);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>(i % 7);
  const std::vector<float> before = m;
  float* p = m.data();
  // C is A.
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 8, 8, 8, 1.0f, p, 8, buf_.b.data(), 8,
                 0.0f, p, 8, ctx()),
            Status::Aliasing);
  // C is B, column-major and transposed.
  EXPECT_EQ(gemm(Layout::ColMajor, Trans::Yes, Trans::Yes, 8, 8, 8, 1.0f, buf_.a.data(), 8, p, 8,
                 0.0f, p, 8, ctx()),
            Status::Aliasing);
  // C starts inside B's footprint.
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 8, 8, 8, 1.0f, buf_.a.data(), 8, p, 8,
                 0.0f, p + 20, 8, ctx()),
            Status::Aliasing);
  // Column blocks of one padded row-major buffer that share one column.
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 8, 8, 8, 1.0f, p, 64, buf_.b.data(), 8,
                 0.0f, p + 7, 64, ctx()),
            Status::Aliasing);
  // Row blocks of one column-major buffer that share one row.
  EXPECT_EQ(gemm(Layout::ColMajor, Trans::No, Trans::No, 8, 8, 8, 1.0f, p, 64, buf_.b.data(), 8,
                 0.0f, p + 7, 64, ctx()),
            Status::Aliasing);
  // C overlapping B through views of different layouts.
  EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, row_major<const float>(buf_.a.data(), 8, 8),
                 col_major<const float>(p, 8, 8), 0.0f, row_major<float>(p + 8, 8, 8), ctx()),
            Status::Aliasing);
  EXPECT_EQ(ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 8, 8, 8, 1.0f, p, 8, buf_.b.data(), 8,
                     0.0f, p, 8),
            AC_STATUS_ALIASING);
  EXPECT_EQ(m, before);
  // Not aliasing: A and B are not read (alpha == 0 or k == 0), so C may be anywhere.
  EXPECT_EQ(
      gemm(Layout::RowMajor, Trans::No, Trans::No, 8, 8, 8, 0.0f, p, 8, p, 8, 2.0f, p, 8, ctx()),
      Status::Ok);
  EXPECT_EQ(m[9], 2.0f * before[9]);
  EXPECT_EQ(
      gemm(Layout::RowMajor, Trans::No, Trans::No, 8, 8, 0, 1.0f, p, 1, p, 8, 1.0f, p, 8, ctx()),
      Status::Ok);
}

// C and A as disjoint blocks of one padded buffer: in row-major, column blocks interleave in
// memory (footprints overlap) but share no element. That is legal and must compute the right
// result without touching anything outside C.
struct BlockCase {
  const char* what;
  Layout l;
  int64_t rows, cols, pad;         // the big matrix and its ld padding
  int64_t a_r0, a_c0, c_r0, c_c0;  // where A (m x k) and C (m x n) start in it
};

TEST_F(Errors, DisjointBlocksOfOneBufferAreNotAliasing) {
  const int64_t m = 9, k = 6, n = 11;
  const BlockCase cases[] = {
      {"row-major column blocks, C right of A", Layout::RowMajor, m, k + n + 3, 2, 0, 0, 0, k},
      {"row-major column blocks, C left of A", Layout::RowMajor, m, k + n, 0, 0, n, 0, 0},
      {"column-major row blocks", Layout::ColMajor, 2 * m + 1, n, 1, 0, 0, m + 1, 0},
      {"column-major row blocks, C above A", Layout::ColMajor, 2 * m, n, 0, m, 0, 0, 0},
      {"column-major column blocks", Layout::ColMajor, m, k + n, 3, 0, 0, 0, k},
      {"row-major row blocks", Layout::RowMajor, 2 * m, n, 0, 0, 0, m, 0},
  };
  for (const auto& bc : cases)
    for (int api = 0; api < 2; ++api) {
      const int64_t width = bc.l == Layout::RowMajor ? bc.cols : bc.rows;
      Stored big(bc.rows, bc.cols, bc.l, width + bc.pad);
      big.fill([](int64_t, int64_t) { return -7.0f; });
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t p = 0; p < k; ++p)
          big.at(bc.a_r0 + i, bc.a_c0 + p) = static_cast<float>((i + 2 * p) % 3) - 1.0f;
        for (int64_t j = 0; j < n; ++j)
          big.at(bc.c_r0 + i, bc.c_c0 + j) = static_cast<float>(i * n + j);
      }
      Stored b(k, n, bc.l, bc.l == Layout::RowMajor ? n : k);
      b.fill([](int64_t p, int64_t j) { return static_cast<float>((p * 3 + j) % 5) - 2.0f; });
      const Stored before = big;
      const float* A = &big.at(bc.a_r0, bc.a_c0);
      float* C = &big.at(bc.c_r0, bc.c_c0);
      Status s;
      if (api == 0)
        s = gemm(bc.l, Trans::No, Trans::No, m, n, k, 1.0f, A, big.ld(), b.data(), b.ld(), 0.5f, C,
                 big.ld(), ctx());
      else
        s = gemm(Trans::No, Trans::No, 1.0f, MatrixView<const float>{A, m, k, big.ld(), bc.l},
                 b.cview(), 0.5f, MatrixView<float>{C, m, n, big.ld(), bc.l}, ctx());
      ASSERT_EQ(s, Status::Ok) << bc.what << (api ? " (views)" : "");
      // Small integers and halves: the result is exact.
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float e = 0.5f * before.at(bc.c_r0 + i, bc.c_c0 + j);
          for (int64_t p = 0; p < k; ++p) e += before.at(bc.a_r0 + i, bc.a_c0 + p) * b.at(p, j);
          EXPECT_EQ(big.at(bc.c_r0 + i, bc.c_c0 + j), e)
              << bc.what << " C(" << i << "," << j << ")";
        }
      // Nothing outside C changed (A, the rest of the matrix, padding, guards).
      std::size_t changed = 0;
      for (std::size_t x = 0; x < big.memory().size(); ++x) {
        const bool in_c = [&] {
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
              if (big.mem_index(bc.c_r0 + i, bc.c_c0 + j) == x) return true;
          return false;
        }();
        if (!in_c && std::memcmp(&big.memory()[x], &before.memory()[x], sizeof(float)) != 0)
          ++changed;
      }
      EXPECT_EQ(changed, 0u) << bc.what;
    }
}

TEST_F(Errors, ShapeMismatchInViews) {
  const float* a = buf_.a.data();
  float* c = buf_.c.data();
  auto vc = row_major<float>(c, 4, 5);  // m = 4, n = 5
  // A must be 4 x k (k x 4 transposed), B k x 5 (5 x k transposed).
  EXPECT_EQ(
      gemm(Trans::No, Trans::No, 1.0f, row_major(a, 4, 3), row_major(a, 3, 5), 0.0f, vc, ctx()),
      Status::Ok);
  EXPECT_EQ(
      gemm(Trans::No, Trans::No, 1.0f, row_major(a, 5, 3), row_major(a, 3, 5), 0.0f, vc, ctx()),
      Status::ShapeMismatch);  // A rows != C rows
  EXPECT_EQ(
      gemm(Trans::No, Trans::No, 1.0f, row_major(a, 4, 3), row_major(a, 3, 6), 0.0f, vc, ctx()),
      Status::ShapeMismatch);  // B cols != C cols
  EXPECT_EQ(
      gemm(Trans::No, Trans::No, 1.0f, row_major(a, 4, 3), row_major(a, 2, 5), 0.0f, vc, ctx()),
      Status::ShapeMismatch);  // inner dimensions
  EXPECT_EQ(
      gemm(Trans::Yes, Trans::No, 1.0f, row_major(a, 4, 3), row_major(a, 3, 5), 0.0f, vc, ctx()),
      Status::ShapeMismatch);  // op(A) is 3 x 4
  EXPECT_EQ(
      gemm(Trans::Yes, Trans::No, 1.0f, col_major(a, 3, 4), row_major(a, 3, 5), 0.0f, vc, ctx()),
      Status::Ok);
  EXPECT_EQ(
      gemm(Trans::No, Trans::Yes, 1.0f, row_major(a, 4, 3), row_major(a, 3, 5), 0.0f, vc, ctx()),
      Status::ShapeMismatch);  // op(B) is 5 x 3
  EXPECT_EQ(
      gemm(Trans::No, Trans::Yes, 1.0f, row_major(a, 4, 3), col_major(a, 5, 3), 0.0f, vc, ctx()),
      Status::Ok);
  // A mismatch is reported even when nothing would be read.
  EXPECT_EQ(
      gemm(Trans::No, Trans::No, 0.0f, row_major(a, 4, 0), row_major(a, 1, 5), 1.0f, vc, ctx()),
      Status::ShapeMismatch);
}

TEST(Configuration, ThreadCounts) {
  auto ctx = make_context(Isa::Auto, 2);
  EXPECT_EQ(ctx->threads(), 2);
  EXPECT_EQ(ctx->set_threads(0), Status::InvalidArgument);
  EXPECT_EQ(ctx->set_threads(-4), Status::InvalidArgument);
  EXPECT_EQ(ctx->set_threads(1025), Status::InvalidArgument);
  EXPECT_EQ(ctx->threads(), 2);
  EXPECT_EQ(ctx->set_threads(3), Status::Ok);
  EXPECT_EQ(ctx->threads(), 3);
  EXPECT_EQ(ctx->set_threads(1), Status::Ok);
  EXPECT_EQ(ctx->threads(), 1);
  const int saved = ac_get_num_threads();
  EXPECT_EQ(ac_set_num_threads(0), AC_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(ac_get_num_threads(), saved);
}

TEST(Configuration, IsaSelection) {
  auto ctx = make_context(Isa::Auto, 1);
  EXPECT_EQ(ctx->isa(), detected_hardware().best_isa());
  for (Isa isa : available_isas()) {
    EXPECT_EQ(ctx->set_isa(isa), Status::Ok);
    EXPECT_EQ(ctx->isa(), isa);
  }
  EXPECT_EQ(ctx->set_isa(Isa::Auto), Status::Ok);
  EXPECT_NE(ctx->isa(), Isa::Auto);
  EXPECT_EQ(ctx->isa(), detected_hardware().best_isa());
  EXPECT_NE(ctx->set_isa(static_cast<Isa>(42)), Status::Ok);
  EXPECT_EQ(ctx->isa(), detected_hardware().best_isa());
  EXPECT_EQ(ac_set_isa(static_cast<ac_isa_t>(7)), AC_STATUS_INVALID_ARGUMENT);
}

TEST(Configuration, UnsupportedIsa) {
  std::vector<Isa> missing;
  for (const kernels::LatticeRow& row : kernels::lattice())
    if (!detected_hardware().supports(row.id)) missing.push_back(row.id);
  if (missing.empty()) GTEST_SKIP() << "every level of the lattice runs on this CPU and build";
  for (Isa isa : missing) {
    auto ctx = make_context(Isa::Auto, 1);
    const Isa before = ctx->isa();
    EXPECT_EQ(ctx->set_isa(isa), Status::UnsupportedIsa) << to_string(isa);
    EXPECT_EQ(ctx->isa(), before);
    EXPECT_EQ(ac_set_isa(static_cast<ac_isa_t>(isa)), AC_STATUS_UNSUPPORTED_ISA);
    // Forced at construction: reported, and the context falls back to the best path.
    auto forced = make_context(isa, 1);
    EXPECT_EQ(forced->init_status(), Status::UnsupportedIsa);
    EXPECT_FALSE(forced->init_message().empty());
    EXPECT_EQ(forced->isa(), detected_hardware().best_isa());
  }
}

TEST(StatusStrings, EveryCodeHasADistinctDescription) {
  std::set<std::string> seen;
  for (int s = 0; s <= 13; ++s) {
    const char* c = ac_status_string(static_cast<ac_status_t>(s));
    ASSERT_NE(c, nullptr) << s;
    EXPECT_GT(std::strlen(c), 3u) << s;
    EXPECT_TRUE(seen.insert(c).second) << "duplicate description for " << s << ": " << c;
    EXPECT_STREQ(c, to_string(static_cast<Status>(s)));
  }
  EXPECT_NE(ac_status_string(static_cast<ac_status_t>(99)), nullptr);
  EXPECT_NE(ac_status_string(static_cast<ac_status_t>(-1)), nullptr);
  // The C and C++ codes agree by value.
  EXPECT_EQ(static_cast<int>(Status::InternalError), AC_STATUS_INTERNAL_ERROR);
  EXPECT_EQ(static_cast<int>(Status::Aliasing), AC_STATUS_ALIASING);
  EXPECT_STRNE(ac_version(), "");
  EXPECT_STREQ(ac_version(), version());
}

// ---- Hardware profile files -------------------------------------------------------------

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "adaptcore_profile_" + name + ".json";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A gemm on the context still gives the right answer.
void expect_usable(Context& ctx) {
  std::vector<float> a(6 * 4), b(4 * 5), c(6 * 5, qnan());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 4) - 1.0f;
  ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 6, 5, 4, 1.0f, a.data(), 4, b.data(), 5,
                 0.0f, c.data(), 5, ctx),
            Status::Ok);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) {
      float s = 0;
      for (int p = 0; p < 4; ++p)
        s += a[static_cast<std::size_t>(i * 4 + p)] * b[static_cast<std::size_t>(p * 5 + j)];
      ASSERT_EQ(c[static_cast<std::size_t>(i * 5 + j)], s);
    }
}

struct BadProfile {
  const char* name;
  const char* text;
};

constexpr BadProfile kBadProfiles[] = {
    {"malformed", "{ \"cores\": 4, "},
    {"empty", ""},
    {"array", "[1, 2, 3]"},
    {"string", "\"cores\""},
    {"cores_string", "{\"cores\": \"four\"}"},
    {"bool_as_number", "{\"fma3\": 1}"},
    {"name_number", "{\"name\": 5}"},
    {"bytes_bool", "{\"l2_bytes\": true}"},
    {"freq_null", "{\"freq_ghz\": null}"},
    {"negative_l2", "{\"l2_bytes\": -1}"},
    {"negative_freq", "{\"freq_ghz\": -2.5}"},
    {"zero_cores", "{\"cores\": 0}"},
    {"too_many_cores", "{\"cores\": 100000}"},
    {"negative_fork_join", "{\"fork_join_us\": -1.0}"},
    {"zero_bandwidth", "{\"bw_dram_total_gbs\": 0}"},
    {"zero_l3_warm", "{\"l3_warm_bytes\": 0}"},
    {"version_2", "{\"version\": 2, \"l2_bytes\": 1048576}"},
    {"version_string", "{\"version\": \"1\"}"},
    {"version_float", "{\"version\": 1.5}"},
    // Integer fields given values no integer of their type can hold. Converting these with
    // nlohmann's get<int>() / get<int64_t>() is undefined behaviour (float-to-integer overflow)
    // unless the loader range-checks them first.
    {"cores_1e10", "{\"cores\": 1e10}"},
    {"cores_above_int_max", "{\"cores\": 3000000000}"},
    {"l2_1e30", "{\"l2_bytes\": 1e30}"},
    // Positive but absurd rates: the model's costs overflowed and a prepacked call failed.
    {"freq_tiny", "{\"freq_ghz\": 1e-308}"},
    {"bw_l1_tiny", "{\"bw_l1_gbs\": 1e-308}"},
    {"bw_l2_tiny", "{\"bw_l2_gbs\": 1e-308}"},
    {"bw_dram_core_tiny", "{\"bw_dram_core_gbs\": 1e-308}"},
    {"bw_dram_total_tiny", "{\"bw_dram_total_gbs\": 1e-308}"},
    {"freq_huge", "{\"freq_ghz\": 1e300}"},
    {"other_format", "{\"format\": \"other\", \"cores\": 2}"},
    {"no_profile_field", "{\"format\": \"adaptcore-hardware-profile\", \"version\": 1}"},
    {"empty_object", "{}"},
    {"unknown_field", "{\"freq_gz\": 3.0}"},
    {"nan", "{\"freq_ghz\": NaN}"},
    {"infinity", "{\"freq_ghz\": Infinity}"},
    {"overflowing_number", "{\"freq_ghz\": 1e999}"},
};

TEST(HardwareProfile, InvalidFilesAreRejectedAndTheContextStaysUsable) {
  auto ctx = make_context(Isa::Auto, 2);
  const std::string before = to_json(ctx->hardware());
  for (const auto& bad : kBadProfiles) {
    const std::string path = write_temp(bad.name, bad.text);
    std::string err;
    EXPECT_EQ(ctx->load_hardware_profile(path, &err), Status::InvalidProfile) << bad.name;
    EXPECT_FALSE(err.empty()) << bad.name;
    EXPECT_EQ(to_json(ctx->hardware()), before) << bad.name;
    // At construction: reported through init_status, the default profile used instead.
    ContextOptions o;
    o.profile_path = path;
    o.read_environment = false;
    Context c2(o);
    EXPECT_EQ(c2.init_status(), Status::InvalidProfile) << bad.name;
    EXPECT_FALSE(c2.init_message().empty()) << bad.name;
    EXPECT_EQ(c2.hardware().source, default_hardware().source) << bad.name;
    expect_usable(c2);
    std::remove(path.c_str());
  }
  std::string err;
  EXPECT_EQ(ctx->load_hardware_profile(::testing::TempDir() + "no/such/profile.json", &err),
            Status::InvalidProfile);
  EXPECT_FALSE(err.empty());
  expect_usable(*ctx);
}

// Integer fields with a fractional value are the wrong type: they must be rejected, not
// silently truncated ("cores": 2.5 must not become 2 cores). (Fixed in f2de490; kept as a
// regression test.)
TEST(HardwareProfile, FractionalValuesOfIntegerFieldsAreRejected) {
  auto ctx = make_context(Isa::Auto, 1);
  const std::string before = to_json(ctx->hardware());
  for (const auto& bad : {BadProfile{"cores_fraction", "{\"cores\": 2.5}"},
                          BadProfile{"l1d_fraction", "{\"l1d_bytes\": 32768.75}"}}) {
    const std::string path = write_temp(bad.name, bad.text);
    std::string err;
    EXPECT_EQ(ctx->load_hardware_profile(path, &err), Status::InvalidProfile) << bad.text;
    EXPECT_EQ(to_json(ctx->hardware()), before) << bad.text;
    std::remove(path.c_str());
  }
}

// An integer that does not fit the field's type must be rejected, not wrapped around into a
// plausible value: "cores": 4294967298 (2^32 + 2) must not become 2 cores (a plain get<int>()
// would convert it modulo 2^32).
TEST(HardwareProfile, OutOfRangeIntegersAreRejected) {
  auto ctx = make_context(Isa::Auto, 1);
  const std::string before = to_json(ctx->hardware());
  // Values that wrap (mod 2^32) to a plausible core count different from the detected one.
  const int64_t wrapped = detected_hardware().cores + 1;
  const std::string texts[] = {
      "{\"cores\": " + std::to_string((int64_t{1} << 32) + wrapped) + "}",
      "{\"cores\": " + std::to_string(wrapped - (int64_t{1} << 32)) + "}",
      "{\"l2_ways\": " + std::to_string((int64_t{1} << 32) + 8) + "}",
  };
  int i = 0;
  for (const std::string& text : texts) {
    const std::string path = write_temp("int_range_" + std::to_string(i++), text);
    std::string err;
    EXPECT_EQ(ctx->load_hardware_profile(path, &err), Status::InvalidProfile) << text;
    EXPECT_EQ(to_json(ctx->hardware()), before) << text;
    std::remove(path.c_str());
  }
}

// The page size sets where the model stops counting set conflicts: it must be a power of two
// of at least 4 KiB.
TEST(HardwareProfile, BadPageSizeIsRejected) {
  auto ctx = make_context(Isa::Auto, 1);
  const std::string before = to_json(ctx->hardware());
  int i = 0;
  for (const char* text : {"{\"page_bytes\": 3000}", "{\"page_bytes\": 1024}",
                           "{\"page_bytes\": 0}", "{\"page_bytes\": 6144}"}) {
    const std::string path = write_temp("page_" + std::to_string(i++), text);
    EXPECT_EQ(ctx->load_hardware_profile(path, nullptr), Status::InvalidProfile) << text;
    EXPECT_EQ(to_json(ctx->hardware()), before) << text;
    std::remove(path.c_str());
  }
  const std::string path = write_temp("page_ok", "{\"page_bytes\": 2097152}");
  EXPECT_EQ(ctx->load_hardware_profile(path, nullptr), Status::Ok);
  EXPECT_EQ(ctx->hardware().page_bytes, 2097152);
  std::remove(path.c_str());
}

TEST(HardwareProfile, PartialOverrideIsApplied) {
  const HardwareProfile& det = detected_hardware();
  const std::string path = write_temp("partial",
                                      "{\"version\": 1, \"l2_bytes\": 524288, \"freq_ghz\": 2.25, "
                                      "\"fork_join_us\": 7.5, \"bw_l3_gbs\": 33.0}");
  auto check = [&](const HardwareProfile& hw) {
    EXPECT_EQ(hw.l2_bytes, 524288);
    EXPECT_DOUBLE_EQ(hw.freq_ghz, 2.25);
    EXPECT_DOUBLE_EQ(hw.fork_join_us, 7.5);
    EXPECT_DOUBLE_EQ(hw.bw_l3_gbs, 33.0);
    // Fields not in the file keep the detected values.
    EXPECT_EQ(hw.l1d_bytes, det.l1d_bytes);
    EXPECT_EQ(hw.l3_bytes, det.l3_bytes);
    EXPECT_EQ(hw.cores, det.cores);
    EXPECT_EQ(hw.features.has(Feature::Avx2), det.features.has(Feature::Avx2));
    EXPECT_EQ(hw.features.has(Feature::Avx512F), det.features.has(Feature::Avx512F));
    EXPECT_EQ(hw.name, det.name);
    EXPECT_EQ(hw.source, path);
  };
  // Loaded into a running context: replaces the profile and drops plans made for the old one.
  auto ctx = make_context(Isa::Auto, 2);
  expect_usable(*ctx);
  EXPECT_GT(ctx->cached_plans(), 0u);
  std::string err;
  ASSERT_EQ(ctx->load_hardware_profile(path, &err), Status::Ok) << err;
  check(ctx->hardware());
  EXPECT_EQ(ctx->cached_plans(), 0u);
  expect_usable(*ctx);
  // Given at construction.
  ContextOptions o;
  o.profile_path = path;
  o.read_environment = false;
  Context c2(o);
  EXPECT_EQ(c2.init_status(), Status::Ok) << c2.init_message();
  check(c2.hardware());
  expect_usable(c2);
  std::remove(path.c_str());
}

// Each reason names its fault: the field and its range, the format, the unknown member, where
// the text stops being JSON.
TEST(HardwareProfile, RejectionsNameTheirFault) {
  struct Case {
    std::string text, expect;
  };
  const std::string digits(100000, '7');
  const Case cases[] = {
      {"{\"freq_ghz\": 1e-308}", "field 'freq_ghz' is 1e-308, outside 0.1..10 GHz"},
      {"{\"bw_dram_total_gbs\": 1e-308}", "field 'bw_dram_total_gbs'"},
      {"{\"page_bytes\": 12288}", "field 'page_bytes' is 12288, not a power of two"},
      {"{\"format\": \"other\", \"cores\": 2}", "format must be"},
      {"{\"version\": 1}", "no profile field"},
      {"{\"freq_gz\": 3.0}", "unknown field 'freq_gz'"},
      {"{\"freq_ghz\": NaN}", "not valid JSON at byte"},
      {"{\"freq_ghz\": 1e999}", "number out of range"},
      {"{\"freq_ghz\": " + digits + "}", "number out of range"},
      {"{\"freq_ghz\": 3.0,}", "not valid JSON at byte"},
  };
  for (const Case& c : cases) {
    HardwareProfile out;
    std::string why;
    EXPECT_EQ(profile_from_json(c.text, detected_hardware(), out, &why), Status::InvalidProfile)
        << c.text.substr(0, 60);
    EXPECT_NE(why.find(c.expect), std::string::npos) << c.text.substr(0, 60) << ": " << why;
    EXPECT_LT(why.size(), 300u) << why.substr(0, 300);
  }
}

// Every numeric field at either end of its range loads, and the model stays finite there: fp32,
// prepacked and weight-quantized calls plan and run (a profile of extreme but valid rates once
// made a prepacked call's panel width 0).
TEST(HardwareProfile, EveryFieldAtItsBoundsPlansAndRuns) {
  struct Bound {
    const char* key;
    double lo, hi;
  };
  const Bound bounds[] = {
      {"cores", 1, 4096},
      {"freq_ghz", 0.1, 10},
      {"l1d_bytes", 1024, 67108864},
      {"l2_bytes", 4096, 4294967296.0},
      {"l3_bytes", 4096, 68719476736.0},
      {"l3_warm_bytes", 4096, 68719476736.0},
      {"l1d_ways", 1, 256},
      {"l2_ways", 1, 256},
      {"page_bytes", 4096, 1073741824},
      {"bw_l1_gbs", 0.1, 1e5},
      {"bw_l2_gbs", 0.1, 1e5},
      {"bw_l3_gbs", 0.1, 1e5},
      {"bw_dram_core_gbs", 0.1, 1e5},
      {"bw_dram_total_gbs", 0.1, 1e5},
      {"fma_per_cycle_512", 0.01, 64},
      {"fma_per_cycle_256", 0.01, 64},
      {"fork_join_us", 0, 1e6},
      {"pack_gbs", 0.1, 1e5},
  };
  auto number = [](double v) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
  };
  std::vector<float> w(64 * 96), a(5 * 64), c(5 * 96);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 3) - 1);
  for (const Bound& b : bounds)
    for (double v : {b.lo, b.hi}) {
      const std::string text = std::string("{\"") + b.key + "\": " + number(v) + "}";
      const std::string path = write_temp("bound", text);
      auto ctx = make_context(Isa::Auto, 2);
      std::string err;
      ASSERT_EQ(ctx->load_hardware_profile(path, &err), Status::Ok) << text << ": " << err;
      expect_usable(*ctx);
      PackedWeights packed;
      ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, 64, 96, w.data(), 96, packed, {}, *ctx),
                Status::Ok)
          << text;
      EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 5, 1.0f, a.data(), 64, packed, 0.0f,
                            c.data(), 96, *ctx),
                Status::Ok)
          << text;
      QuantizedWeights q;
      ASSERT_EQ(quantize_weights(Layout::RowMajor, Trans::No, 64, 96, w.data(), 96, {}, q, *ctx),
                Status::Ok)
          << text;
      EXPECT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 5, a.data(), 64, q, 0.0f, c.data(), 96,
                               ActivationParts::Two, *ctx),
                Status::Ok)
          << text;
      for (const char* kind : {"blocked", "dot"}) {
        const bool nt = std::strcmp(kind, "dot") == 0;
        EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, nt ? Trans::Yes : Trans::No, 5, 96, 64, 1.0f,
                       a.data(), 64, w.data(), nt ? 64 : 96, 0.0f, c.data(), 96, *ctx),
                  Status::Ok)
            << text << " " << kind;
      }
      std::remove(path.c_str());
      // Just outside: rejected, naming the field.
      const double outside = v == b.lo ? (b.lo > 0 ? b.lo / 2 : -1) : b.hi * 2;
      HardwareProfile out;
      const std::string bad = std::string("{\"") + b.key + "\": " + number(outside) + "}";
      EXPECT_EQ(profile_from_json(bad, detected_hardware(), out, &err), Status::InvalidProfile)
          << bad;
      EXPECT_NE(err.find(b.key), std::string::npos) << bad << ": " << err;
    }
}

TEST(HardwareProfile, JsonRoundTrip) {
  const HardwareProfile& det = detected_hardware();
  HardwareProfile out;
  std::string err;
  ASSERT_EQ(profile_from_json(to_json(det), HardwareProfile{}, out, &err), Status::Ok) << err;
  out.source = det.source;
  EXPECT_EQ(to_json(out), to_json(det));
}

// Sets an environment variable for the scope of a test and restores the previous value.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) saved_ = v, had_ = true;
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, saved_.c_str(), 1);
    else
      ::unsetenv(name_);
  }
  void set(const char* value) { ::setenv(name_, value, 1); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string saved_;
  bool had_ = false;
};

// The environment variables, read only when read_environment is set. (No other thread reads
// the environment meanwhile; the previous values are restored.)
TEST(Environment, BadValuesAreReportedAndIgnored) {
  ScopedEnv env_threads("ADAPTCORE_NUM_THREADS"), env_isa("ADAPTCORE_ISA"),
      env_profile("ADAPTCORE_HW_PROFILE");
  ::unsetenv("ADAPTCORE_HW_PROFILE");
  env_threads.set("many");
  env_isa.set("sse9");
  {
    Context ctx;  // read_environment = true
    EXPECT_EQ(ctx.init_status(), Status::InvalidArgument);
    EXPECT_NE(ctx.init_message().find("ADAPTCORE_NUM_THREADS"), std::string::npos);
    EXPECT_NE(ctx.init_message().find("ADAPTCORE_ISA"), std::string::npos);
    // The default: the CPUs the process may use (mask and quota), at most the machine's.
    EXPECT_EQ(ctx.threads(), std::min(usable_cpus().count, ctx.hardware().cores));
    EXPECT_EQ(ctx.isa(), detected_hardware().best_isa());
    expect_usable(ctx);
    ContextOptions o;
    o.read_environment = false;
    Context quiet(o);
    EXPECT_EQ(quiet.init_status(), Status::Ok);
  }
  env_threads.set("3");
  env_isa.set("generic");
  {
    Context ctx;
    EXPECT_EQ(ctx.init_status(), Status::Ok) << ctx.init_message();
    EXPECT_EQ(ctx.threads(), 3);
    EXPECT_EQ(ctx.isa(), Isa::Generic);
    expect_usable(ctx);
  }
  const std::string path = write_temp("env", "{\"l3_bytes\": 4194304}");
  env_profile.set(path.c_str());
  {
    Context ctx;
    EXPECT_EQ(ctx.hardware().l3_bytes, 4194304);
  }
  std::remove(path.c_str());
}

// One rule for every variable: surrounding whitespace ignored, words in any case, counts digits
// only. ADAPTCORE_ISA once took any case while ADAPTCORE_THREADING and ADAPTCORE_RESIDENCY did
// not, and " 3" was a count while "3 " was not.
TEST(Environment, OneParsingRuleForEveryVariable) {
  ScopedEnv env_threads("ADAPTCORE_NUM_THREADS"), env_isa("ADAPTCORE_ISA"),
      env_threading("ADAPTCORE_THREADING"), env_residency("ADAPTCORE_RESIDENCY"),
      env_profile("ADAPTCORE_HW_PROFILE"), env_plans("ADAPTCORE_PLAN_FILE");
  ::unsetenv("ADAPTCORE_HW_PROFILE");
  ::unsetenv("ADAPTCORE_PLAN_FILE");
  for (const char* threads : {"3", " 3", "3 ", "\t3\n", " 03 "}) {
    env_threads.set(threads);
    env_isa.set(" Generic ");
    env_threading.set(" POOL\t");
    env_residency.set("Memory ");
    Context ctx;
    EXPECT_EQ(ctx.init_status(), Status::Ok) << "'" << threads << "': " << ctx.init_message();
    EXPECT_EQ(ctx.threads(), 3) << "'" << threads << "'";
    EXPECT_EQ(ctx.isa(), Isa::Generic);
    EXPECT_EQ(ctx.residency(), Residency::Memory);
    EXPECT_EQ(::adaptcore::detail::impl_of(ctx).pool().threading(), Threading::Pool);
  }
  for (const char* threads : {"+3", "3.0", "3x", "0", "-1", "", "  ", "1025", "99999999999"}) {
    env_threads.set(threads);
    env_isa.set("avx2");
    env_threading.set("auto");
    env_residency.set("auto");
    Context ctx;
    EXPECT_EQ(ctx.init_status(), Status::InvalidArgument) << "'" << threads << "'";
    EXPECT_NE(ctx.init_message().find("ADAPTCORE_NUM_THREADS ignored: '" + std::string(threads)),
              std::string::npos)
        << ctx.init_message();
  }
  for (const char* bad : {"p00l", "pool,openmp"}) {
    env_threads.set("2");
    env_threading.set(bad);
    Context ctx;
    EXPECT_EQ(ctx.init_status(), Status::InvalidArgument) << bad;
    EXPECT_NE(ctx.init_message().find("ADAPTCORE_THREADING"), std::string::npos);
  }
}

// A count that cannot run is reported with what runs instead: the default, whatever it is
// (not "one" when the default is two).
TEST(Threads, RefusedCountsReportWhatRuns) {
  for (const int asked : {kMaxThreads + 1, std::numeric_limits<int>::max()}) {
    ContextOptions o;
    o.threads = asked;
    o.read_environment = false;
    Context ctx(o);
    EXPECT_EQ(ctx.init_status(), Status::InvalidArgument);
    const std::string runs = "running on " + std::to_string(ctx.threads()) +
                             (ctx.threads() == 1 ? " thread" : " threads") + " (the default";
    EXPECT_NE(ctx.init_message().find(runs), std::string::npos) << ctx.init_message();
    EXPECT_NE(ctx.init_message().find("not a count in 1..1024"), std::string::npos)
        << ctx.init_message();
    expect_usable(ctx);
  }
  ac_context_options co;
  ac_context_options_init(&co);
  co.threads = std::numeric_limits<int>::max();
  co.read_environment = 0;
  ac_context* c = nullptr;
  ASSERT_EQ(ac_context_create(&co, &c), AC_STATUS_OK);
  const char* message = nullptr;
  EXPECT_EQ(ac_context_init_status(c, &message), AC_STATUS_INVALID_ARGUMENT);
  ASSERT_NE(message, nullptr);
  int threads = 0;
  ASSERT_EQ(ac_context_get_num_threads(c, &threads), AC_STATUS_OK);
  EXPECT_NE(std::string(message).find("running on " + std::to_string(threads)), std::string::npos)
      << message;
  ac_context_destroy(c);
}

// The default thread count and the pool's spinning follow the CPUs the process may use (the
// affinity mask), not the machine's: under `taskset -c 1` two spinning threads shared one CPU
// and ran 1.3-1.7x slower than one thread.
TEST(Threads, DefaultFollowsTheAffinityMask) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "one CPU in this process's mask already";
  const int rc = in_child([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &all)) {
        CPU_SET(cpu, &one);
        break;
      }
    if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(10);
    if (usable_cpus().count != 1) _exit(11);
    ContextOptions o;
    o.read_environment = false;
    Context ctx(o);
    if (ctx.threads() != 1) _exit(12);
    if (ctx.set_threads(2) != Status::Ok) _exit(13);
    // Two threads on one CPU: they sleep at once instead of spinning.
    if (::adaptcore::detail::impl_of(ctx).pool().spins()) _exit(14);
    std::vector<float> a(64 * 64, 1.0f), c(64 * 64);
    if (gemm(Layout::RowMajor, Trans::No, Trans::No, 64, 64, 64, 1.0f, a.data(), 64, a.data(), 64,
             0.0f, c.data(), 64, ctx) != Status::Ok ||
        c[0] != 64.0f)
      _exit(15);
    // A context made after the mask widens again follows it.
    if (sched_setaffinity(0, sizeof all, &all) != 0) _exit(16);
    Context wide(o);
    if (wide.threads() != std::min(usable_cpus().count, wide.hardware().cores)) _exit(17);
    if (usable_cpus().affinity != CPU_COUNT(&all)) _exit(18);
    _exit(0);
  });
  EXPECT_EQ(rc, 0);
}

// The cgroup CPU quota (a container's --cpus), v2 and v1, the tightest along the path.
TEST(Threads, CgroupQuotaIsRead) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "adaptcore_cgroup";
  fs::remove_all(root);
  auto put = [&](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  // v2: "max" at the top, 1.5 CPUs for the job's group, 3 for the service above it.
  put(root / "cpu.max", "max 100000\n");
  put(root / "svc" / "cpu.max", "300000 100000\n");
  put(root / "svc" / "job" / "cpu.max", "150000 100000\n");
  EXPECT_EQ(cgroup_cpu_quota("0::/svc/job\n", root.string()), 2);
  EXPECT_EQ(cgroup_cpu_quota("0::/svc\n", root.string()), 3);
  EXPECT_EQ(cgroup_cpu_quota("0::/\n", root.string()), 0);
  EXPECT_EQ(cgroup_cpu_quota("0::/elsewhere\n", root.string()), 0);
  // v1 beside an unrelated v2 line (a hybrid system): cfs quota over period, -1 for none.
  put(root / "cpu,cpuacct" / "ctr" / "cpu.cfs_quota_us", "250000\n");
  put(root / "cpu,cpuacct" / "ctr" / "cpu.cfs_period_us", "100000\n");
  put(root / "cpu,cpuacct" / "cpu.cfs_quota_us", "-1\n");
  put(root / "cpu,cpuacct" / "cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cgroup_cpu_quota("4:cpu,cpuacct:/ctr\n0::/\n", root.string()), 3);
  EXPECT_EQ(cgroup_cpu_quota("4:cpuacct,cpu:/ctr\n", root.string()), 3);
  EXPECT_EQ(cgroup_cpu_quota("4:memory:/ctr\n", root.string()), 0);
  // Garbage is no quota.
  put(root / "bad" / "cpu.max", "lots 100000\n");
  EXPECT_EQ(cgroup_cpu_quota("0::/bad\n", root.string()), 0);
  EXPECT_EQ(cgroup_cpu_quota("not a cgroup file", root.string()), 0);
  fs::remove_all(root);
  // The running process: whatever it has, a count of at least 1.
  EXPECT_GE(usable_cpus().count, 1);
}

}  // namespace
}  // namespace adaptcore::test
