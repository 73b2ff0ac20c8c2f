// Weight-quantized API: every bad argument gives its status and touches nothing, the handle is
// move-only (a moved-from handle is empty), the C API owns and frees its handles, and plans
// of the W* dtypes are cached under their own keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "dispatch/internal_access.hpp"

namespace adaptcore {
namespace {

QuantizedWeights make(Context& ctx, int64_t k, int64_t n, WeightQuantSpec spec = {}) {
  std::vector<float> w(static_cast<std::size_t>(k * n), 0.25f);
  QuantizedWeights h;
  EXPECT_EQ(quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, spec, h, ctx),
            Status::Ok);
  return h;
}

TEST(WqApi, QuantizeErrors) {
  Context ctx;
  std::vector<float> w(64 * 64, 1.0f);
  std::vector<std::int8_t> q(64 * 64, 1);
  std::vector<float> s(64 * 64, 1.0f);
  QuantizedWeights h;
  auto f = [&](Layout l, Trans t, int64_t k, int64_t n, const float* p, int64_t ld,
               WeightQuantSpec spec) { return quantize_weights(l, t, k, n, p, ld, spec, h, ctx); };
  const WeightQuantSpec ok{};
  EXPECT_EQ(f(static_cast<Layout>(7), Trans::No, 8, 8, w.data(), 8, ok), Status::InvalidLayout);
  EXPECT_EQ(f(Layout::RowMajor, static_cast<Trans>(7), 8, 8, w.data(), 8, ok),
            Status::InvalidTranspose);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, -1, 8, w.data(), 8, ok), Status::InvalidDimension);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 0, 8, w.data(), 8, ok), Status::InvalidDimension);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 8, 0, w.data(), 8, ok), Status::InvalidDimension);
  EXPECT_EQ(
      f(Layout::RowMajor, Trans::No, 8, 8, w.data(), 8, WeightQuantSpec{WeightFormat::Int8, 48}),
      Status::InvalidArgument);
  EXPECT_EQ(
      f(Layout::RowMajor, Trans::No, 8, 8, w.data(), 8, WeightQuantSpec{WeightFormat::Int8, 512}),
      Status::InvalidArgument);
  EXPECT_EQ(
      f(Layout::RowMajor, Trans::No, 8, 8, w.data(), 8, WeightQuantSpec{WeightFormat::Int8, -32}),
      Status::InvalidArgument);
  EXPECT_EQ(
      f(Layout::RowMajor, Trans::No, 8, 8, w.data(), 8, WeightQuantSpec{WeightFormat::Int4, 0}),
      Status::InvalidArgument);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 8, 8, w.data(), 8,
              WeightQuantSpec{static_cast<WeightFormat>(3), 32}),
            Status::InvalidArgument);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 8, 8, w.data(), 7, ok), Status::InvalidLeadingDimension);
  EXPECT_EQ(f(Layout::ColMajor, Trans::No, 8, 4, w.data(), 7, ok), Status::InvalidLeadingDimension);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 8, 8, nullptr, 8, ok), Status::NullPointer);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, int64_t{1} << 40, int64_t{1} << 40, w.data(),
              int64_t{1} << 40, ok),
            Status::SizeOverflow);
  w[3] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 8, 8, w.data(), 8, ok), Status::InvalidArgument);
  EXPECT_FALSE(h.valid());  // nothing was made
  // From integers: range per format, scales present and finite.
  auto g = [&](const std::int8_t* p, const float* sc, WeightQuantSpec spec) {
    return quantize_weights_s8(Layout::RowMajor, Trans::No, 64, 8, p, 8, sc, spec, h, ctx);
  };
  EXPECT_EQ(g(q.data(), nullptr, ok), Status::NullPointer);
  EXPECT_EQ(g(nullptr, s.data(), ok), Status::NullPointer);
  q[9] = 8;
  EXPECT_EQ(g(q.data(), s.data(), WeightQuantSpec{WeightFormat::Int4, 32}),
            Status::InvalidArgument);
  q[9] = -128;
  EXPECT_EQ(g(q.data(), s.data(), ok), Status::Ok);
  s[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(g(q.data(), s.data(), ok), Status::InvalidArgument);
}

