// Fused epilogues (CallOptions::post_ops): every operation and chains of them on random shapes,
// layouts and thread counts against a double-precision reference, on every plan kind the
// planner may pick (the shapes reach register tiles, split-K, dot and rank-k plans, transposed
// plans and the trivial k = 0 path), through gemm, the view form and gemm_packed; and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "adaptcore/adaptcore.h"
#include "post_ops_util.hpp"
#include "test_util.hpp"

namespace adaptcore::test {
namespace {

TEST(PostOps, EveryOperationOnEveryPlanKind) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int failures = 0, calls = 0;
  for (auto& cfg : all_configs()) {
    for (const Shape& s : kShapes)
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (std::size_t ci = 0; ci < kChains.size() && failures < 10; ++ci) {
          // Every chain on a few shapes, the long chains on all of them.
          if (ci < 7 && (calls + ci) % 3 != 0) continue;
          const float alpha = 1.5f, beta = ci % 2 ? 0.5f : 0.0f;
          const Operands x = make_operands(s, layout, beta, rng);
          const Stored &a = x.a, &b = x.b, &c0 = x.c0;
          const PostData d = make_ops(kChains[ci], s.m, s.n, layout, rng);
          const Reference ref = chain_reference(s, alpha, beta, x, d);
          CallOptions o = options_of(d);
          o.residency = ci % 3 == 0 ? Residency::Memory : Residency::Cached;
          Stored c = c0;
          const Status st = gemm(layout, s.ta, s.tb, s.m, s.n, s.k, alpha, a.data(), a.ld(),
                                 b.data(), b.ld(), beta, c.data(), c.ld(), o, *cfg.ctx);
          ++calls;
          const std::string err = st == Status::Ok ? check_result(c, ref) : to_string(st);
          if (!err.empty() && ++failures <= 10)
            ADD_FAILURE() << case_name(cfg, s, layout, ci) << err;
          // The view form, the same call.
          if (ci == kChains.size() - 1) {
            Stored c2 = c0;
            const Status sv =
                gemm(s.ta, s.tb, alpha, a.cview(), b.cview(), beta, c2.view(), o, *cfg.ctx);
            EXPECT_EQ(sv, Status::Ok);
            EXPECT_EQ(check_result(c2, ref), "") << "view form " << cfg.name();
          }
        }
  }
  EXPECT_GT(calls, 200);
}

// The bf16 GEMM with an fp32 C (gemm_bf16 with CallOptions): the chains on every plan kind
// its planner may pick, both layouts, every ISA path and thread count, against the double
// reference of the bf16-rounded operands.
TEST(PostOps, Bf16Gemm) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto bf16_round = +[](float x) { return bf16_to_float(float_to_bf16(x)); };
  int failures = 0, calls = 0;
  for (auto& cfg : all_configs())
    for (const Shape& s : kShapes)
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
        const std::size_t ci = static_cast<std::size_t>(calls) % kChains.size();
        const float alpha = 1.5f, beta = ci % 2 ? 0.5f : 0.0f;
        const Operands x = make_operands(s, layout, beta, rng, bf16_round);
        const Stored &a = x.a, &b = x.b, &c0 = x.c0;
        std::vector<bf16> a16(a.memory().size()), b16(b.memory().size());
        for (std::size_t i = 0; i < a16.size(); ++i) a16[i] = bf16(a.memory()[i]);
        for (std::size_t i = 0; i < b16.size(); ++i) b16[i] = bf16(b.memory()[i]);
        const PostData d = make_ops(kChains[ci], s.m, s.n, layout, rng);
        const Reference ref = chain_reference(s, alpha, beta, x, d);
        const CallOptions o = options_of(d);
        Stored c = c0;
        const auto* ap = a16.data() + (a.data() - a.memory().data());
        const auto* bp = b16.data() + (b.data() - b.memory().data());
        const Status st = gemm_bf16(layout, s.ta, s.tb, s.m, s.n, s.k, alpha, ap, a.ld(), bp,
                                    b.ld(), beta, c.data(), c.ld(), o, *cfg.ctx);
        ++calls;
        const std::string err = st == Status::Ok ? check_result(c, ref) : to_string(st);
        if (!err.empty() && ++failures <= 10) ADD_FAILURE() << case_name(cfg, s, layout, ci) << err;
      }
  EXPECT_GT(calls, 100);
  // C API, and an invalid list.
  const int64_t m = 5, n = 9, k = 7;
  std::vector<std::uint16_t> a(m * k, float_to_bf16(0.5f)), b(k * n, float_to_bf16(0.25f));
  std::vector<float> c(m * n, 0.0f);
  const ac_post_op relu_bias[] = {{AC_POST_BIAS, nullptr, 0}, {AC_POST_RELU, nullptr, 0}};
  std::vector<float> bias(n, -1.0f);
  ac_post_op ops[2] = {relu_bias[0], relu_bias[1]};
  ops[0].data = bias.data();
  ASSERT_EQ(ac_gemm_bf16bf16f32_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f,
                                     a.data(), k, b.data(), n, 0.0f, c.data(), n, ops, 2),
            AC_STATUS_OK);
  for (const float x : c) EXPECT_FLOAT_EQ(x, 0.0f);  // 7 * 0.125 - 1 < 0, then relu
  ops[0].data = nullptr;
  EXPECT_EQ(ac_gemm_bf16bf16f32_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f,
                                     a.data(), k, b.data(), n, 0.0f, c.data(), n, ops, 2),
            AC_STATUS_NULL_POINTER);
}

