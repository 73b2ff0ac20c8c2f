// The CPU model's rules for where operands start a call and which streams the kernels hide,
// checked on a fixed profile (a 2-core Zen 4 guest's figures) so that the answers do not move
// with the machine running the tests. Each rule is docs/MODEL.md's, with its measurement there.
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "core/problem.hpp"
#include "core/shape_key.hpp"
#include "hw/shipped_profiles.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"
#include "model/cpu_model.hpp"
#include "model/model_constants.hpp"
#include "plan/candidates.hpp"
#include "plan/taxonomy.hpp"
#include "plan/type_config.hpp"
#include "planner/select.hpp"

namespace adaptcore {
namespace {

HardwareProfile zen4_guest() {
  HardwareProfile hw;
  hw.source = "test";
  hw.cores = 2;
  hw.features = FeatureSet(Feature::Fma3) | Feature::Avx2 | Feature::Avx512F | Feature::Avx512BW |
                Feature::Avx512DQ | Feature::Avx512VL;
  hw.freq_ghz = 3.69;
  hw.l1d_bytes = 32 * 1024;
  hw.l2_bytes = 1024 * 1024;
  hw.l3_bytes = 4 * 1024 * 1024;
  hw.l3_warm_bytes = 16 * 1024 * 1024;
  hw.bw_l1_gbs = 206.9;
  hw.bw_l2_gbs = 118.2;
  hw.bw_l3_gbs = 88.7;
  hw.bw_dram_core_gbs = 16.0;
  hw.bw_dram_total_gbs = 32.0;
  hw.fma_per_cycle_512 = 1.0;
  hw.fma_per_cycle_256 = 2.0;
  hw.fork_join_us = 0.6;
  hw.pack_gbs = 29.6;
  // Its row-stream probe (src/hw/profiles/amd-zen4.json).
  hw.l3_row_streams = 8;
  hw.l3_row_share_paged = 0.57;
  hw.l3_row_share = 0.92;
  return hw;
}

// The key of a row-major call with dense operands, B stored transposed with `trans_b`.
ShapeKey key_of(int64_t m, int64_t n, int64_t k, bool trans_b, int threads, bool cold) {
  GemmProblem g;
  g.m = m, g.n = n, g.k = k;
  g.a_rs = k, g.a_cs = 1;
  g.b_rs = trans_b ? 1 : n, g.b_cs = trans_b ? k : 1;
  g.ldc = n;
  ShapeKey key = make_key(g, Isa::Avx512, threads);
  key.cold = cold;
  return key;
}

class CpuModelRules : public ::testing::Test {
 protected:
  void SetUp() override {
    ks_ = kernels::kernels_for(Isa::Avx512);
    ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx512, ks_ != nullptr);
  }
  // Every candidate of the key that `keep` accepts, with its prediction.
  void each(const HardwareProfile& hw, const ShapeKey& key,
            const std::function<bool(const Plan&)>& keep,
            const std::function<void(const Plan&, const CostBreakdown&)>& fn) const {
    const TypeConfig cfg = type_config(*ks_, hw);
    const CpuModel model(hw, cfg);
    for (const Plan& p : enumerate_candidates(key, classify(key, hw, cfg), hw, cfg))
      if (keep(p)) fn(p, model.predict(key, p));
  }
  // The lowest prediction among them (infinity if none).
  double best(const HardwareProfile& hw, const ShapeKey& key,
              const std::function<bool(const Plan&)>& keep) const {
    double t = std::numeric_limits<double>::infinity();
    each(hw, key, keep, [&](const Plan&, const CostBreakdown& c) { t = std::min(t, c.total_us); });
    return t;
  }
  // The plan with the lowest prediction among them.
  Plan cheapest(const HardwareProfile& hw, const ShapeKey& key,
                const std::function<bool(const Plan&)>& keep) const {
    Plan plan;
    double t = std::numeric_limits<double>::infinity();
    each(hw, key, keep, [&](const Plan& p, const CostBreakdown& c) {
      if (c.total_us < t) t = c.total_us, plan = p;
    });
    return plan;
  }
  const kernels::IsaKernels* ks_ = nullptr;
};

bool in_place_tile(const Plan& p) {
  return p.kind == PlanKind::Blocked && !p.is_dot() && !p.pack_b && !p.transpose_c;
}

// A warm call whose operands fit the L3 a hot loop keeps finds B there, although B is larger
// than the capped share blocking counts on; a cold one finds it in DRAM either way.
TEST_F(CpuModelRules, WarmOperandsStartInTheL3AHotLoopKeeps) {
  HardwareProfile keeps = zen4_guest(), small = zen4_guest();
  small.l3_warm_bytes = small.l3_bytes;  // a hot loop keeps no more than the capped share
  const auto whole_depth = [](const Plan& p) { return in_place_tile(p) && p.kc == 239; };
  const ShapeKey warm = key_of(8, 6577, 239, false, 1, false);  // B: 6.0 MiB
  EXPECT_LT(best(keeps, warm, whole_depth), 0.8 * best(small, warm, whole_depth));
  const ShapeKey cold = key_of(8, 6577, 239, false, 1, true);
  EXPECT_DOUBLE_EQ(best(keeps, cold, whole_depth), best(small, cold, whole_depth));
}

// From that L3, a core of one or two rows reading B in place has too little compute to cover
// kc row streams (shallow blocks win); from four rows on the compute covers them.
TEST_F(CpuModelRules, WarmRowStreamsFromL3CostOnlyCoresOfFewRows) {
  const HardwareProfile hw = zen4_guest();
  const auto depth = [](int64_t kc) {
    return [kc](const Plan& p) { return in_place_tile(p) && p.pk == 1 && p.kc == kc; };
  };
  const ShapeKey one_row = key_of(1, 2048, 1408, false, 1, false);  // B: 11 MiB
  EXPECT_LT(best(hw, one_row, depth(8)), best(hw, one_row, depth(256)));
  const ShapeKey eight_rows = key_of(8, 2048, 1408, false, 1, false);
  EXPECT_LT(best(hw, eight_rows, depth(256)), best(hw, eight_rows, depth(8)));
}

// The same eight rows on a core that fetches untracked rows from L3 slowly (the profile's
// row-stream share: 0.19 measured on an Emerald Rapids guest, 0.57 on the Zen 4 one): deep
// blocks of rows 8 KiB apart lose to shallow ones there; rows whose stride is not a multiple
// of 4 KiB keep their own, higher share.
TEST_F(CpuModelRules, SlowL3RowStreamsMakeDeepInPlaceBlocksLose) {
  HardwareProfile hw = zen4_guest();
  hw.l3_row_share_paged = 0.19;
  const auto depth = [](int64_t kc) {
    return [kc](const Plan& p) { return in_place_tile(p) && p.pk == 1 && p.kc == kc; };
  };
  const ShapeKey eight_rows = key_of(8, 2048, 1408, false, 1, false);
  EXPECT_LT(best(hw, eight_rows, depth(8)), best(hw, eight_rows, depth(256)));
  const ShapeKey odd_stride = key_of(8, 2040, 1408, false, 1, false);
  EXPECT_LT(best(hw, odd_stride, depth(256)), best(hw, odd_stride, depth(8)));
}

// The Emerald Rapids guest's loss (docs/results/intel-xeon-emr-2026-12-05/): 8 x 4096 x 4096,
// one thread, warm, read B's rows 16 KiB apart 256 at a time from L3 at 5.3 GB/s (12.7 ms where
// 2.4 were predicted). With that CPU's sizes and its shipped profile, no warm decode-to-small-
// batch shape whose B stays in that L3 takes a deep in-place block over such rows any more, on
// one thread or two. (B from DRAM keeps the fitted stream law, F3: not measured there.)
TEST_F(CpuModelRules, TheEmeraldRapidsProfileKeepsDeepInPlaceBlocksOffPagedRows) {
  HardwareProfile guest = zen4_guest();
  guest.freq_ghz = 3.0;
  guest.l1d_bytes = 48 * 1024, guest.l1d_ways = 12;
  guest.l2_bytes = 2 * 1024 * 1024, guest.l2_ways = 16;
  guest.l3_bytes = 4 * 1024 * 1024, guest.l3_warm_bytes = 150ll * 1024 * 1024;
  const HardwareProfile hw = apply_shipped_profile(guest, {"GenuineIntel", 6, 207});
  ASSERT_DOUBLE_EQ(hw.l3_row_share_paged, 0.19);
  for (const int64_t m : {4, 8, 16, 32})
    for (const auto& [n, k] : {std::pair<int64_t, int64_t>{4096, 4096}, {6144, 4096}, {4096, 8192}})
      for (const int threads : {1, 2}) {
        const ShapeKey key = key_of(m, n, k, false, threads, false);
        double best_t = std::numeric_limits<double>::infinity();
        Plan chosen;
        each(
            hw, key, [](const Plan&) { return true; },
            [&](const Plan& p, const CostBreakdown& c) {
              if (c.total_us < best_t) best_t = c.total_us, chosen = p;
            });
        EXPECT_FALSE(in_place_tile(chosen) && chosen.kc >= 32)
            << m << 'x' << n << 'x' << k << " t" << threads << ": kc " << chosen.kc;
      }
}

// A dot plan's streams from L1 and L2 run under its FMAs with warm operands; cold, every stream
// is waited for.
TEST_F(CpuModelRules, DotStreamsRunUnderTheFmasOnlyWhenWarm) {
  const HardwareProfile hw = zen4_guest();
  const auto dot = [](const Plan& p) { return p.is_dot(); };
  int plans = 0;
  each(hw, key_of(192, 4, 128, false, 1, false), dot, [&](const Plan&, const CostBreakdown& c) {
    ++plans;
    EXPECT_GT(c.memory_us, 0.0);
    // A's 96 KiB in L2, one column tile: all of the streams hidden.
    EXPECT_NEAR(c.total_us, std::max(c.compute_us, c.memory_us) + c.pack_us + c.sync_us, 1e-9);
  });
  // Cold, with B packed (so no in-place B to overlap): every stream adds to the FMAs' time.
  const auto packed_dot = [](const Plan& p) { return p.is_dot() && p.pack_b; };
  each(hw, key_of(192, 4, 128, false, 1, true), packed_dot,
       [&](const Plan&, const CostBreakdown& c) {
         ++plans;
         EXPECT_NEAR(c.total_us, c.compute_us + c.memory_us + c.pack_us + c.sync_us, 1e-9);
       });
  EXPECT_GT(plans, 1);
}

// A's passes for the later column tiles run under the FMAs only while the core's A stays
// resident in L2 (half of it): 64 KiB of A a core is hidden, 1 MiB is not.
TEST_F(CpuModelRules, DotReReadsOfANonResidentAStayExposed) {
  const HardwareProfile hw = zen4_guest();
  const auto split_n = [](const Plan& p) { return p.is_dot() && p.pn == 2; };
  int plans = 0;
  each(hw, key_of(16, 1024, 1024, true, 2, false), split_n,
       [&](const Plan&, const CostBreakdown& c) {
         ++plans;
         EXPECT_LT(c.total_us, std::max(c.compute_us, c.memory_us) + c.pack_us + c.sync_us +
                                   0.05 * c.memory_us);
       });
  each(hw, key_of(256, 4096, 1024, true, 2, false), split_n,
       [&](const Plan&, const CostBreakdown& c) {
         ++plans;
         EXPECT_GT(c.total_us, c.compute_us + 0.3 * c.memory_us);
       });
  EXPECT_GT(plans, 1);
}

// A dot plan split over N has both cores store into the line straddling their boundary in
// every row of C unless the rows are whole lines: charged like the register tiles' grids.
TEST_F(CpuModelRules, DotSplitOverNChargesTheSharedLinesOfC) {
  const HardwareProfile hw = zen4_guest();
  const auto split_n = [](const Plan& p) { return p.is_dot() && p.pn == 2; };
  double narrow = 0, whole_lines = 0;
  each(hw, key_of(66, 8, 300, false, 2, false), split_n,
       [&](const Plan&, const CostBreakdown& c) { narrow = std::max(narrow, c.sync_us); });
  each(hw, key_of(66, 16, 300, false, 2, false), split_n, [&](const Plan&, const CostBreakdown& c) {
    whole_lines = std::max(whole_lines, c.sync_us);
  });
  ASSERT_GT(narrow, 0.0);
  ASSERT_GT(whole_lines, 0.0);
  EXPECT_NEAR(narrow - whole_lines, 66 * 80.0 / (hw.freq_ghz * 1e3), 1e-9);
}

// A dot plan's copy of a cold narrow B is a packer out of DRAM (write-allocate and all): a
// narrow B over a deep K (M 3-5, N 6-16) is read in place by a register tile, which measured
// 1.6-1.9x faster than the copy and its dot tiles (docs/MODEL.md M18).
TEST_F(CpuModelRules, ColdNarrowDeepShapesReadBInPlaceRatherThanCopyIt) {
  const HardwareProfile hw = zen4_guest();
  const auto all = [](const Plan&) { return true; };
  for (const auto& [m, n, k] :
       {std::array<int64_t, 3>{3, 15, 1541}, {4, 11, 1321}, {3, 9, 948}, {5, 9, 7144}}) {
    double dot_packed = std::numeric_limits<double>::infinity(), copy = 0;
    each(hw, key_of(m, n, k, false, 1, true), all, [&](const Plan& p, const CostBreakdown& c) {
      if (p.is_dot() && p.pack_b && c.total_us < dot_packed)
        dot_packed = c.total_us, copy = c.pack_us;
    });
    ASSERT_LT(dot_packed, std::numeric_limits<double>::infinity());
    // The copy reads B at half the DRAM rate at most (F7).
    EXPECT_GE(copy, 4.0 * n * k / (hw.bw_dram_core_gbs / 2 * 1e3) - 1e-9)
        << m << 'x' << n << 'x' << k;
    EXPECT_LT(best(hw, key_of(m, n, k, false, 1, true), in_place_tile), dot_packed)
        << m << 'x' << n << 'x' << k;
  }
}

// A register tile reads its rows' runs of an in-place A at once, so one DRAM ramp serves six
// rows' runs (F30): deep blocks stay ahead of shallow ones by what 561 x 8 x 1071 measured
// (kc 64 1.5x, 128 1.2x, 256 1.04x the whole rows' time), and the 32-deep block that lost 2.3x
// on 1533 x 18 x 6082 stays behind.
TEST_F(CpuModelRules, InPlaceARunsShareOneRampPerRowTile) {
  const HardwareProfile hw = zen4_guest();
  const ShapeKey key = key_of(561, 8, 1071, false, 1, true);
  auto in_place_a_at = [&](int64_t kc) {
    double t = std::numeric_limits<double>::infinity();
    each(
        hw, key,
        [&](const Plan& p) { return in_place_tile(p) && !p.pack_a && p.kc == kc && p.mr == 8; },
        [&](const Plan&, const CostBreakdown& c) { t = std::min(t, c.memory_us); });
    return t;
  };
  const double kc64 = in_place_a_at(64), kc256 = in_place_a_at(256);
  ASSERT_LT(kc64, std::numeric_limits<double>::infinity());
  ASSERT_LT(kc256, std::numeric_limits<double>::infinity());
  EXPECT_LT(kc64 / kc256, 1.6);  // F5 on every run alone: 2.3
  const ShapeKey deep = key_of(1533, 18, 6082, false, 1, true);
  const Plan chosen = cheapest(hw, deep, [](const Plan&) { return true; });
  EXPECT_GE(chosen.kc, 128) << describe(chosen);
}

// A block of A re-read for every column tile comes from L3 only while it fits the core's share
// of it; 6274 x 378 x 931 re-reading 12.8 MB blocks in place ran 1.13-1.23x slower than packing
// A into L2-sized blocks (docs/MODEL.md M19).
TEST_F(CpuModelRules, ReReadsOfBlocksLargerThanL3ComeFromMemory) {
  const HardwareProfile hw = zen4_guest();
  const Plan chosen =
      cheapest(hw, key_of(6274, 378, 931, false, 1, true), [](const Plan&) { return true; });
  EXPECT_TRUE(chosen.pack_a) << describe(chosen);
  EXPECT_LE(static_cast<double>(chosen.mc) * chosen.kc * 4, static_cast<double>(hw.l3_bytes));
}

// Streamed stores cost the DRAM rate of a plain store's read and write-back (F31): a large C
// over a shallow depth goes to the register tiles, which ran 1.3-1.9x faster than the rank-k
// rows on 4238 x 521 x 1..8, one core, cold (docs/MODEL.md M21).
TEST_F(CpuModelRules, LargeColdCOverAShallowDepthKeepsTheRegisterTiles) {
  const HardwareProfile hw = zen4_guest();
  for (const int64_t k : {1, 3, 8}) {
    const Plan chosen =
        cheapest(hw, key_of(4238, 521, k, false, 1, true), [](const Plan&) { return true; });
    EXPECT_EQ(chosen.kind, PlanKind::Blocked) << "k " << k << ": " << describe(chosen);
  }
}

// A Zen 3 guest (AVX2 only, L2 512 KiB): its detected figures and amd-zen3.json's terms.
HardwareProfile zen3_guest() {
  HardwareProfile hw = zen4_guest();
  hw.features = FeatureSet(Feature::Fma3) | Feature::Avx2;
  hw.freq_ghz = 3.2;
  hw.l2_bytes = 512 * 1024;
  hw.bw_l1_gbs = 179.2;
  hw.bw_l2_gbs = 102.4;
  hw.bw_l3_gbs = 76.8;
  hw.fma_per_cycle_256 = 2.0;
  hw.pack_gbs = 25.6;
  hw.l3_row_share_paged = 0.71;
  hw.l3_row_share = 0.86;
  hw.l2_row_share_paged = 0.52;
  return hw;
}

// The Zen 3 guest with the in-place DRAM loss calibrate measured there (1.32, M23), and the
// same profile without it.
std::pair<HardwareProfile, HardwareProfile> zen3_with_and_without_in_place_loss() {
  HardwareProfile zen3 = zen3_guest();
  zen3.dram_in_place_loss = 1.32;
  HardwareProfile no_loss = zen3;
  no_loss.dram_in_place_loss = 0.0;
  return {zen3, no_loss};
}

// The Zen 3 guest with its decode cores' measured terms: the in-place DRAM loss (M23) and the
// rows and row length its prefetchers stream by themselves (M24, M25).
HardwareProfile zen3_decode_guest() {
  HardwareProfile zen3 = zen3_with_and_without_in_place_loss().first;
  zen3.dram_self_streaming_rows = 6;
  zen3.dram_self_streaming_row_bytes = 4096;
  return zen3;
}

// The Zen 3 guest with its in-place DRAM loss (M23) and its packer's share of the stream rate
// out of DRAM (M27).
HardwareProfile zen3_packing_guest() {
  HardwareProfile zen3 = zen3_with_and_without_in_place_loss().first;
  zen3.dram_pack_share = 0.73;
  return zen3;
}

// A row-major problem's key on the AVX2 level, one thread.
ShapeKey avx2_key(int64_t m, int64_t n, int64_t k, bool cold) {
  GemmProblem g;
  g.m = m, g.n = n, g.k = k;
  g.a_rs = k, g.a_cs = 1, g.b_rs = n, g.b_cs = 1, g.ldc = n;
  ShapeKey key = make_key(g, Isa::Avx2, 1);
  key.cold = cold;
  return key;
}

// The Zen 3 decode guest with one measured field set to `value`, and without it (the default).
std::pair<HardwareProfile, HardwareProfile> zen3_with(double HardwareProfile::*field,
                                                      double value) {
  HardwareProfile zen3 = zen3_decode_guest();
  const HardwareProfile unmeasured = zen3;
  zen3.*field = value;
  return {zen3, unmeasured};
}

// Every candidate of `key` costs the same under models `a` and `b` (a term that is not theirs).
void expect_same_costs(const HardwareProfile& hw, const TypeConfig& cfg, const CpuModel& a,
                       const CpuModel& b, const ShapeKey& key) {
  for (const Plan& p : enumerate_candidates(key, classify(key, hw, cfg), hw, cfg))
    EXPECT_DOUBLE_EQ(a.predict(key, p).total_us, b.predict(key, p).total_us) << describe(p);
}

// The candidate the model of `hw` predicts fastest.
Plan cheapest(const HardwareProfile& hw, const TypeConfig& cfg, const ShapeKey& k) {
  const CpuModel model(hw, cfg);
  Plan plan;
  double t = std::numeric_limits<double>::infinity();
  for (const Plan& p : enumerate_candidates(k, classify(k, hw, cfg), hw, cfg))
    if (const double c = model.predict(k, p).total_us; c < t) t = c, plan = p;
  return plan;
}

// `plan` over all of `key`'s rows in one A block (mc = rows) costs the same with and without
// the L2 re-read share: too few row tiles re-read the sliver.
void expect_no_reread_cost(const CpuModel& lossy, const CpuModel& lossless, const ShapeKey& key,
                           Plan plan, int64_t rows) {
  plan.mc = rows;
  EXPECT_DOUBLE_EQ(lossy.predict(key, plan).total_us, lossless.predict(key, plan).total_us)
      << describe(plan);
}

// B rows a multiple of 4 KiB apart pile into a few L1 sets: the row tiles after the first
// re-read every row from L2 at l2_row_share_paged of their rate (M22). On Zen 3 the in-place
// plans of 32 x 6144 x 4096 ran 53-58 ms against 26-34 ms packed (one core); with a stride
// off the page (6160 columns) or a profile that measured no loss, nothing changes.
TEST(CpuModelPagedReread, InPlaceRowsOnAPagedStrideCostTheirL2ReReads) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  auto key = [](int64_t m, int64_t n, int64_t k) { return avx2_key(m, n, k, true); };
  const HardwareProfile zen3 = zen3_guest();
  HardwareProfile no_loss = zen3;
  no_loss.l2_row_share_paged = 1.0;
  const TypeConfig cfg = type_config(*ks, zen3);
  auto chosen = [&](const HardwareProfile& hw, const ShapeKey& k) { return cheapest(hw, cfg, k); };
  const ShapeKey paged = key(32, 6144, 4096);
  EXPECT_FALSE(chosen(no_loss, paged).pack_b) << describe(chosen(no_loss, paged));
  EXPECT_TRUE(chosen(zen3, paged).pack_b) << describe(chosen(zen3, paged));
  // The same in-place plan: dearer on the paged stride only where the profile measured a loss.
  const ShapeKey odd = key(32, 6160, 4096);
  const Plan in_place = chosen(no_loss, paged);
  const CpuModel lossy(zen3, cfg), lossless(no_loss, cfg);
  EXPECT_GT(lossy.predict(paged, in_place).total_us,
            1.3 * lossless.predict(paged, in_place).total_us);
  EXPECT_DOUBLE_EQ(lossy.predict(odd, in_place).total_us, lossless.predict(odd, in_place).total_us);
  // One row tile per A block re-reads nothing.
  expect_no_reread_cost(lossy, lossless, key(4, 6144, 4096), in_place, 4);
}