TEST(WqApi, GemmErrors) {
  Context ctx;
  const QuantizedWeights h = make(ctx, 40, 24);
  std::vector<float> a(10 * 40, 1.0f), c(10 * 24, 3.0f);
  auto f = [&](Layout l, Trans t, int64_t m, const float* pa, int64_t lda,
               const QuantizedWeights& w, float* pc, int64_t ldc,
               ActivationParts parts = ActivationParts::Two) {
    return gemm_quantized(l, t, m, pa, lda, w, 0.0f, pc, ldc, parts, ctx);
  };
  EXPECT_EQ(f(static_cast<Layout>(0), Trans::No, 10, a.data(), 40, h, c.data(), 24),
            Status::InvalidLayout);
  EXPECT_EQ(f(Layout::RowMajor, static_cast<Trans>(0), 10, a.data(), 40, h, c.data(), 24),
            Status::InvalidTranspose);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, -1, a.data(), 40, h, c.data(), 24),
            Status::InvalidDimension);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 10, a.data(), 40, h, c.data(), 24,
              static_cast<ActivationParts>(3)),
            Status::InvalidArgument);
  QuantizedWeights empty;
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 10, a.data(), 40, empty, c.data(), 24),
            Status::NullPointer);
  // A whose rows are shorter than the handle's k.
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 10, a.data(), 39, h, c.data(), 24),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 10, a.data(), 40, h, c.data(), 23),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(f(Layout::ColMajor, Trans::No, 10, a.data(), 9, h, c.data(), 10),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 10, nullptr, 40, h, c.data(), 24), Status::NullPointer);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 10, a.data(), 40, h, nullptr, 24), Status::NullPointer);
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, int64_t{1} << 62, a.data(), 40, h, c.data(), 24),
            Status::SizeOverflow);
  // C overlapping A.
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 10, a.data(), 40, h, a.data() + 100, 24),
            Status::Aliasing);
  for (float v : c) ASSERT_EQ(v, 3.0f);  // nothing written by a failed call
  // m == 0: nothing read or written, even through null operands.
  EXPECT_EQ(f(Layout::RowMajor, Trans::No, 0, nullptr, 40, h, nullptr, 24), Status::Ok);
  // bf16 activations: the same checks in bytes.
  std::vector<bf16> ab(10 * 40, bf16(1.0f));
  EXPECT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 10, ab.data(), 39, h, 0.0f, c.data(), 24,
                           ActivationParts::Two, ctx),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 10, ab.data(), 40, h, 0.0f, c.data(), 24,
                           ActivationParts::Two, ctx),
            Status::Ok);
  // 0.25 everywhere quantizes exactly (scale 0.25 / 127, q = 127); x = 1 exactly: 40 x 0.25.
  for (float v : c) ASSERT_NEAR(v, 10.0f, 1e-4f);
}

TEST(WqApi, HandleIsMoveOnly) {
  Context ctx;
  QuantizedWeights h = make(ctx, 64, 32, WeightQuantSpec{WeightFormat::Int4, 32});
  EXPECT_TRUE(h.valid());
  EXPECT_EQ(h.format(), WeightFormat::Int4);
  EXPECT_EQ(h.group_size(), 32);
  EXPECT_EQ(h.packed_bytes(), std::size_t{16} * 64);
  QuantizedWeights moved = std::move(h);
  EXPECT_TRUE(moved.valid());
  EXPECT_FALSE(h.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(h.k(), 0);
  std::vector<float> a(64, 1.0f), c(32);
  EXPECT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 1, a.data(), 64, h, 0.0f, c.data(), 32,
                           ActivationParts::Two, ctx),
            Status::NullPointer);
  EXPECT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 1, a.data(), 64, moved, 0.0f, c.data(), 32,
                           ActivationParts::Two, ctx),
            Status::Ok);
}

