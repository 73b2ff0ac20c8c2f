// Weight-quantized GEMM on the AMX int8 unit (kernels/x86_amx/amx_wq.hpp) through the scalar
// model of the tile unit, on every host: for int8 and int4 weights, one and two activation
// parts, per-column and group scales, row tails, several depth blocks and grids, the engine's
// kernels give the portable vector kernels' bits (the same combine in the same order, over the
// engine's activation layout); and the model, on the Emerald Rapids profile, gives prefill to
// the engine and decode to the vector kernels beside it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "amx_model_table.hpp"
#include "core/wq_problem.hpp"
#include "core/wq_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor_wq.hpp"
#include "exec/thread_pool.hpp"
#include "hw/cpu_identity.hpp"
#include "hw/shipped_profiles.hpp"
#include "kernels/registry.hpp"
#include "planner/wq_planner.hpp"

namespace adaptcore::test {
namespace {

Plan whole_depth_plan(const kernels::WqKernels& ks, int tile, int parts, int64_t k, int64_t act) {
  Plan p;
  p.kind = PlanKind::WeightQuantized;
  p.tile = tile;
  p.mr = ks.mr(parts);
  p.nr = kWqNr;
  p.pack_a = true;
  p.mc = p.mr;
  p.kc = (k + act - 1) / act * act;
  return p;
}

TEST(AmxWq, TheEngineGivesTheVectorKernelsBitsThroughTheModel) {
  const kernels::WqKernels& generic = *kernels::wq_kernels_for(Isa::Generic);
  const kernels::WqKernels engine = model_engine_wq_kernels(&generic);
  ContextOptions o;
  o.read_environment = false;
  Context ctx(o);
  ThreadPool pool(2);
  struct Shape {
    int64_t m, n, k;
  };
  for (const Shape s : {Shape{1, 32, 64}, Shape{5, 70, 200}, Shape{16, 33, 1000}, Shape{19, 64, 96},
                        Shape{37, 40, 257}})
    for (const bool int4 : {false, true})
      for (const int64_t group : {int64_t{0}, int64_t{32}, int64_t{128}})
        for (const int parts : {1, 2}) {
          if (int4 && group == 0) continue;
          const std::string where = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                    std::to_string(s.k) + " int4=" + std::to_string(int4) +
                                    " group=" + std::to_string(group) +
                                    " parts=" + std::to_string(parts);
          std::vector<float> w(static_cast<std::size_t>(s.k * s.n));
          std::vector<float> a(static_cast<std::size_t>(s.m * s.k));
          for (std::size_t i = 0; i < w.size(); ++i)
            w[i] = static_cast<float>((i * 7919) % 23) - 11.0f;
          for (std::size_t i = 0; i < a.size(); ++i)
            a[i] = (static_cast<float>((i * 104729) % 31) - 15.0f) * (i % 97 == 0 ? 300.0f : 0.11f);
          WeightQuantSpec spec;
          spec.format = int4 ? WeightFormat::Int4 : WeightFormat::Int8;
          spec.group_size = group;
          QuantizedWeights qw;
          ASSERT_EQ(
              quantize_weights(Layout::RowMajor, Trans::No, s.k, s.n, w.data(), s.n, spec, qw, ctx),
              Status::Ok);
          const int64_t act = ::adaptcore::detail::impl_of(qw)->act_group;
          auto run = [&](const kernels::WqKernels& ks, const Plan& p) {
            std::vector<float> c(static_cast<std::size_t>(s.m * s.n), 0.5f);
            WqProblem prob;
            EXPECT_EQ(
                make_wq_problem(Layout::RowMajor, Trans::No, s.m, a.data(), false, s.k, qw, 0.75f,
                                c.data(), s.n,
                                parts == 2 ? ActivationParts::Two : ActivationParts::One, prob),
                Status::Ok);
            EXPECT_EQ(execute(p, prob, ks, pool), Status::Ok) << where << " " << describe(p);
            return c;
          };
          const std::vector<float> want =
              run(generic, whole_depth_plan(generic, 0, parts, s.k, act));
          const Plan base = whole_depth_plan(engine, 0, parts, s.k, act);
          ASSERT_EQ(base.mr, 16);
          EXPECT_EQ(run(engine, base), want) << where;
          // Depth blocks of whole groups and both grids, and the vector kernels beside the
          // engine's (Plan::tile 1) on the same table.
          Plan blocked = base;
          blocked.kc = act;
          blocked.pm = 2, blocked.pn = 1;
          EXPECT_EQ(run(engine, blocked), want) << where << " " << describe(blocked);
          Plan split_n = base;
          split_n.kc = 3 * act;
          split_n.pm = 1, split_n.pn = 2;
          EXPECT_EQ(run(engine, split_n), want) << where << " " << describe(split_n);
          EXPECT_EQ(run(engine, whole_depth_plan(generic, 1, parts, s.k, act)), want) << where;
        }
}

TEST(AmxWq, TheModelGivesPrefillToTheEngineAndDecodeToTheVectorKernels) {
  const kernels::WqKernels* vnni = kernels::wq_kernels_for(Isa::Avx512Vnni);
  if (vnni == nullptr || !vnni->native) GTEST_SKIP() << "no avx512_vnni level built";
  const kernels::WqKernels engine = model_engine_wq_kernels(vnni);
  HardwareProfile hw = default_hardware();
  hw.l1d_bytes = 48 * 1024, hw.l2_bytes = 2 * 1024 * 1024, hw.freq_ghz = 3.0;
  hw = apply_shipped_profile(hw, CpuIdentity{"GenuineIntel", 6, 207});
  for (const DType dtype : {DType::W8A16, DType::W4A16})
    for (const int threads : {1, 2}) {
      const int64_t group = dtype == DType::W4A16 ? 128 : 0;
      SCOPED_TRACE(testing::Message() << to_string(dtype) << " threads " << threads);
      for (const int64_t m : {256, 1024}) {
        const ShapeKey key =
            make_wq_shape_key(m, 4096, 4096, dtype, group, false, Isa::Amx, threads);
        const Plan p = make_wq_plan(key, hw, engine);
        EXPECT_EQ(p.tile, 0) << m << ": " << describe(p);
        EXPECT_EQ(check_wq_plan(key, p, engine), "");
      }
      for (const int64_t m : {1, 2}) {
        ShapeKey key = make_wq_shape_key(m, 4096, 4096, dtype, group, false, Isa::Amx, threads);
        key.cold = true;
        const Plan p = make_wq_plan(key, hw, engine);
        EXPECT_EQ(p.tile, 1) << m << ": " << describe(p);
        EXPECT_EQ(check_wq_plan(key, p, engine), "");
      }
    }
}

}  // namespace
}  // namespace adaptcore::test