// Short B rows (closer than kSeparateRowBytes) whose in-place sliver holds more lines than L1
// keeps: the row tiles after the first re-read them from L2 at l2_row_share_paged of their
// rate, for blocks of kShortRowRereadTiles row tiles or more (M29). On Zen 3, one core, cold,
// 640 x 96 x 700 ran `4x24 directA directB kc=256` (256 rows of two lines: 32 KiB) 1.36x slower
// than B packed; `6x16` at the same depth (one line a row: 16 KiB) stays in L1.
TEST(CpuModelPagedReread, ShortRowSliversBeyondL1CostTheirL2ReReads) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const HardwareProfile zen3 = zen3_guest();
  HardwareProfile no_loss = zen3;
  no_loss.l2_row_share_paged = 1.0;
  const TypeConfig cfg = type_config(*ks, zen3);
  const CpuModel lossy(zen3, cfg), lossless(no_loss, cfg);
  const ShapeKey tall = avx2_key(640, 96, 700, true);
  Plan wide;  // 4x24, in place, 256 deep
  int seen = 0;
  for (const Plan& p : enumerate_candidates(tall, classify(tall, zen3, cfg), zen3, cfg)) {
    if (p.kind != PlanKind::Blocked || p.pack_b || p.kc != 256) continue;
    const double with = lossy.predict(tall, p).total_us,
                 without = lossless.predict(tall, p).total_us;
    if (p.nr == 24) {
      EXPECT_GT(with, 1.5 * without) << describe(p);
      wide = p, ++seen;
    } else {
      EXPECT_DOUBLE_EQ(with, without) << describe(p);
    }
  }
  ASSERT_GT(seen, 0);
  // With the loss the model chooses another plan (without it too, since packed B's deep
  // blocks re-read A from L3 as streams, M32).
  auto is_wide_in_place = [](const Plan& p) { return !p.pack_b && p.nr == 24 && p.kc == 256; };
  EXPECT_FALSE(is_wide_in_place(cheapest(zen3, cfg, tall))) << describe(cheapest(zen3, cfg, tall));
  // A few row tiles find the sliver's lines in L1 still.
  expect_no_reread_cost(lossy, lossless, avx2_key(22, 96, 700, true), wide, 22);
}