TEST(WqApi, CApi) {
  ac_weights_destroy(nullptr);  // no-op
  std::vector<float> w(64 * 48, 0.5f), a(3 * 64, 2.0f), c(3 * 48, 0.0f);
  ac_weights_t h = nullptr;
  EXPECT_EQ(ac_quantize_weights_f32(AC_ROW_MAJOR, AC_NO_TRANS, 64, 48, w.data(), 48,
                                    AC_WEIGHTS_INT8, 0, nullptr),
            AC_STATUS_NULL_POINTER);
  EXPECT_EQ(ac_quantize_weights_f32(AC_ROW_MAJOR, AC_NO_TRANS, 64, 48, w.data(), 47,
                                    AC_WEIGHTS_INT8, 0, &h),
            AC_STATUS_INVALID_LEADING_DIMENSION);
  EXPECT_EQ(h, nullptr);
  ASSERT_EQ(ac_quantize_weights_f32(AC_ROW_MAJOR, AC_NO_TRANS, 64, 48, w.data(), 48,
                                    AC_WEIGHTS_INT8, 64, &h),
            AC_STATUS_OK);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(ac_gemm_wq_f32(AC_ROW_MAJOR, AC_NO_TRANS, 3, a.data(), 64, nullptr, 0.0f, c.data(), 48,
                           AC_WQ_TWO_PARTS),
            AC_STATUS_NULL_POINTER);
  ASSERT_EQ(ac_gemm_wq_f32(AC_ROW_MAJOR, AC_NO_TRANS, 3, a.data(), 64, h, 0.0f, c.data(), 48,
                           AC_WQ_TWO_PARTS),
            AC_STATUS_OK);
  for (float v : c) ASSERT_NEAR(v, 64.0f, 1e-3f);
  std::vector<std::uint16_t> ab(3 * 64, adaptcore::float_to_bf16(2.0f));
  ASSERT_EQ(ac_gemm_wq_bf16(AC_ROW_MAJOR, AC_NO_TRANS, 3, ab.data(), 64, h, 1.0f, c.data(), 48,
                            AC_WQ_ONE_PART),
            AC_STATUS_OK);
  for (float v : c) ASSERT_NEAR(v, 128.0f, 1e-2f);
  EXPECT_EQ(ac_gemm_wq_f32(AC_ROW_MAJOR, AC_NO_TRANS, 3, a.data(), 64, h, 0.0f, c.data(), 48,
                           static_cast<ac_wq_parts_t>(0)),
            AC_STATUS_INVALID_ARGUMENT);
  ac_weights_destroy(h);
  std::vector<std::int8_t> q(64 * 48, -8);
  std::vector<float> s(2 * 48, 1.0f);
  ASSERT_EQ(ac_quantize_weights_s8(AC_COL_MAJOR, AC_TRANS, 64, 48, q.data(), 48, s.data(),
                                   AC_WEIGHTS_INT4, 32, &h),
            AC_STATUS_OK);
  ac_weights_destroy(h);
}

// Keys: dtype (format and parts), weight group and activation type all separate plans.
TEST(WqApi, PlansKeyedByDtypeGroupAndActivation) {
  ContextOptions o;
  o.read_environment = false;
  o.threads = 1;
  Context ctx(o);
  std::vector<float> a(8 * 256, 1.0f), c(8 * 64);
  std::vector<bf16> ab(8 * 256, bf16(1.0f));
  const QuantizedWeights w8 = make(ctx, 256, 64);
  const QuantizedWeights w8g = make(ctx, 256, 64, WeightQuantSpec{WeightFormat::Int8, 128});
  const QuantizedWeights w4 = make(ctx, 256, 64, WeightQuantSpec{WeightFormat::Int4, 128});
  const std::size_t before = ctx.cached_plans();
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 8, a.data(), 256, w8, 0.0f, c.data(), 64,
                           ActivationParts::Two, ctx),
            Status::Ok);
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 8, a.data(), 256, w8, 0.0f, c.data(), 64,
                           ActivationParts::One, ctx),
            Status::Ok);
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 8, a.data(), 256, w8g, 0.0f, c.data(), 64,
                           ActivationParts::Two, ctx),
            Status::Ok);
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 8, a.data(), 256, w4, 0.0f, c.data(), 64,
                           ActivationParts::Two, ctx),
            Status::Ok);
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 8, ab.data(), 256, w4, 0.0f, c.data(), 64,
                           ActivationParts::Two, ctx),
            Status::Ok);
  EXPECT_EQ(ctx.cached_plans(), before + 5);
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 8, a.data(), 256, w8, 0.0f, c.data(), 64,
                           ActivationParts::Two, ctx),
            Status::Ok);
  EXPECT_EQ(ctx.cached_plans(), before + 5);
}

}  // namespace
}  // namespace adaptcore

