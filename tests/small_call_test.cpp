// The tiny-call path (dispatch/small_call.hpp) and the small-problem executor
// (exec/executor_small.hpp): a tiny call repeated goes through the tiny-call table, and it must
// give the same bits as the first call (the full path) and the reference's answer, and report
// every argument error the full path reports, in the same order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "dispatch/internal_access.hpp"
#include "dispatch/small_call.hpp"
#include "test_util.hpp"

namespace {

using namespace adaptcore;
using namespace adaptcore::test;

struct TinyCase {
  Layout layout;
  Trans ta, tb;
  int64_t m, n, k;
  int64_t pad_a, pad_b, pad_c;
  float alpha, beta;
};

// Dimensions mostly below 16 (the tails), some up to 256, and in one case in six one dimension
// up to the path's limit over two short ones (the long shallow calls the path serves: 1 x 2391
// x 1), which keeps the double-precision reference quick.
TinyCase random_case(std::mt19937_64& rng) {
  auto dim = [&] {
    const int64_t r = static_cast<int64_t>(rng() % 100);
    return r < 70 ? 1 + static_cast<int64_t>(rng() % 16) : 1 + static_cast<int64_t>(rng() % 256);
  };
  const Trans trans[] = {Trans::No, Trans::Yes, Trans::ConjYes};
  const float alphas[] = {1.0f, -0.5f, 2.0f};
  const float betas[] = {0.0f, 1.0f, -1.5f};
  TinyCase t;
  t.layout = rng() % 2 ? Layout::RowMajor : Layout::ColMajor;
  t.ta = trans[rng() % 3];
  t.tb = trans[rng() % 3];
  t.m = dim(), t.n = dim(), t.k = dim();
  if (rng() % 6 == 0) {
    int64_t* d[] = {&t.m, &t.n, &t.k};
    const std::size_t longest = rng() % 3;
    for (std::size_t i = 0; i < 3; ++i)
      *d[i] = i == longest ? 257 + static_cast<int64_t>(rng() % (detail::kTinyMaxDim - 256))
                           : 1 + static_cast<int64_t>(rng() % 12);
  }
  t.pad_a = static_cast<int64_t>(rng() % 3) * 7;
  t.pad_b = static_cast<int64_t>(rng() % 3) * 5;
  t.pad_c = static_cast<int64_t>(rng() % 2) * 3;
  t.alpha = alphas[rng() % 3];
  t.beta = betas[rng() % 3];
  return t;
}

struct Operands {
  Stored a, b, c, c0;
  Operands(const TinyCase& t, std::mt19937_64& rng) {
    const bool row = t.layout == Layout::RowMajor;
    auto stored = [&](int64_t rows, int64_t cols, int64_t pad) {
      return Stored(rows, cols, t.layout, (row ? cols : rows) + pad, rng() % 3);
    };
    const int64_t ar = transposed(t.ta) ? t.k : t.m, ac = transposed(t.ta) ? t.m : t.k;
    const int64_t br = transposed(t.tb) ? t.n : t.k, bc = transposed(t.tb) ? t.k : t.n;
    a = stored(ar, ac, t.pad_a);
    b = stored(br, bc, t.pad_b);
    c = stored(t.m, t.n, t.pad_c);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    a.fill([&](int64_t, int64_t) { return u(rng); });
    b.fill([&](int64_t, int64_t) { return u(rng); });
    c.fill([&](int64_t, int64_t) { return u(rng); });
    c0 = c;
  }
  detail::TinyArgs args(const TinyCase& t) {
    return {t.layout, t.ta,   t.tb,     t.m,    t.n,    t.k,      t.alpha,
            a.data(), a.ld(), b.data(), b.ld(), t.beta, c.data(), c.ld()};
  }
  Status call(const TinyCase& t, Context& ctx) {
    return gemm(t.layout, t.ta, t.tb, t.m, t.n, t.k, t.alpha, a.data(), a.ld(), b.data(), b.ld(),
                t.beta, c.data(), c.ld(), ctx);
  }
};

bool in_table(Context& ctx, const detail::TinyArgs& x) {
  detail::ContextImpl& impl = detail::impl_of(ctx);
  const std::uint64_t word = detail::tiny_detail::tiny_word(
      impl.threads(), impl.tiny_isa(impl.isa()), x, impl.cold_call(x.a, x.b, x.c));
  return word != 0 && impl.small_calls().find(word) != 0;
}

// Every available ISA at 1 and 2 threads: a tiny shape's second call (tiny-call table) gives the
// first call's bits, both within the reference's bound, and C's padding is never written.
TEST(TinyCalls, RepeatedCallsMatchTheFullPathBitForBit) {
  std::mt19937_64 rng(20261203);
  int hits = 0, cases = 0, long_hits = 0;
  for (Config& cfg : all_configs()) {
    ASSERT_EQ(cfg.ctx->set_residency(Residency::Cached), Status::Ok);  // one key per shape
    for (int i = 0; i < 150; ++i) {
      const TinyCase t = random_case(rng);
      Operands op(t, rng);
      const Reference ref =
          reference_gemm(t.ta, t.tb, t.m, t.n, t.k, t.alpha, op.a, op.b, t.beta, op.c0);
      ASSERT_EQ(op.call(t, *cfg.ctx), Status::Ok);
      ASSERT_EQ(check_result(op.c, ref), "") << cfg.name() << " first call";
      const std::vector<float> first = op.c.memory();
      op.c = op.c0;
      const bool hit = in_table(*cfg.ctx, op.args(t));
      ASSERT_EQ(op.call(t, *cfg.ctx), Status::Ok);
      EXPECT_TRUE(same_bits(op.c.memory(), first))
          << cfg.name() << " " << name(t.layout) << name(t.ta) << name(t.tb) << " " << t.m << "x"
          << t.n << "x" << t.k << (hit ? " (tiny-call table)" : "");
      hits += hit ? 1 : 0;
      long_hits += hit && std::max({t.m, t.n, t.k}) > 256 ? 1 : 0;
      ++cases;
    }
  }
  // Some of them with a dimension past 256 (B within the small executor's kSmallBBytes).
  EXPECT_GT(long_hits, 0);
  // Tiny shapes whose plan reads both operands in place run from the table (about 40% of
  // these cases; the others pack a transposed operand, or use two threads).
  EXPECT_GT(hits, cases / 4) << hits << " of " << cases;
}

// An operand of depth 1 stored with leading dimension 1 is contiguous both ways, which changes
// the shape key: a table entry made with lda = 1 must not serve lda = 3 (the same alignment
// class: odd multiples of 4 bytes), nor the other way round. Column-major A^T B^T, k = 1.
TEST(TinyCalls, UnitLeadingDimensionsAreTheirOwnClass) {
  for (Config& cfg : all_configs()) {
    // In memory: the residency under which the dot tiles take the k-contiguous operand.
    ASSERT_EQ(cfg.ctx->set_residency(Residency::Memory), Status::Ok);
    std::mt19937_64 rng(7);
    for (const int64_t n : {20, 200}) {
      for (const int64_t pad_a : {0, 2, 0, 2}) {  // lda 1 and 3: both 4 bytes mod 8
        const TinyCase t{
            Layout::ColMajor, Trans::Yes, Trans::Yes, 3, n, 1, pad_a, 2, 1, 1.5f, 0.0f};
        Operands op(t, rng);
        const Reference ref =
            reference_gemm(t.ta, t.tb, t.m, t.n, t.k, t.alpha, op.a, op.b, t.beta, op.c0);
        for (int rep = 0; rep < 2; ++rep) {
          op.c = op.c0;
          ASSERT_EQ(op.call(t, *cfg.ctx), Status::Ok);
          EXPECT_EQ(check_result(op.c, ref), "")
              << cfg.name() << " 3x" << n << "x1 lda " << op.a.ld() << " call " << rep;
        }
      }
    }
  }
}

// A shape in the table, then the same shape with one bad argument: the full path's status,
// nothing written; and the calls that need no product (alpha = 0) read neither A nor B.
TEST(TinyCalls, ArgumentErrorsAfterAHitAreReported) {
  auto ctx = make_context(Isa::Auto, 1);
  ASSERT_EQ(ctx->set_residency(Residency::Cached), Status::Ok);
  const TinyCase t{Layout::RowMajor, Trans::No, Trans::No, 5, 7, 3, 0, 0, 0, 1.0f, 0.0f};
  std::mt19937_64 rng(1);
  Operands op(t, rng);
  ASSERT_EQ(op.call(t, *ctx), Status::Ok);
  ASSERT_TRUE(in_table(*ctx, op.args(t)));
  const std::vector<float> before = op.c.memory();
  float* a = op.a.data();
  float* b = op.b.data();
  float* c = op.c.data();
  auto call = [&](Layout l, Trans ta, int64_t lda, const float* pa, const float* pb, float* pc,
                  float alpha) {
    return gemm(l, ta, Trans::No, 5, 7, 3, alpha, pa, lda, pb, 7, 0.0f, pc, 7, *ctx);
  };
  EXPECT_EQ(call(static_cast<Layout>(0), Trans::No, 3, a, b, c, 1.0f), Status::InvalidLayout);
  EXPECT_EQ(call(Layout::RowMajor, static_cast<Trans>(7), 3, a, b, c, 1.0f),
            Status::InvalidTranspose);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, 2, a, b, c, 1.0f), Status::InvalidLeadingDimension);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, 3, nullptr, b, c, 1.0f), Status::NullPointer);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, 3, a, nullptr, c, 1.0f), Status::NullPointer);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, 3, a, b, nullptr, 1.0f), Status::NullPointer);
  EXPECT_EQ(
      gemm(Layout::RowMajor, Trans::No, Trans::No, 5, 7, 3, 1.0f, a, 3, b, 7, 0.0f, c, -7, *ctx),
      Status::InvalidLeadingDimension);
  EXPECT_EQ(
      gemm(Layout::RowMajor, Trans::No, Trans::No, -5, 7, 3, 1.0f, a, 3, b, 7, 0.0f, c, 7, *ctx),
      Status::InvalidDimension);
  // An A whose address range wraps past the end of the address space (never dereferenced).
  const auto* wrapping = reinterpret_cast<const float*>(~std::uintptr_t{0} - 15);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, 3, wrapping, b, c, 1.0f), Status::SizeOverflow);
  EXPECT_TRUE(same_bits(op.c.memory(), before));
  // C overlapping A: A's own buffer as C (rows of 7 floats over rows of 3: they overlap).
  std::vector<float> shared(64, 1.0f);
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, 3, shared.data(), b, shared.data() + 4, 1.0f),
            Status::Aliasing);
  // alpha = 0: C = beta * C without reading A or B (null is fine).
  EXPECT_EQ(call(Layout::RowMajor, Trans::No, 3, nullptr, nullptr, c, 0.0f), Status::Ok);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 7; ++j) EXPECT_EQ(op.c.at(i, j), 0.0f);
}