// Packed B for decode rows (up to 16) is also offered at half the depth over twice the columns,
// in even column blocks of whole tiles, so the pack reads runs twice as long (M30). On Zen 3,
// one core, cold, 8 x 4096 x 4096 ran `4x24 directA packB nc=4104 kc=128` 1.05x faster than
// `nc=2040 kc=256` (2040 + 2040 + 16 columns), 8 x 8192 x 8192 1.13x.
TEST(CandidatesPackedDecode, HalfTheDepthOverEvenWideBlocks) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  HardwareProfile zen3 = zen3_with_and_without_in_place_loss().first;
  zen3.dram_pack_share = 0.73;  // amd-zen3.json's: its decode cores pack B
  const TypeConfig cfg = type_config(*ks, zen3);
  auto shallow_packed = [&](const ShapeKey& k) {
    std::vector<Plan> out;
    for (const Plan& p : enumerate_candidates(k, classify(k, zen3, cfg), zen3, cfg))
      if (p.kind == PlanKind::Blocked && p.pack_b && p.kc == 128 && p.threads() == 1)
        out.push_back(p);
    return out;
  };
  const ShapeKey square = avx2_key(8, 4096, 4096, true);
  const std::vector<Plan> one_block = shallow_packed(square);
  ASSERT_FALSE(one_block.empty());
  for (const Plan& p : one_block) {
    EXPECT_EQ(p.nc % p.nr, 0) << describe(p);
    EXPECT_GE(p.nc, square.n) << describe(p);  // one block of whole tiles
    EXPECT_LT(p.nc, square.n + p.nr) << describe(p);
  }
  // 14336 columns: four even blocks of whole tiles (3584 -> 3600 for 24-column tiles).
  for (const Plan& p : shallow_packed(avx2_key(8, 14336, 4096, true)))
    EXPECT_EQ(p.nc, (3584 + p.nr - 1) / p.nr * p.nr) << describe(p);
  EXPECT_TRUE(shallow_packed(avx2_key(32, 4096, 4096, true)).empty());
  const Plan chosen = cheapest(zen3, cfg, square);
  EXPECT_TRUE(chosen.pack_b && chosen.kc == 128) << describe(chosen);
}