#include "adaptcore/hardware.hpp"
#include "core/wq_problem.hpp"
#include "exec/executor_wq.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/registry.hpp"
#include "kernels/wq.hpp"
#include "planner/wq_planner.hpp"

namespace adaptcore {
namespace {

// Which threads split the activations is the plan's choice (Plan::quantize_threads): the
// planner gives the split to every core when each gets whole row tiles and there are at least
// 2^16 elements, else to the calling thread; the check takes 1 or all of the plan's threads;
// the executor follows it, refuses a plan asking for more threads than it has, and the result
// does not depend on who split.
TEST(WqApi, PlanSaysWhoQuantizes) {
  ContextOptions o;
  o.read_environment = false;
  o.threads = 2;
  Context ctx(o);
  const detail::ContextImpl& impl = ::adaptcore::detail::impl_of(ctx);
  const kernels::WqKernels& ks = impl.wq_kernels(impl.isa());
  const int64_t m = 64, n = 96, k = 1024;  // m * k = 2^16
  const DType dtype = wq_dtype(WeightFormat::Int8, 2);
  const ShapeKey big = make_wq_shape_key(m, n, k, dtype, 0, false, impl.isa(), 2);
  const ShapeKey one_row = make_wq_shape_key(1, n, k, dtype, 0, false, impl.isa(), 2);
  for (const auto& c : explain_wq_plan(big, impl.hardware(), ks).candidates)
    EXPECT_EQ(c.plan.quantize_threads, c.plan.threads()) << describe(c.plan);
  for (const auto& c : explain_wq_plan(one_row, impl.hardware(), ks).candidates)
    EXPECT_EQ(c.plan.quantize_threads, 1) << describe(c.plan);

  Plan plan = ::adaptcore::detail::impl_of(ctx).plan_for(big);
  plan.pm = 2, plan.pn = 1;
  plan.mc = plan.mr;
  plan.quantize_threads = 2;
  EXPECT_EQ(check_wq_plan(big, plan, ks), "");
  Plan bad = plan;
  bad.quantize_threads = 3;
  EXPECT_NE(check_wq_plan(big, bad, ks), "");

  std::vector<float> w(static_cast<std::size_t>(k * n)), a(static_cast<std::size_t>(m * k));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 13) - 6.0f;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 29) * 0.37f - 5.0f;
  const QuantizedWeights qw = [&] {
    QuantizedWeights h;
    EXPECT_EQ(quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, {}, h, ctx),
              Status::Ok);
    return h;
  }();
  ThreadPool pool(2);
  auto run = [&](const Plan& p, Status expected) {
    std::vector<float> c(static_cast<std::size_t>(m * n), 7.0f);
    WqProblem prob;
    EXPECT_EQ(make_wq_problem(Layout::RowMajor, Trans::No, m, a.data(), false, k, qw, 0.0f,
                              c.data(), n, ActivationParts::Two, prob),
              Status::Ok);
    EXPECT_EQ(execute(p, prob, ks, pool), expected);
    return c;
  };
  const std::vector<float> all = run(plan, Status::Ok);
  Plan caller = plan;
  caller.quantize_threads = 1;
  EXPECT_EQ(run(caller, Status::Ok), all);
  const std::vector<float> refused = run(bad, Status::InternalError);
  EXPECT_TRUE(std::all_of(refused.begin(), refused.end(), [](float v) { return v == 7.0f; }));
}

}  // namespace
}  // namespace adaptcore