TEST(PostOps, PackedWeights) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& cfg : all_configs()) {
    const int64_t k = 150, n = 90;
    Stored b(k, n, Layout::RowMajor, n, 0);
    b.fill([&](int64_t, int64_t) { return u(rng); });
    PackedWeights w;
    ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b.data(), b.ld(), w, {}, *cfg.ctx),
              Status::Ok);
    for (const int64_t m : {1, 5, 77}) {
      Stored a(m, k, Layout::RowMajor, k, 0);
      a.fill([&](int64_t, int64_t) { return u(rng); });
      Stored c0(m, n, Layout::RowMajor, n, 0);
      c0.fill([&](int64_t, int64_t) { return u(rng); });
      PostData d = make_ops(kChains.back(), m, n, Layout::RowMajor, rng);
      Reference ref = reference_gemm(Trans::No, Trans::No, m, n, k, 1.0f, a, b, 1.0f, c0);
      apply_reference(d, ref);
      const CallOptions o = options_of(d);
      Stored c = c0;
      ASSERT_EQ(gemm_packed(Layout::RowMajor, Trans::No, m, 1.0f, a.data(), a.ld(), w, 1.0f,
                            c.data(), c.ld(), o, *cfg.ctx),
                Status::Ok);
      EXPECT_EQ(check_result(c, ref), "") << cfg.name() << " m " << m;
    }
  }
}

// The activations alone, against double, over a wide range of inputs (including where exp
// saturates): within a few ulp of the exact value (absolute near zero).
TEST(PostOps, ActivationAccuracy) {
  const int64_t n = 4001;
  std::vector<float> x(n);
  for (int64_t j = 0; j < n; ++j) x[static_cast<std::size_t>(j)] = -100.0f + 0.05f * j;
  for (const PostOpKind kind :
       {PostOpKind::Relu, PostOpKind::GeluTanh, PostOpKind::GeluErf, PostOpKind::Silu}) {
    std::vector<float> c(x);
    std::vector<float> zero(1, 0.0f);
    PostOp op;
    op.kind = kind;
    CallOptions o;
    o.post_ops = &op;
    o.post_op_count = 1;
    // C = post(1 * C) through the trivial path (k = 0 scales C by beta).
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 1, n, 0, 1.0f, zero.data(), 1,
                   zero.data(), n, 1.0f, c.data(), n, o),
              Status::Ok);
    // Relative error where |f(x)| >= 1e-3, and in the negative tails down to 1e-30 (below,
    // the fp32 exp underflows on the way), where the argument's own rounding, amplified by the
    // exponential, dominates (|2u| ~ 80 at 1e-30: 80 x 6e-8).
    double worst = 0.0, worst_tail = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      const double want = act(kind, x[static_cast<std::size_t>(j)]);
      const double err = std::fabs(c[static_cast<std::size_t>(j)] - want) / std::fabs(want);
      if (std::fabs(want) >= 1e-3)
        worst = std::max(worst, err);
      else if (std::fabs(want) > 1e-30)
        worst_tail = std::max(worst_tail, err);
    }
    EXPECT_LT(worst, 2e-6) << "activation " << static_cast<int>(kind);
    EXPECT_LT(worst_tail, 2e-5) << "activation " << static_cast<int>(kind) << " (tail)";
  }
}