// The selection's ties: the cheapest prediction wins; on the same total, the plan moving less
// data; on the same data too, the one with fewer instructions (memory-bound plans of one tile
// height: docs/MODEL.md M18); otherwise the first enumerated.
TEST(ModelSelection, TiesKeepLessDataThenFewerInstructions) {
  struct Cost {
    double total_us, memory_us, compute_us;
  };
  auto chosen = [](std::vector<Cost> costs) {
    std::vector<int> plans(costs.size());
    for (std::size_t i = 0; i < plans.size(); ++i) plans[i] = static_cast<int>(i);
    const auto r = rank_by_model(
        0, plans, [&](int p) { return costs[static_cast<std::size_t>(p)]; },
        [](int&, const Cost&) {});
    return r.chosen;
  };
  EXPECT_EQ(chosen({{2.0, 1.0, 1.0}, {1.9, 1.9, 0.1}}), 1u);
  EXPECT_EQ(chosen({{1.87, 1.87, 1.27}, {1.87, 1.80, 1.5}}), 1u);
  EXPECT_EQ(chosen({{1.87, 1.87, 1.27}, {1.87, 1.87, 0.99}, {1.87, 1.87, 1.19}}), 1u);
  EXPECT_EQ(chosen({{1.87, 1.87, 0.99}, {1.87, 1.87, 0.99}}), 0u);
}

