// The low-precision API around the arithmetic: argument errors (the fp32 rules, in the same
// order, plus zero-point counts) leave C untouched; the C API; plan-cache keys distinct per
// dtype; plans of every dtype survive a plan file round trip.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstring>

#include "adaptcore/adaptcore.h"
#include "dispatch/internal_access.hpp"
#include "lowp_test_util.hpp"

namespace adaptcore::test {
namespace {

constexpr int64_t kBig = std::numeric_limits<int64_t>::max();

struct Bufs {
  std::vector<bf16> a = std::vector<bf16>(4096, bf16(1.0f));
  std::vector<bf16> b = std::vector<bf16>(4096, bf16(1.0f));
  std::vector<float> c = std::vector<float>(4096, 7.0f);
  std::vector<std::uint8_t> a8 = std::vector<std::uint8_t>(4096, 1);
  std::vector<std::int8_t> b8 = std::vector<std::int8_t>(4096, 1);
  std::vector<std::int32_t> c32 = std::vector<std::int32_t>(4096, 7);
  bool untouched() const {
    for (float v : c)
      if (v != 7.0f) return false;
    for (auto v : c32)
      if (v != 7) return false;
    return true;
  }
};

class LowpErrors : public ::testing::Test {
 protected:
  Status bf16(Layout l, Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, int64_t lda,
              int64_t ldb, int64_t ldc) {
    return gemm_bf16(l, ta, tb, m, n, k, 1.0f, b_.a.data(), lda, b_.b.data(), ldb, 0.0f,
                     b_.c.data(), ldc, *ctx_);
  }
  Status int8(Layout l, Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, int64_t lda,
              int64_t ldb, int64_t ldc, ZeroPoints az = {}, ZeroPoints bz = {}) {
    return gemm_u8s8s32(l, ta, tb, m, n, k, b_.a8.data(), lda, az, b_.b8.data(), ldb, bz, 0,
                        b_.c32.data(), ldc, *ctx_);
  }
  std::unique_ptr<Context> ctx_ = make_context(Isa::Auto, 2);
  Bufs b_;
};

TEST_F(LowpErrors, LayoutTransposeDimensionLeadingDimension) {
  const Layout R = Layout::RowMajor, C = Layout::ColMajor;
  const Trans N = Trans::No, T = Trans::Yes;
  EXPECT_EQ(bf16(static_cast<Layout>(7), N, N, 4, 4, 4, 4, 4, 4), Status::InvalidLayout);
  EXPECT_EQ(int8(static_cast<Layout>(7), N, N, 4, 4, 4, 4, 4, 4), Status::InvalidLayout);
  EXPECT_EQ(bf16(R, static_cast<Trans>(0), N, 4, 4, 4, 4, 4, 4), Status::InvalidTranspose);
  EXPECT_EQ(int8(R, N, static_cast<Trans>(114), 4, 4, 4, 4, 4, 4), Status::InvalidTranspose);
  EXPECT_EQ(bf16(R, N, N, -1, 4, 4, 4, 4, 4), Status::InvalidDimension);
  EXPECT_EQ(int8(R, N, N, 4, 4, -5, 4, 4, 4), Status::InvalidDimension);
  EXPECT_EQ(bf16(R, N, N, 4, 4, 8, 7, 4, 4), Status::InvalidLeadingDimension);  // lda < k
  EXPECT_EQ(bf16(C, N, N, 4, 4, 8, 3, 8, 4), Status::InvalidLeadingDimension);  // lda < m
  EXPECT_EQ(int8(R, T, N, 4, 4, 8, 3, 4, 4), Status::InvalidLeadingDimension);  // lda < m
  EXPECT_EQ(int8(R, N, N, 4, 5, 8, 8, 5, 4), Status::InvalidLeadingDimension);  // ldc < n
  EXPECT_TRUE(b_.untouched());
}

TEST_F(LowpErrors, OverflowNullAliasing) {
  const Layout R = Layout::RowMajor;
  const Trans N = Trans::No;
  EXPECT_EQ(bf16(R, N, N, kBig / 2, 2, 4, 4, 2, kBig / 2), Status::SizeOverflow);
  EXPECT_EQ(int8(R, N, N, 3, 2, 4, kBig / 2, 2, 2), Status::SizeOverflow);  // 2 lda + 4 bytes
  EXPECT_EQ(
      gemm_bf16(R, N, N, 4, 4, 4, 1.0f, nullptr, 4, b_.b.data(), 4, 0.0f, b_.c.data(), 4, *ctx_),
      Status::NullPointer);
  EXPECT_EQ(gemm_bf16(R, N, N, 4, 4, 4, 1.0f, b_.a.data(), 4, b_.b.data(), 4, 0.0f,
                      static_cast<float*>(nullptr), 4, *ctx_),
            Status::NullPointer);
  EXPECT_EQ(gemm_u8s8s32(R, N, N, 4, 4, 4, b_.a8.data(), 4, {}, nullptr, 4, {}, 0, b_.c32.data(), 4,
                         *ctx_),
            Status::NullPointer);
  // C overlapping A (same buffer, bf16 output on A's grid) and C overlapping B (int8).
  std::vector<adaptcore::bf16> buf(64, adaptcore::bf16(1.0f));
  EXPECT_EQ(gemm_bf16(R, N, N, 4, 4, 4, 1.0f, buf.data(), 4, b_.b.data(), 4, 0.0f, buf.data() + 2,
                      4, *ctx_),
            Status::Aliasing);
  // Disjoint blocks of one buffer on the same grid are not aliasing.
  EXPECT_EQ(gemm_bf16(R, N, N, 4, 2, 2, 1.0f, buf.data(), 8, b_.b.data(), 2, 0.0f, buf.data() + 4,
                      8, *ctx_),
            Status::Ok);
  std::vector<std::int32_t> c32(64);
  EXPECT_EQ(gemm_u8s8s32(R, N, N, 4, 4, 4, b_.a8.data(), 4, {},
                         reinterpret_cast<const std::int8_t*>(c32.data()), 4, {}, 0, c32.data(), 4,
                         *ctx_),
            Status::Aliasing);
  EXPECT_TRUE(b_.untouched());
}

TEST_F(LowpErrors, ZeroPointCounts) {
  const Layout R = Layout::RowMajor;
  const Trans N = Trans::No;
  const std::int32_t zp[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(int8(R, N, N, 4, 5, 4, 4, 5, 5, {zp, 2}), Status::InvalidArgument);
  EXPECT_EQ(int8(R, N, N, 4, 5, 4, 4, 5, 5, {zp, 5}), Status::InvalidArgument);  // a: per row
  EXPECT_EQ(int8(R, N, N, 4, 5, 4, 4, 5, 5, {}, {zp, 4}), Status::InvalidArgument);
  EXPECT_EQ(int8(R, N, N, 4, 5, 4, 4, 5, 5, {nullptr, 1}), Status::NullPointer);
  EXPECT_EQ(int8(R, N, N, 4, 5, 4, 4, 5, 5, {}, {nullptr, 5}), Status::NullPointer);
  EXPECT_TRUE(b_.untouched());
  EXPECT_EQ(int8(R, N, N, 4, 5, 4, 4, 5, 5, {zp, 4}, {zp, 5}), Status::Ok);
}

TEST(LowpCApi, MatchesCpp) {
  ASSERT_EQ(ac_set_num_threads(2), AC_STATUS_OK);
  const std::uint16_t one = float_to_bf16(1.0f), two = float_to_bf16(2.0f);
  std::vector<std::uint16_t> a(6, one), b(12, two);
  std::vector<float> c(8, 0.0f);
  ASSERT_EQ(ac_gemm_bf16bf16f32(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, 1.0f, a.data(), 3,
                                b.data(), 4, 0.0f, c.data(), 4),
            AC_STATUS_OK);
  for (float v : c) EXPECT_EQ(v, 6.0f);
  std::vector<std::uint16_t> cb(8, 0);
  ASSERT_EQ(ac_gemm_bf16bf16bf16(AC_COL_MAJOR, AC_TRANS, AC_NO_TRANS, 2, 4, 3, 0.5f, a.data(), 3,
                                 b.data(), 3, 0.0f, cb.data(), 2),
            AC_STATUS_OK);
  for (auto v : cb) EXPECT_EQ(bf16_to_float(v), 3.0f);
  std::vector<std::uint8_t> a8(6, 200);
  std::vector<std::int8_t> s8(6, -100), b8(12, -7);
  std::vector<std::int32_t> c32(8, 1);
  const std::int32_t azp = 10, bzp[4] = {1, 2, 3, 4};
  ASSERT_EQ(ac_gemm_u8s8s32(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, a8.data(), 3, &azp, 1,
                            b8.data(), 4, bzp, 4, 1, c32.data(), 4, AC_OFFSET_NONE, nullptr),
            AC_STATUS_OK);
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(c32[static_cast<std::size_t>(j)], 1 + 3 * 190 * (-7 - bzp[j]));
  ASSERT_EQ(ac_gemm_s8s8s32(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, s8.data(), 3, nullptr,
                            0, b8.data(), 4, nullptr, 0, 0, c32.data(), 4, AC_OFFSET_NONE, nullptr),
            AC_STATUS_OK);
  for (auto v : c32) EXPECT_EQ(v, 3 * -100 * -7);
  EXPECT_EQ(ac_gemm_u8s8s32(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, a8.data(), 3, &azp, 3,
                            b8.data(), 4, nullptr, 0, 0, c32.data(), 4, AC_OFFSET_NONE, nullptr),
            AC_STATUS_INVALID_ARGUMENT);
}

TEST(LowpPlans, DistinctCacheKeysAndPlanFileRoundTrip) {
  auto ctx = make_context(Isa::Auto, 2);
  const int64_t m = 64, n = 96, k = 80;
  std::vector<float> af(static_cast<std::size_t>(m * k), 1.0f),
      bf(static_cast<std::size_t>(k * n), 1.0f), cf(static_cast<std::size_t>(m * n));
  std::vector<bf16> ab(af.size(), bf16(1.0f)), bb(bf.size(), bf16(1.0f));
  std::vector<std::uint8_t> a8(af.size(), 1);
  std::vector<std::int8_t> b8(bf.size(), 1);
  std::vector<std::int32_t> c32(cf.size());
  const Layout R = Layout::RowMajor;
  const Trans N = Trans::No;
  ASSERT_EQ(gemm(R, N, N, m, n, k, 1.0f, af.data(), k, bf.data(), n, 0.0f, cf.data(), n, *ctx),
            Status::Ok);
  EXPECT_EQ(ctx->cached_plans(), 1u);
  ASSERT_EQ(gemm_bf16(R, N, N, m, n, k, 1.0f, ab.data(), k, bb.data(), n, 0.0f, cf.data(), n, *ctx),
            Status::Ok);
  EXPECT_EQ(ctx->cached_plans(), 2u);
  for (float v : cf) EXPECT_EQ(v, static_cast<float>(k));
  ASSERT_EQ(
      gemm_u8s8s32(R, N, N, m, n, k, a8.data(), k, {}, b8.data(), n, {}, 0, c32.data(), n, *ctx),
      Status::Ok);
  EXPECT_EQ(ctx->cached_plans(), 3u);
  for (auto v : c32) EXPECT_EQ(v, k);

  // Each key's plan is the one its own planner makes, and the file keeps all three.
  const std::string path = "/tmp/adaptcore_lowp_plans_" + std::to_string(::getpid()) + ".bin";
  std::string err;
  ASSERT_EQ(ctx->save_plan_file(path, &err), Status::Ok) << err;
  auto fresh = make_context(Isa::Auto, 2);
  ASSERT_EQ(fresh->load_plan_file(path, &err), Status::Ok) << err;
  EXPECT_EQ(fresh->cached_plans(), 3u);
  std::remove(path.c_str());
  ASSERT_EQ(
      gemm_u8s8s32(R, N, N, m, n, k, a8.data(), k, {}, b8.data(), n, {}, 0, c32.data(), n, *fresh),
      Status::Ok);
  for (auto v : c32) EXPECT_EQ(v, k);
}

}  // namespace
}  // namespace adaptcore::test

namespace adaptcore::test {
namespace {

// A context runs the dot-product kernels from the level that has them up, the fallbacks below
// (each filed under the level whose fp32 kernels it runs with).
TEST(LowpPlans, KernelChoicePerLevel) {
  const HardwareProfile& hw = detected_hardware();
  for (const Isa isa : kernels::built_levels()) {
    if (!hw.supports(isa)) continue;
    auto ctx = make_context(isa, 1);
    const auto* bf = ::adaptcore::detail::impl_of(*ctx).lowp_kernels(DType::Bf16, isa);
    const auto* i8 = ::adaptcore::detail::impl_of(*ctx).lowp_kernels(DType::U8S8, isa);
    ASSERT_NE(bf, nullptr);
    ASSERT_NE(i8, nullptr);
    const int level = static_cast<int>(isa);
    EXPECT_STREQ(bf->name,
                 level >= static_cast<int>(Isa::Avx512Bf16) ? "avx512-bf16" : "fp32-convert");
    EXPECT_STREQ(i8->name,
                 level >= static_cast<int>(Isa::Avx512Vnni) ? "avx512-vnni" : "int32-generic");
    EXPECT_EQ(bf->isa, kernels::kernels_for(isa)->isa);
    EXPECT_EQ(i8->isa, kernels::kernels_for(isa)->isa);
  }
}

}  // namespace
}  // namespace adaptcore::test

#include "dispatch/plan_file.hpp"

namespace adaptcore::test {
namespace {

// The plan-file loader checks a low-precision plan against its dtype's kernels.
TEST(LowpPlans, PlanFileChecksLowpEntries) {
  for (DType d : {DType::Bf16, DType::U8S8}) {
    auto ctx = make_context(Isa::Auto, 2);
    ShapeKey key;
    key.m = 100, key.n = 70, key.k = 300;
    key.a_row_unit = true;
    key.a_ld_log2 = key.b_ld_log2 = d == DType::U8S8 ? 0 : 1;  // byte classes below fp32's 2
    key.isa = ctx->isa();
    key.threads = 2;
    key.dtype = d;
    const Plan good = ::adaptcore::detail::impl_of(*ctx).plan_for(key);
    EXPECT_EQ(check_plan_entry(key, good), "") << describe(good);
    Plan bad = good;
    bad.pk = 2;
    EXPECT_NE(check_plan_entry(key, bad), "");
    bad = good;
    bad.pack_a = false;
    EXPECT_NE(check_plan_entry(key, bad), "");
    bad = good;
    bad.tile = 9;
    EXPECT_NE(check_plan_entry(key, bad), "");
    bad = good;
    bad.kind = PlanKind::Dot;
    EXPECT_NE(check_plan_entry(key, bad), "");
    ShapeKey f32 = key;  // an fp32 key cannot have byte-sized leading-dimension classes
    f32.dtype = DType::F32;
    EXPECT_NE(check_plan_entry(f32, good), "");
  }
}

}  // namespace
}  // namespace adaptcore::test

namespace adaptcore::test {
namespace {

// Packing A as 32-bit words is the plan's choice (APacking): the candidates take it where the
// key allows it (a group type, row-major A with word-aligned rows), the plan-file check rejects
// it elsewhere, files carry it, and the executor follows it where the operand allows it. Both
// packers lay out the same panels: the same bits whichever runs, for an A on a word boundary
// and one off it, and with depth blocks ending in a partial group.
TEST(LowpPlans, APackingIsThePlans) {
  for (DType d : {DType::Bf16, DType::U8S8}) {
    auto ctx = make_context(Isa::Auto, 2);
    const kernels::LowpKernels* ks = ::adaptcore::detail::impl_of(*ctx).lowp_kernels(d, ctx->isa());
    ASSERT_NE(ks, nullptr);
    const int eb = d == DType::Bf16 ? 2 : 1;
    const int64_t m = 37, n = 70, k = 255;
    ShapeKey key;
    key.m = m, key.n = n, key.k = k;
    key.a_row_unit = true;
    key.a_ld_log2 = static_cast<std::uint8_t>(stride_log2(k + 1, eb));  // rows k + 1 apart
    key.b_ld_log2 = static_cast<std::uint8_t>(stride_log2(n, eb));
    key.isa = ctx->isa();
    key.threads = 2;
    key.dtype = d;
    const Plan planned = ::adaptcore::detail::impl_of(*ctx).plan_for(key);
    ShapeKey odd = key;  // rows one element apart from a word boundary
    odd.a_ld_log2 = static_cast<std::uint8_t>(stride_log2(k, eb));
    EXPECT_EQ(::adaptcore::detail::impl_of(*ctx).plan_for(odd).a_packing, APacking::Elements);
    if (ks->group == 1) {  // bf16 widened to fp32: no groups to read as words
      EXPECT_EQ(planned.a_packing, APacking::Elements);
      continue;
    }
    ASSERT_EQ(planned.a_packing, APacking::Words) << describe(planned);
    EXPECT_EQ(check_plan_entry(key, planned), "");
    EXPECT_NE(check_plan_entry(odd, planned), "");
    ShapeKey transposed = key;  // A stored transposed: its rows are not contiguous
    transposed.a_row_unit = false;
    EXPECT_NE(check_plan_entry(transposed, planned), "");
    std::vector<PlanEntry> loaded;
    ASSERT_EQ(parse_plan_bytes(write_plan_bytes({{key, planned}}, ctx->hardware(), ctx->isa()),
                               {&ctx->hardware(), ctx->isa()}, loaded),
              Status::Ok);
    ASSERT_EQ(loaded.size(), 1u);
    EXPECT_EQ(loaded[0].second.a_packing, APacking::Words);

    // Rows k + 1 apart (word-aligned: k + 1 = 256 values), depth blocks of 64 and a last one
    // of 63 (a partial group), one copy of A on a word boundary and one 2 bytes past it.
    std::vector<unsigned char> a(static_cast<std::size_t>(m * (k + 1) * eb) + 8),
        b(static_cast<std::size_t>(k * n * eb));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(i * 37 % 101);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>(i * 11 % 97);
    if (d == DType::Bf16) {  // finite bf16 values: clear each element's top exponent bit
      for (std::size_t i = 1; i < a.size(); i += 2) a[i] &= 0x3f;
      for (std::size_t i = 1; i < b.size(); i += 2) b[i] &= 0x3f;
    }
    Plan words = planned;
    words.kc = 64;
    Plan elements = words;
    elements.a_packing = APacking::Elements;
    auto run = [&](const Plan& p, std::size_t offset) {
      std::vector<unsigned char> c(static_cast<std::size_t>(m * n) * 4, 0xab);
      LowpCall call;
      call.kind = d == DType::Bf16 ? LowpKind::Bf16F32 : LowpKind::U8S8S32;
      call.m = m, call.n = n, call.k = k;
      call.a = a.data() + offset, call.lda = k + 1;
      call.b = b.data(), call.ldb = n;
      call.c = c.data(), call.ldc = n;
      LowpProblem prob;
      EXPECT_EQ(make_lowp_problem(call, prob), Status::Ok);
      ThreadPool pool(p.threads());
      EXPECT_EQ(execute(p, prob, *ks, pool), Status::Ok) << describe(p);
      return c;
    };
    const std::vector<unsigned char> reference = run(elements, 0);
    EXPECT_EQ(run(words, 0), reference);
    std::memmove(a.data() + 2, a.data(), a.size() - 2);  // the same A, 2 bytes further
    EXPECT_EQ(run(words, 2), reference);
    EXPECT_EQ(run(elements, 2), reference);
  }
}

}  // namespace
}  // namespace adaptcore::test