TEST(PostOps, Errors) {
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 0.0f), v(8, 1.0f);
  auto call = [&](const std::vector<PostOp>& ops, int count = 1000 /* the list's own size */,
                  float* cc = nullptr) {
    CallOptions o;
    o.post_ops = ops.empty() ? nullptr : ops.data();
    o.post_op_count = count != 1000 ? count : static_cast<int>(ops.size());
    return gemm(Layout::RowMajor, Trans::No, Trans::No, 4, 8, 8, 1.0f, a.data(), 8, b.data(), 8,
                0.0f, cc != nullptr ? cc : c.data(), 8, o);
  };
  EXPECT_EQ(call({}, kMaxPostOps + 1), Status::InvalidArgument);
  EXPECT_EQ(call({}, -1), Status::InvalidArgument);
  EXPECT_EQ(call({}, 2), Status::NullPointer);
  EXPECT_EQ(call({PostOp{static_cast<PostOpKind>(99), nullptr, 0}}), Status::InvalidArgument);
  EXPECT_EQ(call({PostOp{PostOpKind::Bias, nullptr, 0}}), Status::NullPointer);
  EXPECT_EQ(call({PostOp{PostOpKind::Residual, v.data(), 7}}), Status::InvalidLeadingDimension);
  // The bias inside C, the residual over C.
  EXPECT_EQ(call({PostOp{PostOpKind::Bias, c.data() + 3, 0}}), Status::Aliasing);
  EXPECT_EQ(call({PostOp{PostOpKind::Residual, c.data(), 8}}), Status::Aliasing);
  // A list that fits the call runs.
  EXPECT_EQ(call({PostOp{PostOpKind::Bias, v.data(), 0}, PostOp{PostOpKind::Relu, nullptr, 0}}),
            Status::Ok);
  EXPECT_EQ(c[0], 9.0f);
  // The call's own checks come first.
  CallOptions o;
  PostOp bad{PostOpKind::Bias, nullptr, 0};
  o.post_ops = &bad;
  o.post_op_count = 1;
  EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, -1, 8, 8, 1.0f, a.data(), 8, b.data(), 8,
                 0.0f, c.data(), 8, o),
            Status::InvalidDimension);
}

// The C API: the same chain through ac_sgemm_post and ac_gemm_packed_post, and its errors.
TEST(PostOps, CApi) {
  const int64_t m = 6, n = 20, k = 9;
  std::vector<float> a(m * k), b(k * n), bias(n), c(m * n), c2(m * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 5) - 2.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 3) - 1.0f;
  for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) - 10.0f;
  const ac_post_op ops[] = {{AC_POST_BIAS, bias.data(), 0}, {AC_POST_RELU, nullptr, 0}};
  ASSERT_EQ(ac_sgemm_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                          b.data(), n, 0.0f, c.data(), n, ops, 2),
            AC_STATUS_OK);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double v = bias[static_cast<std::size_t>(j)];
      for (int64_t p = 0; p < k; ++p)
        v +=
            double{a[static_cast<std::size_t>(i * k + p)]} * b[static_cast<std::size_t>(p * n + j)];
      ASSERT_EQ(c[static_cast<std::size_t>(i * n + j)], static_cast<float>(std::max(v, 0.0)));
    }
  ac_packed_t w = nullptr;
  ASSERT_EQ(ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, nullptr, nullptr, 0, &w),
            AC_STATUS_OK);
  ASSERT_EQ(ac_gemm_packed_post(AC_ROW_MAJOR, AC_NO_TRANS, m, 1.0f, a.data(), k, w, 0.0f, c2.data(),
                                n, ops, 2),
            AC_STATUS_OK);
  EXPECT_EQ(c, c2);
  ac_context* ctx = nullptr;
  ASSERT_EQ(ac_context_create(nullptr, &ctx), AC_STATUS_OK);
  std::fill(c2.begin(), c2.end(), 0.0f);
  ASSERT_EQ(ac_sgemm_post_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                              b.data(), n, 0.0f, c2.data(), n, ops, 2, ctx),
            AC_STATUS_OK);
  EXPECT_EQ(c, c2);
  ac_context_destroy(ctx);
  EXPECT_EQ(ac_sgemm_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                          b.data(), n, 0.0f, c.data(), n, nullptr, 1),
            AC_STATUS_NULL_POINTER);
  EXPECT_EQ(ac_sgemm_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                          b.data(), n, 0.0f, c.data(), n, ops, AC_MAX_POST_OPS + 1),
            AC_STATUS_INVALID_ARGUMENT);
  const ac_post_op bad[] = {{static_cast<ac_post_op_kind_t>(0), nullptr, 0}};
  EXPECT_EQ(ac_sgemm_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                          b.data(), n, 0.0f, c.data(), n, bad, 1),
            AC_STATUS_INVALID_ARGUMENT);
  ac_packed_destroy(w);
}

}  // namespace
}  // namespace adaptcore::test