// A decode core streaming B from DRAM under its own FMAs loses HardwareProfile::
// dram_in_place_loss times its compute (M23). On Zen 3 (loss 1.32) the in-place plans of
// 16 x 4096 x 4096 ran 23.6 ms against 11.2 packed (one core, cold); a profile that measured no
// loss, one or two rows or a B that is not read from DRAM change nothing.
TEST(CpuModelInPlaceDram, DecodeCoresPayTheMeasuredLossOnDram) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const auto& key = avx2_key;
  const auto profiles = zen3_with_and_without_in_place_loss();
  const HardwareProfile &zen3 = profiles.first, &no_loss = profiles.second;
  const TypeConfig cfg = type_config(*ks, zen3);
  auto chosen = [&](const HardwareProfile& hw, const ShapeKey& k) { return cheapest(hw, cfg, k); };
  const ShapeKey decode = key(16, 4096, 4096, true);
  const Plan in_place = chosen(no_loss, decode);
  ASSERT_FALSE(in_place.pack_b) << describe(in_place);
  EXPECT_TRUE(chosen(zen3, decode).pack_b) << describe(chosen(zen3, decode));
  const CpuModel lossy(zen3, cfg), lossless(no_loss, cfg);
  const CostBreakdown with = lossy.predict(decode, in_place);
  const CostBreakdown without = lossless.predict(decode, in_place);
  // The loss is a multiple of the core's FMAs at the peak rate: more than nothing, less than
  // the loss times its compute (which adds the depth blocks' overheads to them).
  EXPECT_GT(with.total_us, without.total_us + 0.5 * without.compute_us);
  EXPECT_LE(with.total_us, without.total_us + 1.32 * without.compute_us);
  // Two rows stream by themselves; a warm B in L3; rows closer than kSeparateRowBytes are one
  // stream, not the row streams the probe read (M27).
  for (const ShapeKey& k :
       {key(2, 4096, 4096, true), key(8, 1024, 1024, false), key(7, 41, 3299, true)}) {
    const Plan p = chosen(no_loss, k);
    EXPECT_DOUBLE_EQ(lossy.predict(k, p).total_us, lossless.predict(k, p).total_us)
        << k.m << "x" << k.n << "x" << k.k << ": " << describe(p);
  }
}

// A core of more rows reading B ahead in place from DRAM pays the loss of kDramInPlaceMaxRows
// rows' FMAs, over rows of kTallInPlaceLossRowBytes and more (M28). On Zen 3, one core, cold,
// 64 x 1408 x 2048 ran its read-ahead plan 1.16x slower than B packed, where the model had
// charged no loss past 16 rows and ranked it first; 20 x 326 x 138 (1.3 KiB rows) ran it
// 1.25x faster than the plans the loss would have chosen.
TEST(CpuModelInPlaceDram, TallReadAheadCoresPayTheLossOfTheDecodeRows) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const auto profiles = zen3_with_and_without_in_place_loss();
  const HardwareProfile &zen3 = profiles.first, &no_loss = profiles.second;
  const TypeConfig cfg = type_config(*ks, zen3);
  const CpuModel lossy(zen3, cfg), lossless(no_loss, cfg);
  const ShapeKey tall = avx2_key(64, 1408, 2048, true);
  int read_ahead = 0;
  for (const Plan& p : enumerate_candidates(tall, classify(tall, zen3, cfg), zen3, cfg)) {
    if (p.kind != PlanKind::Blocked || p.pack_b || !p.prefetch_b || p.threads() != 1) continue;
    // 16 of the 64 rows' multiply-adds at the peak rate, times the loss.
    const double fma16_us =
        2.0 * 16 * tall.n * tall.k / (zen3.peak_gflops_per_core(Isa::Avx2) * 1e3);
    EXPECT_NEAR(lossy.predict(tall, p).total_us - lossless.predict(tall, p).total_us,
                1.32 * fma16_us, 0.01 * fma16_us)
        << describe(p);
    ++read_ahead;
  }
  EXPECT_GT(read_ahead, 0);
  EXPECT_FALSE(cheapest(no_loss, cfg, tall).pack_b) << describe(cheapest(no_loss, cfg, tall));
  EXPECT_TRUE(cheapest(zen3, cfg, tall).pack_b) << describe(cheapest(zen3, cfg, tall));
  // Short rows: no loss for the tall core.
  const ShapeKey narrow = avx2_key(20, 326, 138, true);
  for (const Plan& p : enumerate_candidates(narrow, classify(narrow, zen3, cfg), zen3, cfg))
    if (p.kind == PlanKind::Blocked && !p.pack_b)
      EXPECT_DOUBLE_EQ(lossy.predict(narrow, p).total_us, lossless.predict(narrow, p).total_us)
          << describe(p);
}

