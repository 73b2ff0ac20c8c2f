// The amx level's choice between the tile unit and the vector kernels, made by the model on
// every host: the avx512_bf16 / avx512_vnni tables with the engine's tile added (as the amx
// level's config.cpp builds them; here the tile runs on the scalar model, which planning never
// calls), planned on the Emerald Rapids profile. Prefill-sized products take the engine; decode
// from memory keeps the streaming kernels (which read the weights once, in place).
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "adaptcore/adaptcore.hpp"
#include "amx_model_table.hpp"
#include "core/lowp_problem.hpp"
#include "core/packed_weights.hpp"
#include "core/shape_key.hpp"
#include "hw/cpu_identity.hpp"
#include "hw/shipped_profiles.hpp"
#include "kernels/registry.hpp"
#include "model/cpu_model.hpp"
#include "plan/candidates.hpp"
#include "plan/type_config.hpp"
#include "planner/planner.hpp"

namespace adaptcore::test {
namespace {

// An Emerald Rapids core as its shipped profile describes it, with its cache sizes.
HardwareProfile emerald_rapids() {
  // Over detection alone: the shipped profile of the host running the tests would lend the
  // fields Emerald Rapids's profile does not name (a Zen 3 host's dram_pack_share).
  HardwareProfile base = detected_hardware();
  base.l1d_bytes = 48 * 1024;
  base.l2_bytes = 2 * 1024 * 1024;
  base.l3_bytes = 4 * 1024 * 1024;
  base.l3_warm_bytes = 64 * 1024 * 1024;
  base.freq_ghz = 3.0;
  base.cores = 2;
  return apply_shipped_profile(base, CpuIdentity{"GenuineIntel", 6, 207});
}

struct MixedTable {
  std::array<kernels::LowpTile, 4> tiles{};
  kernels::LowpKernels ks{};
};

// The vector table of `level` with the model engine tile after its tiles.
bool mixed_table(DType dtype, Isa level, MixedTable& out) {
  const kernels::LowpKernels* below = kernels::lowp_kernels_for(dtype, level);
  if (below == nullptr || below->tiles.size() > 3 || below->group == 1) return false;
  std::size_t n = 0;
  for (const kernels::LowpTile& t : below->tiles) out.tiles[n++] = t;
  out.tiles[n++] = model_engine_kernels(dtype).tiles[0];
  out.ks = *below;
  out.ks.tiles = std::span<const kernels::LowpTile>(out.tiles.data(), n);
  return true;
}

Plan plan_for(const kernels::LowpKernels& ks, const HardwareProfile& hw, int64_t m, int64_t n,
              int64_t k, int threads, bool cold) {
  LowpProblem prob;
  const LowpKind kind = ks.dtype == DType::Bf16 ? LowpKind::Bf16F32 : LowpKind::U8S8S32;
  EXPECT_EQ(
      make_shape_lowp_problem(kind, Layout::RowMajor, Trans::No, Trans::No, m, n, k, k, n, n, prob),
      Status::Ok);
  ShapeKey key = make_key(prob, ks.isa, threads);
  key.cold = cold;
  return make_plan(key, hw, type_config(ks, hw));
}

bool is_engine(const kernels::LowpKernels& ks, const Plan& p) {
  return !p.is_dot() && p.tile >= 0 && static_cast<std::size_t>(p.tile) < ks.tiles.size() &&
         ks.tiles[static_cast<std::size_t>(p.tile)].engine != nullptr;
}

TEST(AmxPlans, TheModelGivesPrefillToTheEngineAndDecodeToTheVectorKernels) {
  const HardwareProfile hw = emerald_rapids();
  for (const auto& [dtype, level] :
       {std::pair{DType::Bf16, Isa::Avx512Bf16}, std::pair{DType::U8S8, Isa::Avx512Vnni}}) {
    MixedTable t;
    if (!mixed_table(dtype, level, t)) GTEST_SKIP() << "no " << to_string(level) << " level built";
    for (const int threads : {1, 2})
      for (const bool cold : {true, false}) {
        SCOPED_TRACE(testing::Message()
                     << to_string(dtype) << " threads " << threads << (cold ? " cold" : " warm"));
        for (const int64_t m : {128, 512, 2048}) {
          const Plan p = plan_for(t.ks, hw, m, 2048, 2048, threads, cold);
          EXPECT_TRUE(is_engine(t.ks, p)) << m << ": " << describe(p);
          // On prepacked weights of the tile's width, too (read in place, whole blocks).
          const LowpProblem packed =
              packed_lowp_problem(dtype == DType::Bf16 ? LowpKind::Bf16F32 : LowpKind::U8S8S32, m,
                                  2048, 2048, false, 2048, 2048, kernels::amx::kEngineNr);
          ShapeKey key = make_key(packed, t.ks.isa, threads);
          key.cold = cold;
          const Plan q = make_plan(key, hw, type_config(t.ks, hw));
          EXPECT_TRUE(!q.pack_b && q.tile == static_cast<int>(t.ks.tiles.size()) - 1)
              << m << " prepacked: " << describe(q);
        }
        // Decode with the weights in memory streams them once, in place: a packed B costs as
        // much again as the product (bf16 reads B in place up to 8 rows, int8 at one row; more
        // rows pack B, and then the engine is the cheaper of the packed plans).
        if (!cold) continue;
        const int64_t rows = dtype == DType::Bf16 ? 4 : 1;
        for (int64_t m = 1; m <= rows; ++m) {
          const Plan p = plan_for(t.ks, hw, m, 4096, 4096, threads, cold);
          EXPECT_FALSE(p.pack_b) << m << ": " << describe(p);
          EXPECT_FALSE(is_engine(t.ks, p)) << m << ": " << describe(p);
        }
      }
  }
}

// The engine's compute term: a 16 x 64 tile's steps at the profile's tile rate, whatever rows
// it uses, and the plan's time falls as the rate rises; its depth blocks are whole blocks.
TEST(AmxPlans, TheEngineTermFollowsTheTileRateAndPaysWholeTiles) {
  HardwareProfile hw = emerald_rapids();
  MixedTable t;
  if (!mixed_table(DType::Bf16, Isa::Avx512Bf16, t)) GTEST_SKIP() << "no avx512_bf16 level built";
  const int engine = static_cast<int>(t.ks.tiles.size()) - 1;
  auto predict = [&](const HardwareProfile& h, int64_t m) {
    const TypeConfig cfg = type_config(t.ks, h);
    EXPECT_TRUE(cfg.tile(engine).engine);
    EXPECT_EQ(cfg.tile(engine).depth_block, 16);
    LowpProblem prob;
    EXPECT_EQ(make_shape_lowp_problem(LowpKind::Bf16F32, Layout::RowMajor, Trans::No, Trans::No, m,
                                      64, 192, 192, 64, 64, prob),
              Status::Ok);
    ShapeKey key = make_key(prob, t.ks.isa, 1);
    key.cold = false;
    Plan p;
    p.isa = t.ks.isa, p.tile = engine, p.mr = 16, p.nr = 64, p.pack_a = p.pack_b = true;
    p.kc = 192, p.mc = m, p.nc = 64, p.pm = p.pn = p.pk = 1;  // the B sliver in L1
    EXPECT_EQ(check_blocked_plan(key, p, cfg), "");
    return CpuModel(h, cfg).predict(key, p).compute_us;
  };
  // One row costs a whole tile: the same compute as 16. Fed from L1, the products bound the
  // time: a quarter of the tile rate makes it more than twice as long.
  EXPECT_DOUBLE_EQ(predict(hw, 1), predict(hw, 16));
  EXPECT_GT(predict(hw, 17), 1.5 * predict(hw, 16));
  HardwareProfile slow = hw;
  slow.amx_tiles_per_cycle = hw.amx_tiles_per_cycle / 4;
  EXPECT_GT(predict(slow, 256), 2.0 * predict(hw, 256));
}

}  // namespace
}  // namespace adaptcore::test