// The tiny path's own argument checks are cheaper than make_problem's and refuse what they
// cannot decide cheaply; such calls must still run, on the full path, with the right answer: a
// leading dimension of 2^32 or more that is valid (B of one row), and C interleaved with A in
// one buffer (their byte ranges intersect, their elements do not).
TEST(TinyCalls, CallsTheCheapChecksRefuseRunOnTheFullPath) {
  auto ctx = make_context(Isa::Auto, 1);
  ASSERT_EQ(ctx->set_residency(Residency::Cached), Status::Ok);
  std::vector<float> a(5 * 4), b(7), c(5 * 7), want(5 * 7);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 0.5f * static_cast<float>(i) - 1.0f;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 7; ++j) want[i * 7 + j] = a[i * 4] * b[j];
  const int64_t huge_ld = int64_t{1} << 33;
  for (int rep = 0; rep < 3; ++rep) {  // the first call fills the table, the others hit it
    std::fill(c.begin(), c.end(), 9.0f);
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 5, 7, 1, 1.0f, a.data(), 4, b.data(),
                   huge_ld, 0.0f, c.data(), 7, *ctx),
              Status::Ok);
    EXPECT_EQ(c, want);
  }
  // Rows of 12: A in columns 0..3, C in columns 4..10 of the same rows.
  std::vector<float> shared(5 * 12, 0.0f);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t p = 0; p < 4; ++p) shared[i * 12 + p] = a[i * 4 + p];
  std::vector<float> b4(4 * 7, 0.0f);
  for (int64_t j = 0; j < 7; ++j) b4[j] = b[j];  // only depth 0 contributes
  for (int rep = 0; rep < 3; ++rep) {
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 5, 7, 4, 1.0f, shared.data(), 12,
                   b4.data(), 7, 0.0f, shared.data() + 4, 12, *ctx),
              Status::Ok);
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 7; ++j) EXPECT_EQ(shared[i * 12 + 4 + j], want[i * 7 + j]);
  }
}