// Cores of the rows the hardware prefetchers stream by themselves
// (HardwareProfile::dram_self_streaming_rows) read B in place from DRAM without the read-ahead and
// without the in-place DRAM loss, which was measured with it (M24). On Zen 3 (six rows) 4 x 6144
// x 4096 ran 5.4-5.8 ms in place plain against 10.1-10.4 read ahead (chosen before) and 9.5-10
// packed, one core, cold; with two rows (Zen 4's M11) the model keeps the read-ahead and its loss.
TEST(CpuModelInPlaceDram, SelfStreamingCoresSkipTheReadAheadAndItsLoss) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const HardwareProfile zen3 = zen3_decode_guest();
  HardwareProfile two_rows = zen3;
  two_rows.dram_self_streaming_rows = 2;
  const TypeConfig cfg = type_config(*ks, zen3);
  for (const int64_t m : {3, 4, 6}) {
    const ShapeKey decode = avx2_key(m, 6144, 4096, true);
    const Plan plain = cheapest(zen3, cfg, decode);
    EXPECT_FALSE(plain.pack_b || plain.prefetch_b) << m << ": " << describe(plain);
    EXPECT_LT(plain.kc, decode.k) << describe(plain);
    // The same plan with the read-ahead pays the loss on top.
    Plan ahead = plain;
    ahead.prefetch_b = true;
    const CpuModel model(zen3, cfg);
    EXPECT_GT(model.predict(decode, ahead).total_us, model.predict(decode, plain).total_us)
        << m << ": " << describe(plain);
    for (const Plan& p :
         enumerate_candidates(decode, classify(decode, two_rows, cfg), two_rows, cfg))
      if (p.kind == PlanKind::Blocked && !p.pack_b && p.kc < decode.k)
        EXPECT_TRUE(p.prefetch_b) << m << ": " << describe(p);
  }
  // Eight rows are past the six measured: read ahead (and charged) or packed.
  const ShapeKey eight = avx2_key(8, 6144, 4096, true);
  for (const Plan& p : enumerate_candidates(eight, classify(eight, zen3, cfg), zen3, cfg))
    if (p.kind == PlanKind::Blocked && !p.pack_b && p.kc < eight.k)
      EXPECT_TRUE(p.prefetch_b) << describe(p);
}

// A core of 6-16 rows reading B in place from DRAM ahead by column tiles, over rows a line or
// more off the page, is priced at the in-place DRAM probe's rate (dram_in_place_share) with no
// FMA loss beside it (M34): on Zen 3, one core, cold, 11 x 1552 x 3831 ran in place 1.34x
// faster than the packed plan the loss chose, 8 x 1408 x 2048 1.15x. Taller cores, rows a page
// multiple apart and a profile without the share keep the loss, and their plans.
TEST(CpuModelInPlaceDram, ReadAheadByTilesAtTheProbesRate) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const auto [zen3, unmeasured] = zen3_with(&HardwareProfile::dram_in_place_share, 0.8);
  const TypeConfig cfg = type_config(*ks, zen3);
  const CpuModel model(zen3, cfg), loss_only(unmeasured, cfg);
  for (const auto& [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{11, 1552, 3831}, {8, 1408, 2048}, {16, 1515, 2333}}) {
    const ShapeKey key = avx2_key(m, n, k, true);
    const Plan chosen = cheapest(zen3, cfg, key);
    EXPECT_TRUE(!chosen.pack_b && chosen.prefetch_b) << m << "x" << n << ": " << describe(chosen);
    // B's read at the probe's share of the core's stream rate, beside the compute.
    const CostBreakdown c = model.predict(key, chosen);
    const double b_us = 4.0 * static_cast<double>(n * k) / (zen3.bw_dram_core_gbs * 0.8 * 1e3);
    EXPECT_LT(c.total_us, c.compute_us + 1.2 * b_us) << describe(chosen);
    EXPECT_LT(c.total_us, loss_only.predict(key, chosen).total_us) << describe(chosen);
  }
  // Rows 16 KiB apart, and cores of more than 16 rows: the probe's rate is not theirs.
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{8, 4096}, {32, 1408}, {64, 1408}}) {
    const ShapeKey key = avx2_key(m, n, 2048, true);
    for (const Plan& p : enumerate_candidates(key, classify(key, zen3, cfg), zen3, cfg))
      if (p.kind == PlanKind::Blocked && p.prefetch_b)
        EXPECT_DOUBLE_EQ(model.predict(key, p).total_us, loss_only.predict(key, p).total_us)
            << m << "x" << n << ": " << describe(p);
  }
}

// A core of one row whose own loads stream B loses its rate past the rows the prefetchers
// follow at the profile's exponent (M35): on Zen 3, one core, warm, 1 x 2048 x 1408 ran its
// depth blocks of 32 rows 2.8x slower than blocks of 8, which the fourth root priced faster.
// Cold decisions, and cores that read ahead or hold more rows, keep F3's fourth root.
TEST(CpuModelFewRowStreams, DeepBlocksOfOneRowAtTheProbesExponent) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const auto [zen3, unmeasured] = zen3_with(&HardwareProfile::few_row_stream_exponent, 0.57);
  EXPECT_DOUBLE_EQ(few_row_stream_efficiency(unmeasured, 32), dram_row_stream_efficiency(32));
  EXPECT_DOUBLE_EQ(few_row_stream_efficiency(zen3, 8), 1.0);
  EXPECT_NEAR(few_row_stream_efficiency(zen3, 32), std::pow(0.25, 0.57), 1e-12);
  const TypeConfig cfg = type_config(*ks, zen3);
  const CpuModel model(zen3, cfg), fourth_root(unmeasured, cfg);
  for (const auto& [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{1, 2048, 1408}, {1, 1408, 2048}, {2, 2048, 1408}}) {
    const ShapeKey warm = avx2_key(m, n, k, false);
    EXPECT_GT(cheapest(unmeasured, cfg, warm).kc, 8) << m << "x" << n << "x" << k;
    const Plan chosen = cheapest(zen3, cfg, warm);
    EXPECT_EQ(chosen.kc, 8) << m << "x" << n << "x" << k << ": " << describe(chosen);
    EXPECT_FALSE(chosen.pack_b) << describe(chosen);
    // Cold, the shallow blocks won already.
    const ShapeKey cold = avx2_key(m, n, k, true);
    EXPECT_EQ(describe(cheapest(zen3, cfg, cold)), describe(cheapest(unmeasured, cfg, cold)));
  }
  // Sixteen rows: their FMAs cover the streams, the exponent is not theirs.
  expect_same_costs(zen3, cfg, model, fourth_root, avx2_key(16, 2048, 1408, false));
}

