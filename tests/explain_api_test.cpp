// adaptcore::explain: the planner's class, candidates and choice for a shape, through the public
// API only (linked against libadaptcore.so).
#include <gtest/gtest.h>

#include <adaptcore/adaptcore.hpp>
#include <vector>

namespace ac = adaptcore;

namespace {

ac::Context& two_threads() {
  static ac::Context ctx([] {
    ac::ContextOptions o;
    o.threads = 2;
    o.read_environment = false;
    return o;
  }());
  return ctx;
}

TEST(ExplainApi, Fp32ChoiceIsTheCheapestAndIsCached) {
  ac::Context& ctx = two_threads();
  ctx.clear_plan_cache();
  ac::PlanExplanation e;
  ASSERT_EQ(ac::explain(ac::Layout::RowMajor, ac::Trans::No, ac::Trans::No, 64, 4096, 4096, 0, 0, 0,
                        ac::GemmType::F32, e, {}, ctx),
            ac::Status::Ok);
  ASSERT_FALSE(e.candidates.empty());
  ASSERT_LT(e.chosen, e.candidates.size());
  for (const ac::PlanCandidate& c : e.candidates) {
    EXPECT_FALSE(c.plan.empty());
    EXPECT_GT(c.predicted_us, 0.0);
    EXPECT_GE(c.predicted_us, e.candidates[e.chosen].predicted_us);
    EXPECT_GE(c.predicted_us + 1e-9, c.compute_us);
  }
  EXPECT_EQ(e.threads, 2);
  EXPECT_EQ(e.isa, ctx.isa());
  EXPECT_TRUE(e.cold);  // a first call finds its operands in memory
  EXPECT_NE(e.shape_class.find(e.capacity), std::string::npos);
  EXPECT_NE(e.shape_class.find(e.parallelism), std::string::npos);
  EXPECT_EQ(ctx.cached_plans(), 1u);

  ac::CallOptions warm;
  warm.residency = ac::Residency::Cached;
  ac::PlanExplanation w;
  ASSERT_EQ(ac::explain(ac::Layout::RowMajor, ac::Trans::No, ac::Trans::No, 64, 4096, 4096, 0, 0, 0,
                        ac::GemmType::F32, w, warm, ctx),
            ac::Status::Ok);
  EXPECT_FALSE(w.cold);
  EXPECT_EQ(ctx.cached_plans(), 2u);
}

TEST(ExplainApi, LowPrecisionTypesNameTheirKernels) {
  ac::Context& ctx = two_threads();
  for (ac::GemmType t : {ac::GemmType::Bf16, ac::GemmType::Int8}) {
    ac::PlanExplanation e;
    ASSERT_EQ(ac::explain(ac::Layout::ColMajor, ac::Trans::Yes, ac::Trans::No, 100, 300, 512, 0, 0,
                          0, t, e, {}, ctx),
              ac::Status::Ok);
    EXPECT_FALSE(e.kernels.empty());
    EXPECT_FALSE(e.candidates.empty());
  }
}

TEST(ExplainApi, EmptyShapesAndErrors) {
  ac::Context& ctx = two_threads();
  ac::PlanExplanation e;
  EXPECT_EQ(ac::explain(ac::Layout::RowMajor, ac::Trans::No, ac::Trans::No, 0, 8, 8, 0, 0, 0,
                        ac::GemmType::F32, e, {}, ctx),
            ac::Status::Ok);
  EXPECT_TRUE(e.candidates.empty());
  EXPECT_EQ(ac::explain(ac::Layout::RowMajor, ac::Trans::No, ac::Trans::No, -1, 8, 8, 0, 0, 0,
                        ac::GemmType::F32, e, {}, ctx),
            ac::Status::InvalidDimension);
  EXPECT_EQ(ac::explain(ac::Layout::RowMajor, ac::Trans::No, ac::Trans::No, 8, 8, 16, 4, 0, 0,
                        ac::GemmType::Bf16, e, {}, ctx),
            ac::Status::InvalidLeadingDimension);
  EXPECT_EQ(ac::explain(ac::Layout::RowMajor, ac::Trans::No, ac::Trans::No, 8, 8, 8, 0, 0, 0,
                        static_cast<ac::GemmType>(7), e, {}, ctx),
            ac::Status::InvalidArgument);
  ac::CallOptions bad;
  bad.residency = static_cast<ac::Residency>(9);
  EXPECT_EQ(ac::explain(ac::Layout::RowMajor, ac::Trans::No, ac::Trans::No, 8, 8, 8, 0, 0, 0,
                        ac::GemmType::F32, e, bad, ctx),
            ac::Status::InvalidArgument);
  EXPECT_EQ(ac::explain(static_cast<ac::Layout>(5), ac::Trans::No, ac::Trans::No, 8, 8, 8, 0, 0, 0,
                        ac::GemmType::F32, e, {}, ctx),
            ac::Status::InvalidLayout);
}

}  // namespace
