// The Ascend target's profile JSON, taxonomy, candidates, model and plan export.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "targets/ascend/candidates.hpp"
#include "targets/ascend/plan_export.hpp"
#include "targets/ascend/planner.hpp"
#include "targets/ascend/profile.hpp"
#include "targets/ascend/taxonomy.hpp"

namespace adaptcore::ascend {
namespace {

AscendShape shape(int64_t m, int64_t n, int64_t k) {
  AscendShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

TEST(AscendProfile, RoundTripsAndOverrides) {
  AscendProfile hw;
  hw.ai_cores = 20;
  hw.hbm_gbs = 1200;
  AscendProfile back;
  std::string err;
  ASSERT_EQ(profile_from_json(to_json(hw), AscendProfile{}, back, &err), Status::Ok) << err;
  EXPECT_EQ(back.ai_cores, 20);
  EXPECT_EQ(back.hbm_gbs, 1200);
  ASSERT_EQ(profile_from_json(R"({"ai_cores": 24, "freq_ghz": 1.65})", hw, back, &err), Status::Ok);
  EXPECT_EQ(back.ai_cores, 24);
  EXPECT_EQ(back.hbm_gbs, 1200);  // kept from the base
  EXPECT_TRUE(builtin_profile("ascend910b", back));
  EXPECT_FALSE(builtin_profile("ascend999", back));
}

TEST(AscendProfile, RejectsBadFiles) {
  const AscendProfile base;
  AscendProfile out;
  const std::pair<const char*, const char*> bad[] = {
      {"[1, 2]", "not a JSON object"},
      {"{", "not valid JSON at byte"},
      {R"({"ai_cores": 2.5})", "'ai_cores' has the wrong type"},
      {R"({"ai_cores": 0})", "ai_cores must be"},
      {R"({"ai_cores": 4294967297})", "'ai_cores' has the wrong type or is out of range"},
      {R"({"l0a_bytes": -1})", "too small"},
      {R"({"hbm_gbs": 0})", "bandwidths must be positive"},
      {R"({"align_l0ab": 500})", "powers of two"},
      // An alignment as large as UB left the relayout pass halves of 0 bytes: SIGFPE.
      {R"({"align_ub": 131072})", "an alignment must be at most"},
      {R"({"align_l1": 1073741824})", "an alignment must be at most"},
      {R"({"gm_sector_bytes": 1048576})", "gm_sector_bytes"},
      {R"({"cube_k_fp16": 8})", "cube shape"},
      {R"({"version": 2})", "unsupported profile version"},
      {R"({"format": "adaptcore-hardware-profile"})", "format must be"},
      {R"({"l0_bytes": 4096})", "unknown field 'l0_bytes'"},
      {R"({"name": 3})", "'name' has the wrong type"},
  };
  for (const auto& [text, why] : bad) {
    std::string err;
    EXPECT_EQ(profile_from_json(text, base, out, &err), Status::InvalidProfile) << text;
    EXPECT_NE(err.find(why), std::string::npos) << text << " -> " << err;
  }
  std::string err;
  EXPECT_EQ(load_profile_file("/nonexistent/ascend.json", base, out, &err), Status::InvalidProfile);
  EXPECT_NE(err.find("cannot open"), std::string::npos);
}

TEST(AscendTaxonomy, Classes) {
  const AscendProfile hw;  // 24 cores
  EXPECT_EQ(classify(shape(32, 32, 64), hw).capacity, NpuCapacity::L0);
  EXPECT_EQ(classify(shape(256, 256, 256), hw).capacity, NpuCapacity::L1);
  EXPECT_EQ(classify(shape(4096, 4096, 4096), hw).capacity, NpuCapacity::L2);
  EXPECT_EQ(classify(shape(8192, 8192, 8192), hw).capacity, NpuCapacity::Hbm);
  EXPECT_EQ(classify(shape(32, 32, 64), hw).parallel, NpuParallel::Underfilled);
  // 4096 x 4096: 32 x 16 = 512 blocks of 128 x 256 = 21 waves + 8: a poor tail.
  EXPECT_EQ(classify(shape(4096, 4096, 512), hw).parallel, NpuParallel::WaveTail);
  // 3072 x 2048: 24 x 8 = 192 blocks = 8 full waves.
  EXPECT_EQ(classify(shape(3072, 2048, 512), hw).parallel, NpuParallel::Balanced);
}

TEST(AscendCandidates, FitTheBuffersAndFollowTheClass) {
  const AscendProfile hw;
  const AscendShape s = shape(64, 128, 8192);  // underfilled, deep K
  const NpuClass cls = classify(s, hw);
  const auto cands = enumerate_candidates(s, cls, hw);
  ASSERT_FALSE(cands.empty());
  bool split = false, stream = false;
  for (const TilingPlan& p : cands) {
    const BufferBudget b = buffer_budget(p);
    EXPECT_LE(b.l0a, hw.l0a_bytes);
    EXPECT_LE(b.l0b, hw.l0b_bytes);
    EXPECT_LE(b.l0c, hw.l0c_bytes);
    EXPECT_LE(b.l1, hw.l1_bytes);
    EXPECT_LE(p.used_cores, hw.ai_cores);
    split |= p.dist == Distribution::SplitK;
    stream |= p.dist == Distribution::StreamK;
  }
  EXPECT_TRUE(split);
  EXPECT_FALSE(stream);
  // Split-K wins for this shape: 1 or 2 blocks could not use 24 cores otherwise.
  EXPECT_EQ(make_plan(s, hw).dist, Distribution::SplitK);
  // A strided A beyond the move's stride limit: every candidate relayouts A.
  AscendShape wide = shape(64, 64, 64);
  wide.lda = 100000;
  for (const TilingPlan& p : enumerate_candidates(wide, classify(wide, hw), hw))
    EXPECT_TRUE(p.relayout_a);
}

TEST(AscendModel, MonotoneAndBounded) {
  const AscendProfile hw;
  const AscendShape big = shape(4096, 4096, 4096);
  const TilingPlan p = make_plan(big, hw);
  const NpuCost c = predict(hw, big, p);
  // Never faster than the cube peak, and within a small factor of it for a large square shape.
  const double peak_us = big.flops() / (hw.peak_tflops(hw.cube_k_fp16) * 1e6);
  EXPECT_GE(c.total_us, peak_us);
  EXPECT_LT(c.total_us, 2.0 * peak_us);
  EXPECT_LT(predict(hw, shape(2048, 4096, 4096), p).total_us, c.total_us);
  // The fixed baseline is one of the model's inputs too; adaptcore's choice is never predicted
  // slower than it.
  for (const auto& s : {shape(1, 4096, 4096), shape(100, 100, 100), big, shape(8, 8192, 64)}) {
    const TilingPlan base = fixed_baseline(s, hw);
    EXPECT_LE(make_plan(s, hw).predicted_us, predict(hw, s, base).total_us * (1 + 1e-12))
        << s.str();
  }
}

TEST(AscendExport, Schema) {
  const AscendProfile hw;
  const AscendShape s = shape(512, 1024, 4096);
  const TilingPlan p = make_plan(s, hw);
  const auto j = plan_json(s, p);
  for (const char* key :
       {"usedCoreNum", "M",      "N",      "Ka",    "Kb",      "singleCoreM", "singleCoreN",
        "singleCoreK", "baseM",  "baseN",  "baseK", "depthA1", "depthB1",     "stepM",
        "stepN",       "stepKa", "stepKb", "dbL0A", "dbL0B",   "dbL0C",       "iterateOrder"})
    EXPECT_TRUE(j["tiling"].contains(key)) << key;
  const auto& t = j["tiling"];
  EXPECT_EQ(t["baseM"], p.base_m);
  EXPECT_EQ(t["depthA1"].get<int>() % t["stepKa"].get<int>(), 0);
  EXPECT_LE(t["usedCoreNum"].get<int>(), hw.ai_cores);
  // The TCubeTiling buffer rules: baseM*baseK (A) in L0A, baseN*baseK (B) in L0B, baseM*baseN
  // fp32 in L0C, each times its double-buffer factor.
  EXPECT_LE(t["baseM"].get<int64_t>() * t["baseK"].get<int64_t>() * 2 * t["dbL0A"].get<int64_t>(),
            hw.l0a_bytes);
  EXPECT_LE(t["baseN"].get<int64_t>() * t["baseK"].get<int64_t>() * 2 * t["dbL0B"].get<int64_t>(),
            hw.l0b_bytes);
  EXPECT_LE(t["baseM"].get<int64_t>() * t["baseN"].get<int64_t>() * 4 * t["dbL0C"].get<int64_t>(),
            hw.l0c_bytes);
  EXPECT_EQ(j["shape"]["dtype"], "fp16");
  EXPECT_TRUE(j["adaptcore"].contains("distribution"));
  const auto h = export_header(hw);
  EXPECT_EQ(h["format"], kPlanExportFormat);
  EXPECT_EQ(h["modeled"], true);
}

}  // namespace
}  // namespace adaptcore::ascend
