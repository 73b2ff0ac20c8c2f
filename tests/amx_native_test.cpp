// The AMX block kernels on the instructions, against the scalar model bit for bit, and the
// weight-quantized kernels against the portable ones (compiled with the AMX flags; runs where
// amx_support() grants the tile state, skipped elsewhere with the reason). And the permission
// request itself, on every host: it answers, never faults.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/wq_problem.hpp"
#include "core/wq_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor_wq.hpp"
#include "exec/thread_pool.hpp"
#include "hw/amx_support.hpp"
#include "kernels/registry.hpp"
#include "kernels/wq.hpp"
#include "kernels/x86_amx/amx_ops_native.hpp"

namespace adaptcore::kernels::amx {
namespace {

TEST(AmxSupport, AnswersOnEveryHostAndSaysWhyNot) {
  const AmxSupport& s = amx_support();
  EXPECT_EQ(&s, &amx_support());  // asked once
  const AmxSupport cap = amx_capability();
  EXPECT_EQ(cap.cpu, s.cpu);
  EXPECT_EQ(cap.os, s.os);
  if (!s.usable()) {
    EXPECT_FALSE(s.why.empty());
  }
  if (!s.cpu) {
    EXPECT_FALSE(s.permitted);
  }
}

template <Dot D, int TM, int TN>
void same_as_model(int m, int n, int k, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message() << "m " << m << " n " << n << " k " << k);
  constexpr int group = D == Dot::Bf16 ? 2 : 4;
  std::uniform_int_distribution<std::uint32_t> word;
  std::vector<std::uint32_t> pa(panel_words(k, group, 16 * TM)), pb(panel_words(k, group, 16 * TN));
  // Any bits: bf16 NaNs and denormals included, the model must agree on them too.
  for (auto& w : pa) w = word(rng);
  for (auto& w : pb) w = word(rng);
  std::vector<std::uint32_t> c_native(static_cast<std::size_t>(m) * n, 0x3F800000u);
  std::vector<std::uint32_t> c_model = c_native;
  BlockArgs x;
  x.groups = padded_groups(k, group);
  x.a = pa.data(), x.b = pb.data(), x.ldc = n, x.m = m, x.n = n;
  x.alpha = 1.0f, x.beta = 1.0f, x.ibeta = 1;
  x.c = c_native.data();
  configure();
  NativeOps native(block_shapes());
  block<D, TM, TN>(native, x);
  release();
  x.c = c_model.data();
  ModelOps model(block_shapes());
  block<D, TM, TN>(model, x);
  for (std::size_t i = 0; i < c_native.size(); ++i) {
    if (D == Dot::Bf16 && std::isnan(std::bit_cast<float>(c_native[i])) &&
        std::isnan(std::bit_cast<float>(c_model[i])))
      continue;  // NaN payloads are not specified
    ASSERT_EQ(c_native[i], c_model[i]) << i;
  }
}

TEST(AmxNative, BlocksMatchTheScalarModel) {
  if (!amx_support().usable()) GTEST_SKIP() << "no AMX here: " << amx_support().why;
  std::mt19937 rng(9);
  for (const int k : {2, 32, 64, 200})
    for (const auto& [m, n] : {std::pair{32, 32}, {7, 19}, {32, 1}}) {
      same_as_model<Dot::Bf16, 2, 2>(m, n, k, rng);
      same_as_model<Dot::U8S8, 2, 2>(m, n, k, rng);
      same_as_model<Dot::S8U8, 2, 2>(m, n, k, rng);
      if (m <= 16) same_as_model<Dot::Bf16, 1, 4>(m, n, k, rng);
    }
}

// The amx level's weight-quantized kernels on the instructions give the portable kernels' bits
// (amx_wq_test.cpp checks the same through the model on every host).
TEST(AmxNative, WeightQuantizedGivesTheVectorKernelsBits) {
  if (!amx_support().usable()) GTEST_SKIP() << "no AMX here: " << amx_support().why;
  const WqKernels* engine = wq_kernels_for(Isa::Amx);
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(engine->engine);
  const WqKernels& generic = *wq_kernels_for(Isa::Generic);
  ContextOptions o;
  o.read_environment = false;
  Context ctx(o);
  ThreadPool pool(2);
  const int64_t m = 21, n = 70, k = 1000;
  std::vector<float> w(static_cast<std::size_t>(k * n)), a(static_cast<std::size_t>(m * k));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 7919) % 23) - 11.0f;
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = (static_cast<float>((i * 104729) % 31) - 15.0f) * 0.11f;
  for (const bool int4 : {false, true})
    for (const int parts : {1, 2}) {
      WeightQuantSpec spec;
      spec.format = int4 ? WeightFormat::Int4 : WeightFormat::Int8;
      spec.group_size = int4 ? 128 : 0;
      QuantizedWeights qw;
      ASSERT_EQ(quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, spec, qw, ctx),
                Status::Ok);
      const int64_t act = ::adaptcore::detail::impl_of(qw)->act_group;
      auto run = [&](const WqKernels& ks) {
        Plan p;
        p.kind = PlanKind::WeightQuantized;
        p.mr = ks.mr(parts);
        p.nr = kWqNr;
        p.pack_a = true;
        p.mc = p.mr;
        p.kc = (k + act - 1) / act * act;
        p.pm = 2;
        std::vector<float> c(static_cast<std::size_t>(m * n), 0.5f);
        WqProblem prob;
        EXPECT_EQ(
            make_wq_problem(Layout::RowMajor, Trans::No, m, a.data(), false, k, qw, 0.75f, c.data(),
                            n, parts == 2 ? ActivationParts::Two : ActivationParts::One, prob),
            Status::Ok);
        EXPECT_EQ(execute(p, prob, ks, pool), Status::Ok);
        return c;
      };
      EXPECT_EQ(run(*engine), run(generic)) << "int4 " << int4 << " parts " << parts;
    }
}

}  // namespace
}  // namespace adaptcore::kernels::amx