// The table is keyed by the context's configuration: another thread count or a cleared plan
// cache (a new profile) finds nothing until the full path has run again.
TEST(TinyCalls, TableFollowsTheConfiguration) {
  auto ctx = make_context(Isa::Auto, 1);
  ASSERT_EQ(ctx->set_residency(Residency::Cached), Status::Ok);
  const TinyCase t{Layout::RowMajor, Trans::No, Trans::No, 9, 20, 6, 0, 0, 0, 1.0f, 1.0f};
  std::mt19937_64 rng(2);
  Operands op(t, rng);
  ASSERT_EQ(op.call(t, *ctx), Status::Ok);
  ASSERT_TRUE(in_table(*ctx, op.args(t)));
  ASSERT_EQ(ctx->set_threads(2), Status::Ok);
  EXPECT_FALSE(in_table(*ctx, op.args(t)));
  ASSERT_EQ(ctx->set_threads(1), Status::Ok);
  EXPECT_TRUE(in_table(*ctx, op.args(t)));
  ctx->clear_plan_cache();
  EXPECT_FALSE(in_table(*ctx, op.args(t)));
  ASSERT_EQ(op.call(t, *ctx), Status::Ok);
  EXPECT_TRUE(in_table(*ctx, op.args(t)));
}

// Residency::Auto: a call with other operands than the previous one on its thread plans for
// them in memory, a repeated call for them in cache; each has its own word in the table.
TEST(TinyCalls, AutoResidencyKeysColdAndRepeatedCallsApart) {
  auto ctx = make_context(Isa::Auto, 1);
  ASSERT_EQ(ctx->residency(), Residency::Auto);
  detail::ContextImpl& impl = detail::impl_of(*ctx);
  const TinyCase t{Layout::RowMajor, Trans::No, Trans::No, 6, 30, 12, 0, 0, 0, 1.0f, 0.0f};
  std::mt19937_64 rng(4);
  Operands op(t, rng), other(t, rng);
  const detail::TinyArgs x = op.args(t);
  ASSERT_EQ(other.call(t, *ctx), Status::Ok);
  ASSERT_TRUE(impl.cold_call(x.a, x.b, x.c));
  ASSERT_EQ(op.call(t, *ctx), Status::Ok);  // cold: other operands before
  EXPECT_FALSE(impl.cold_call(x.a, x.b, x.c));
  EXPECT_NE(impl.small_calls().find(
                detail::tiny_detail::tiny_word(impl.threads(), impl.tiny_isa(impl.isa()), x, true)),
            0);
  EXPECT_EQ(impl.small_calls().find(detail::tiny_detail::tiny_word(
                impl.threads(), impl.tiny_isa(impl.isa()), x, false)),
            0);
  ASSERT_EQ(op.call(t, *ctx), Status::Ok);  // warm: the same operands again
  EXPECT_NE(impl.small_calls().find(detail::tiny_detail::tiny_word(
                impl.threads(), impl.tiny_isa(impl.isa()), x, false)),
            0);
  const Reference ref =
      reference_gemm(t.ta, t.tb, t.m, t.n, t.k, t.alpha, op.a, op.b, t.beta, op.c0);
  EXPECT_EQ(check_result(op.c, ref), "");
  ASSERT_EQ(ctx->set_residency(Residency::Memory), Status::Ok);
  EXPECT_TRUE(impl.cold_call(x.a, x.b, x.c));
  EXPECT_EQ(ctx->set_residency(static_cast<Residency>(9)), Status::InvalidArgument);
}

// With ADAPTCORE_VERBOSE every call must reach the full path (it writes the call's line).
TEST(TinyCalls, NotUsedWhenCallsAreLogged) {
  ContextOptions o;
  o.threads = 1;
  ASSERT_EQ(setenv("ADAPTCORE_VERBOSE", "1", 1), 0);
  Context ctx(o);
  unsetenv("ADAPTCORE_VERBOSE");
  const TinyCase t{Layout::RowMajor, Trans::No, Trans::No, 2, 2, 2, 0, 0, 0, 1.0f, 0.0f};
  std::mt19937_64 rng(3);
  Operands op(t, rng);
  testing::internal::CaptureStderr();
  ASSERT_EQ(op.call(t, ctx), Status::Ok);
  ASSERT_EQ(op.call(t, ctx), Status::Ok);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(in_table(ctx, op.args(t)));
  EXPECT_NE(log.find('\n'), log.rfind('\n')) << log;  // a line for each call
}

}  // namespace