namespace adaptcore {
namespace {

// Depth blocks (Plan::kc) are a matter of speed only: a tile carries its fp32 sums between
// blocks through the same operations in the same order, so every blocking, with or without
// the weight prefetch, on any grid and row block, gives the whole-depth plan's bits (beta C
// and a short last block included), on every kernel table of the CPU. The planner cuts a deep
// panel into equal blocks of whole activation groups, and the check refuses other blocks.
TEST(WqApi, DepthBlocksGiveTheSameBits) {
  std::vector<const kernels::WqKernels*> tables{kernels::wq_kernels_for(Isa::Generic)};
  const HardwareProfile& hw = detected_hardware();
  if (hw.supports(Isa::Avx512Vnni)) tables.push_back(kernels::wq_kernels_for(Isa::Avx512Vnni));
  ContextOptions o;
  o.read_environment = false;
  Context ctx(o);
  ThreadPool pool(2);
  const int64_t m = 19, n = 70, k = 1000;
  std::vector<float> w(static_cast<std::size_t>(k * n)), a(static_cast<std::size_t>(m * k));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 7919) % 23) - 11.0f;
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = (static_cast<float>((i * 104729) % 31) - 15.0f) * (i % 97 == 0 ? 300.0f : 0.11f);
  for (const kernels::WqKernels* ks : tables)
    for (const bool int4 : {false, true})
      for (const int64_t group : {int64_t{0}, int64_t{64}})
        for (const int parts : {1, 2}) {
          if (int4 && group == 0) continue;
          WeightQuantSpec spec;
          spec.format = int4 ? WeightFormat::Int4 : WeightFormat::Int8;
          spec.group_size = group;
          QuantizedWeights qw;
          ASSERT_EQ(quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, spec, qw, ctx),
                    Status::Ok);
          const int64_t act = ::adaptcore::detail::impl_of(qw)->act_group;
          const DType dtype = wq_dtype(spec.format, parts);
          const ShapeKey key = make_wq_shape_key(m, n, k, dtype, group, false, Isa::Avx512, 2);
          const std::string where = std::string(ks->name) + " int4=" + std::to_string(int4) +
                                    " group=" + std::to_string(group) +
                                    " parts=" + std::to_string(parts);
          auto run = [&](const Plan& p) {
            std::vector<float> c(static_cast<std::size_t>(m * n), 0.5f);
            WqProblem prob;
            EXPECT_EQ(make_wq_problem(
                          Layout::RowMajor, Trans::No, m, a.data(), false, k, qw, 0.75f, c.data(),
                          n, parts == 2 ? ActivationParts::Two : ActivationParts::One, prob),
                      Status::Ok);
            EXPECT_EQ(execute(p, prob, *ks, pool), Status::Ok) << where << " " << describe(p);
            return c;
          };
          Plan base;
          base.kind = PlanKind::WeightQuantized;
          base.mr = ks->mr(parts);
          base.nr = kWqNr;
          base.pack_a = true;
          base.mc = base.mr;
          base.kc = (k + act - 1) / act * act;
          const std::vector<float> whole = run(base);
          for (const int64_t kc : {act, 2 * act, 3 * act, 7 * act})
            for (const bool prefetch : {false, true})
              for (const int pm : {1, 2}) {
                Plan p = base;
                p.kc = kc;
                p.prefetch_b = prefetch;
                p.pm = pm, p.pn = 3 - pm;
                p.mc = (pm == 1 ? 3 : 1) * p.mr;
                EXPECT_EQ(check_wq_plan(key, p, *ks), "") << where;
                EXPECT_EQ(run(p), whole) << where << " " << describe(p);
              }
          Plan odd = base;
          odd.kc = act + 4;
          EXPECT_NE(check_wq_plan(key, odd, *ks), "") << where;
        }

  // A 14336-deep W8A16 panel with 8 rows a block: two 458 KB panels and the activations
  // exceed the L2, so the planner cuts the depth into equal blocks that fit, with the prefetch.
  HardwareProfile one_mib = hw;
  one_mib.l2_bytes = 1 << 20;
  const ShapeKey deep =
      make_wq_shape_key(8, 4096, 14336, wq_dtype(WeightFormat::Int8, 2), 0, false, Isa::Avx512, 2);
  const kernels::WqKernels& ks = *tables.back();
  for (const auto& c : explain_wq_plan(deep, one_mib, ks).candidates) {
    const Plan& p = c.plan;
    EXPECT_EQ(check_wq_plan(deep, p, ks), "") << describe(p);
    if (std::min<int64_t>(p.mc, 8) < 3) continue;
    EXPECT_TRUE(p.prefetch_b) << describe(p);
    EXPECT_LT(p.kc, 14336) << describe(p);
    const int64_t blocks = (14336 + p.kc - 1) / p.kc;
    EXPECT_GE(14336 - (blocks - 1) * p.kc, p.kc / 2) << describe(p);  // no short last block
    EXPECT_LE(2.0 * p.kc * 32 + 8.0 * 2 * 14336, 0.75 * (1 << 20)) << describe(p);
  }
}

}  // namespace
}  // namespace adaptcore