// Row tiles re-reading an in-place sliver of long rows off the page that leaves L1 (half of it
// or more, or more pages than half the first-level TLB) keep the profile's l2_row_share_long of
// their rate, from the fourth tile of each A block in calls of 48 rows or more (M36): on Zen 3,
// one core, warm, 64 x 1408 x 2048 in place ran 1.2-1.3x slower than B packed, which the model
// had priced 0.93x. Two cores splitting those rows pay it too (each core's 32 rows, split to
// escape it, ran 0.85x); smaller calls, and a profile without the share, keep their costs.
TEST(CpuModelLongRowReread, ManyRowTilesOverLongRowsPayTheProbesShare) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const auto [zen3, unmeasured] = zen3_with(&HardwareProfile::l2_row_share_long, 0.75);
  const TypeConfig cfg = type_config(*ks, zen3);
  const CpuModel model(zen3, cfg), no_share(unmeasured, cfg);
  for (const int64_t m : {64, 128, 256}) {
    const ShapeKey warm = avx2_key(m, 1408, 2048, false);
    EXPECT_FALSE(cheapest(unmeasured, cfg, warm).pack_b) << m;
    const Plan chosen = cheapest(zen3, cfg, warm);
    EXPECT_TRUE(chosen.pack_b) << m << ": " << describe(chosen);
    // The in-place plan of one A block, kc 256: the re-reading tiles' loss on top.
    Plan in_place = chosen;
    in_place.pack_b = false, in_place.pack_a = false, in_place.kc = 256;
    in_place.mc = static_cast<int>(m);
    const double plain = no_share.predict(warm, in_place).total_us;
    const double lossy = model.predict(warm, in_place).total_us;
    EXPECT_GT(lossy, plain * 1.1) << describe(in_place);
  }
  GemmProblem g;
  g.m = 64, g.n = 1408, g.k = 2048;
  g.a_rs = g.k, g.a_cs = 1, g.b_rs = g.n, g.b_cs = 1, g.ldc = g.n;
  const ShapeKey two = make_key(g, Isa::Avx2, 2);
  int split = 0;
  for (const Plan& p : enumerate_candidates(two, classify(two, zen3, cfg), zen3, cfg))
    if (p.kind == PlanKind::Blocked && p.pm == 2 && !p.pack_b && p.kc >= 256) {
      ++split;
      EXPECT_GT(model.predict(two, p).total_us, no_share.predict(two, p).total_us) << describe(p);
    }
  EXPECT_GT(split, 0);
  // 32 rows: no candidate's cost moves.
  expect_same_costs(zen3, cfg, model, no_share, avx2_key(32, 1408, 2048, false));
}

// Cores splitting N that read B ahead in place are credited with hiding the read under their
// FMAs (M16), except on a host whose in-place DRAM loss says the read-ahead does not overlap
// them (M26: on Zen 3, 27 x 2048 x 8192 over two cores ran in place 1.27x slower than packed).
TEST(CpuModelInPlaceDram, NoReadAheadCreditWhereTheLossWasMeasured) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const auto profiles = zen3_with_and_without_in_place_loss();
  const HardwareProfile &zen3 = profiles.first, &no_loss = profiles.second;
  const TypeConfig cfg = type_config(*ks, zen3);
  GemmProblem g;
  g.m = 27, g.n = 2048, g.k = 8192;
  g.a_rs = g.k, g.a_cs = 1, g.b_rs = g.n, g.b_cs = 1, g.ldc = g.n;
  ShapeKey key = make_key(g, Isa::Avx2, 2);
  key.cold = true;
  const CpuModel lossy(zen3, cfg), lossless(no_loss, cfg);
  int credited = 0;
  for (const Plan& p : enumerate_candidates(key, classify(key, zen3, cfg), zen3, cfg)) {
    if (p.kind != PlanKind::Blocked || p.pack_b || !p.prefetch_b || p.pm != 1 || p.pk != 1 ||
        p.threads() != 2)
      continue;
    // 27 rows: the loss of 16 (M28) and the credit withheld (none where the FMAs do not
    // outlast the streams, as for the 256-deep blocks).
    const double fma16_us =
        2.0 * 16 * key.n / 2 * key.k / (zen3.peak_gflops_per_core(Isa::Avx2) * 1e3);
    const double with = lossy.predict(key, p).total_us, without = lossless.predict(key, p).total_us;
    EXPECT_GE(with, without + 1.32 * fma16_us - 1e-6) << describe(p);
    credited += with > without + 1.32 * fma16_us + 1e-6;
  }
  EXPECT_GT(credited, 0);
  EXPECT_TRUE(cheapest(zen3, cfg, key).pack_b) << describe(cheapest(zen3, cfg, key));
}

// A kernel call's fixed cycles come from the profile (HardwareProfile::kernel_call_cycles, M31):
// every call of a plan adds them once per depth block, so a plan's compute grows by its calls
// times the difference, and a shallow block's more than a deep one's.
TEST(CpuModelCompute, KernelCallCyclesPriceEveryCallOfEveryDepthBlock) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  HardwareProfile cheap = zen3_guest();
  cheap.kernel_call_cycles = 12.0;
  HardwareProfile dear = cheap;
  dear.kernel_call_cycles = 60.0;
  const TypeConfig cfg = type_config(*ks, cheap);
  const CpuModel a(cheap, cfg), b(dear, cfg);
  const ShapeKey key = avx2_key(264, 144, 2048, false);
  Plan plan = cheapest(cheap, cfg, key);
  ASSERT_EQ(plan.kind, PlanKind::Blocked) << describe(plan);
  plan.pack_a = false, plan.pack_b = true, plan.mr = 6, plan.nr = 16, plan.tile = 0;
  plan.mc = 264, plan.nc = 144, plan.prefetch_b = false;
  auto extra_us = [&](int64_t kc) {
    Plan p = plan;
    p.kc = kc;
    return b.predict(key, p).compute_us - a.predict(key, p).compute_us;
  };
  // 44 row tiles x 9 column tiles per depth block, 48 cycles more each, at the kernels'
  // efficiency.
  const double per_block =
      44.0 * 9.0 * 48.0 / (cheap.freq_ghz * 1e3) / model_constants::kKernelEfficiency;
  EXPECT_NEAR(extra_us(64), 32 * per_block, 1e-6 * per_block);
  EXPECT_NEAR(extra_us(512), 4 * per_block, 1e-6 * per_block);
}

// A row-major A read in place over a few column tiles, its depth block in L3, beside B packed:
// each call re-reads its rows' runs, which the prefetchers follow once started, so only the
// runs' starts wait (one ramp per kInPlaceARunRows runs, M32). Tall C of few columns, one core,
// cold (Zen 3): B packed in deep blocks ran 1.19-1.51x faster than the in-place plans of
// shallow blocks that the exposed re-reads made the model prefer (884 x 104 x 811 1.27,
// 641 x 82 x 668 1.19, 420 x 72 x 1409 1.51).
TEST(CpuModelInPlaceA, ReReadsBeyondL2WaitOnlyForTheStartsOfTheirRuns) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const HardwareProfile zen3 = zen3_packing_guest();
  const TypeConfig cfg = type_config(*ks, zen3);
  for (const auto& [m, n, k] :
       {std::array<int64_t, 3>{884, 104, 811}, {641, 82, 668}, {420, 72, 1409}}) {
    const ShapeKey key = avx2_key(m, n, k, true);
    const Plan chosen = cheapest(zen3, cfg, key);
    EXPECT_TRUE(chosen.pack_b && !chosen.pack_a && chosen.kc >= 512) << describe(chosen);
  }
}

// A shallow depth block (kc <= kSweepDepth) is swept row tile by row tile across its columns:
// every row tile reads the whole kc x nc block of B, and in place those are kc rows a row
// stride apart, from L3 once the block leaves L2 (M33). On Zen 3, one core, cold, 220 x 3812 x
// 32 ran in place 1.56x slower than with B packed, which the model had put 1.6x behind.
TEST(CpuModelInPlaceB, SweptBlocksReReadTheWholeBlockPerRowTile) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  const HardwareProfile zen3 = zen3_packing_guest();
  const TypeConfig cfg = type_config(*ks, zen3);
  const CpuModel model(zen3, cfg);
  const ShapeKey wide = avx2_key(220, 3812, 32, true);
  EXPECT_TRUE(cheapest(zen3, cfg, wide).pack_b) << describe(cheapest(zen3, cfg, wide));
  // The in-place plan's re-reads grow with its row tiles: the same plan over twice the rows
  // costs more than twice as much memory time beyond its first read.
  Plan in_place;
  for (const Plan& p : enumerate_candidates(wide, classify(wide, zen3, cfg), zen3, cfg))
    if (p.kind == PlanKind::Blocked && !p.pack_b && !p.pack_a && p.kc == 32 && p.nr == 24 &&
        p.threads() == 1 && !p.prefetch_c)
      in_place = p;
  ASSERT_EQ(in_place.kc, 32) << "no 4x24 in-place plan of one depth block";
  const ShapeKey one_tile = avx2_key(4, 3812, 32, true);
  Plan one = in_place;
  one.mc = 4;
  EXPECT_GT(model.predict(wide, in_place).memory_us, 4.0 * model.predict(one_tile, one).memory_us);
}

// A packer copying B out of DRAM runs at HardwareProfile::dram_pack_share of the core's stream
// rate (M27). Zen 3 measured 0.61-0.93 (0.73 shipped) where the model had half: its packed plans
// were priced up to 1.4x their time (8 x 4096 x 4096, one core, cold: 12.1 ms predicted, 8.4
// measured) and 109 x 7263 x 1024 ran in place 1.14x slower than packed. The share scales the pack
// out of DRAM alone: a warm B packs from its cache level as before.
TEST(CpuModelPacking, DramPackShareSetsThePackerRateOutOfDram) {
  const kernels::IsaKernels* ks = kernels::kernels_for(Isa::Avx2);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, ks != nullptr);
  HardwareProfile half = zen3_guest();
  half.dram_in_place_loss = 1.32;  // Zen 3's: its decode cores pack B
  half.dram_pack_share = 0.5;
  HardwareProfile zen3 = half;
  zen3.dram_pack_share = 0.73;
  const TypeConfig cfg = type_config(*ks, zen3);
  const CpuModel slow(half, cfg), fast(zen3, cfg);
  const ShapeKey decode = avx2_key(8, 4096, 4096, true);
  const Plan packed = cheapest(zen3, cfg, decode);
  ASSERT_TRUE(packed.pack_b) << describe(packed);
  // The pack out of DRAM is bound by the source here (below pack_gbs): its time scales as the
  // inverse of the share.
  EXPECT_NEAR(slow.predict(decode, packed).pack_us / fast.predict(decode, packed).pack_us,
              0.73 / 0.5, 1e-6);
  const ShapeKey warm = avx2_key(8, 1024, 1024, false);
  const Plan warm_packed = cheapest(zen3, cfg, warm);
  EXPECT_DOUBLE_EQ(slow.predict(warm, warm_packed).total_us,
                   fast.predict(warm, warm_packed).total_us)
      << describe(warm_packed);
  // A pack within the core's L2 keeps the default share: the probe measured blocks far past it.
  const ShapeKey small = avx2_key(7, 100, 500, true);
  Plan small_packed = packed;
  small_packed.kc = 256, small_packed.nc = 100;
  EXPECT_GT(fast.predict(small, small_packed).pack_us, 0.0);
  EXPECT_DOUBLE_EQ(slow.predict(small, small_packed).pack_us,
                   fast.predict(small, small_packed).pack_us);
  // 109 rows over a B beyond L3: in place at half the share, packed at Zen 3's, where no
  // in-place loss (M28) decides it already.
  HardwareProfile half_no_loss = half, zen3_no_loss = zen3;
  half_no_loss.dram_in_place_loss = zen3_no_loss.dram_in_place_loss = 0.0;
  const ShapeKey medium = avx2_key(109, 7263, 1024, true);
  EXPECT_FALSE(cheapest(half_no_loss, cfg, medium).pack_b)
      << describe(cheapest(half_no_loss, cfg, medium));
  EXPECT_TRUE(cheapest(zen3_no_loss, cfg, medium).pack_b)
      << describe(cheapest(zen3_no_loss, cfg, medium));
}

}  // namespace
}  // namespace adaptcore
