// Every candidate plan computes the right result, not only the one the model picks here.
//
// Which candidate wins depends on the hardware profile, so a plan that is never chosen on this
// machine may be chosen on another (or with a calibrated profile). This test enumerates the
// candidates of every shape class for a set of shapes, operand layouts, ISA paths and thread
// counts, executes each plan directly through the executor, and checks it against the
// double-precision reference (bound, padding, guards).
//
//   ADAPTCORE_TEST_PLAN_SHAPES  number of shapes (default: all of kShapes)
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <string>

#include "core/problem.hpp"
#include "core/shape_key.hpp"
#include "exec/executor.hpp"
#include "exec/executor_small.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/registry.hpp"
#include "plan/candidates.hpp"
#include "plan/core_grid.hpp"
#include "test_util.hpp"
#include "thread_pools.hpp"

namespace adaptcore::test {
namespace {

struct Shape {
  int64_t m, n, k;
};
// Tails in both dimensions, one and several kc blocks, deep k for split-K grids; shallow
// depths over several row and column tiles (the executor's row-tile sweep of shallow blocks);
// C of at most 15 columns over more than a vector of rows (the transposed plans, with row tails
// of their 32-, 48- and 64-row tiles and C^T row counts from 1 to 14: the 8x16 and the
// 16x16 register transposes).
constexpr Shape kShapes[] = {
    {1, 1, 1},    {1, 37, 64},  {29, 1, 65},   {5, 17, 33},  {16, 32, 256}, {17, 33, 300},
    {67, 45, 9},  {3, 70, 700}, {48, 5, 1100}, {8, 8, 3000}, {2, 3, 2500},  {100, 101, 129},
    {37, 150, 5}, {13, 77, 8},  {31, 300, 1},  {133, 2, 3},  {70, 8, 19},   {97, 7, 300},
    {16, 3, 1},   {150, 6, 40}, {45, 9, 7},    {83, 12, 33}, {36, 14, 2},
};

struct Variant {
  Layout layout;
  Trans ta, tb;
};
// Covers every (a_row_unit, b_row_unit, k-unit) combination of the normalised problem.
constexpr Variant kVariants[] = {
    {Layout::RowMajor, Trans::No, Trans::No},  {Layout::RowMajor, Trans::Yes, Trans::Yes},
    {Layout::RowMajor, Trans::No, Trans::Yes}, {Layout::ColMajor, Trans::No, Trans::No},
    {Layout::ColMajor, Trans::Yes, Trans::No}, {Layout::RowMajor, Trans::Yes, Trans::No},
};

// A and B of a shape stored as the variant says (padded leading dimensions), random values.
struct Inputs {
  Stored a, b;
  Inputs(const Shape& s, const Variant& v, std::mt19937& rng) {
    const bool row = v.layout == Layout::RowMajor;
    const bool ta = transposed(v.ta), tb = transposed(v.tb);
    const int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k;
    const int64_t br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    a = Stored(ar, ac, v.layout, (row ? ac : ar) + 3, 1);
    b = Stored(br, bc, v.layout, (row ? bc : br) + 1, 2);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    a.fill([&](int64_t, int64_t) { return u(rng); });
    b.fill([&](int64_t, int64_t) { return u(rng); });
  }
};

std::vector<Plan> all_candidates(const ShapeKey& key, const HardwareProfile& hw,
                                 const kernels::IsaKernels& ks) {
  std::vector<Plan> out;
  std::set<std::string> seen;
  for (auto cap : {CapacityClass::Registers, CapacityClass::L1, CapacityClass::L2,
                   CapacityClass::L3, CapacityClass::Dram})
    for (auto par : {ParallelClass::Serial, ParallelClass::ManyTiles, ParallelClass::FewTiles}) {
      ShapeClass cls;
      cls.capacity = cap;
      cls.parallel = par;
      for (const Plan& p : enumerate_candidates(key, cls, hw, type_config(ks, hw))) {
        const std::string id = describe(p) + " tile " + std::to_string(p.tile);
        if (seen.insert(id).second) out.push_back(p);
      }
    }
  return out;
}

class Plans : public ::testing::TestWithParam<Isa> {};

TEST_P(Plans, EveryCandidateIsCorrect) {
  const HardwareProfile& hw = detected_hardware();
  const Isa isa = GetParam();
  ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa);
  const auto nshapes = static_cast<std::size_t>(
      env_int("ADAPTCORE_TEST_PLAN_SHAPES", static_cast<int64_t>(std::size(kShapes))));
  ThreadPools pool;
  int64_t executed = 0, split_k = 0, padded = 0, transposed = 0, read_ahead = 0, failures = 0;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t si = 0; si < std::min(nshapes, std::size(kShapes)) && failures < 10; ++si) {
    const Shape s = kShapes[si];
    for (const Variant v : kVariants) {
      const bool row = v.layout == Layout::RowMajor;
      Inputs in(s, v, rng);
      const Stored &a = in.a, &b = in.b;
      // C densely stored for two shapes in three (the transposed store's flat path needs
      // ldc == n; with beta 0 and not), with padding between its rows for the others.
      Stored c0(s.m, s.n, v.layout, (row ? s.n : s.m) + (si % 3 != 2 ? 0 : 2), 3);
      c0.fill([&](int64_t, int64_t) { return u(rng); });
      const float alpha = 1.25f, beta = si % 2 ? 0.0f : -0.5f;
      if (beta == 0.0f) c0.fill([](int64_t, int64_t) { return qnan(); });
      const Reference ref = reference_gemm(v.ta, v.tb, s.m, s.n, s.k, alpha, a, b, beta, c0);
      {
        const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
        for (int threads : {1, 2, 3}) {
          Stored c = c0;
          GemmProblem prob;
          ASSERT_EQ(make_problem(v.layout, v.ta, v.tb, s.m, s.n, s.k, alpha, a.data(), a.ld(),
                                 b.data(), b.ld(), beta, c.data(), c.ld(), prob),
                    Status::Ok);
          const ShapeKey key = make_key(prob, isa, threads);
          auto plans = all_candidates(key, hw, ks);
          // Whether in-place B is prefetched depends on where B starts (Plan::prefetch_b):
          // run both settings of every plan that could have either.
          for (std::size_t i = 0, n = plans.size(); i < n; ++i) {
            Plan q = plans[i];
            if (q.is_dot() || q.kind == PlanKind::Rows || q.pack_b || q.kc >= key.k) continue;
            q.prefetch_b = !q.prefetch_b;
            plans.push_back(q);
          }
          EXPECT_FALSE(plans.empty()) << s.m << "x" << s.n << "x" << s.k;
          for (const Plan& plan : plans) {
            c = c0;
            prob.c = c.data();
            const Status st = execute(plan, prob, ks, pool(plan.threads()));
            std::string err = st == Status::Ok ? check_result(c, ref) : to_string(st);
            ++executed;
            split_k += plan.pk > 1;
            padded += !plan.is_dot() && plan.tail == TailStrategy::Padded;
            transposed += plan.transpose_c;
            // Blocks whose next rows the first row tile asks for in its depth steps
            // (UKernelArgs::b_next; plan.hpp's reads_ahead_in_tile).
            read_ahead += plan.kind == PlanKind::Blocked && plan.prefetch_b && !plan.pack_b &&
                          plan.tail == TailStrategy::Masked && plan.kc < s.k &&
                          reads_ahead_in_tile(std::min(plan.kc, s.k - plan.kc),
                                              std::min<int64_t>(plan.nr, s.n) * 4);
            // A split-K plan reduces in a fixed order: a second run gives the same bits.
            if (err.empty() && plan.pk > 1) {
              const std::vector<float> first = c.memory();
              c = c0;
              prob.c = c.data();
              (void)execute(plan, prob, ks, pool(plan.threads()));
              if (!same_bits(first, c.memory())) err = " [split-K result not reproducible]";
            }
            if (!err.empty() && ++failures <= 10)
              ADD_FAILURE() << s.m << "x" << s.n << "x" << s.k << " " << name(v.layout) << " "
                            << name(v.ta) << name(v.tb) << " threads " << threads << " plan ["
                            << describe(plan) << "]:" << err;
          }
        }
      }
    }
  }
  std::printf(
      "[ plans    ] %s: executed %lld candidate plans (%lld split-K, %lld padded tail, %lld C "
      "transposed, %lld reading ahead in the tile)\n",
      to_string(isa), static_cast<long long>(executed), static_cast<long long>(split_k),
      static_cast<long long>(padded), static_cast<long long>(transposed),
      static_cast<long long>(read_ahead));
  EXPECT_GT(executed, 0);
  EXPECT_GT(read_ahead, 0);
  // Every kernel table with transposed-store tiles had its transposed plans run.
  const auto& tiles = kernels::kernels_for(isa)->tiles;
  if (std::any_of(tiles.begin(), tiles.end(),
                  [](const kernels::TileKernels& t) { return t.has_transposed_store(); }))
    EXPECT_GT(transposed, 0);
}

// The rank-k row plans (non-temporal stores of whole lines of C): offered for operands in
// memory where a core's C is beyond L2, here a profile with a 4 KiB L2 so that small shapes
// get them. Each element is
// the register tiles' chain of multiply-adds, so a row plan and a blocked plan of one depth
// block give the same bits; rows of C start at every alignment (ldc = n + 3).
TEST_P(Plans, RowPlansMatchTheRegisterTilesBitForBit) {
  HardwareProfile hw = detected_hardware();
  hw.l2_bytes = 4096;
  const Isa isa = GetParam();
  ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa);
  const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
  ThreadPool pool2(2);
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  constexpr Shape kRowShapes[] = {
      {1, 64, 1}, {37, 100, 3}, {5, 257, 8}, {130, 64, 2}, {64, 1000, 1}};
  int64_t rows_plans = 0;
  for (const Shape s : kRowShapes) {
    for (const Variant v : kVariants) {
      const bool row = v.layout == Layout::RowMajor;
      Inputs in(s, v, rng);
      const Stored &a = in.a, &b = in.b;
      for (const float beta : {0.0f, -0.5f}) {
        Stored c0(s.m, s.n, v.layout, (row ? s.n : s.m) + 3, 3);
        c0.fill([&](int64_t, int64_t) { return beta == 0.0f ? qnan() : u(rng); });
        const float alpha = 1.25f;
        const Reference ref = reference_gemm(v.ta, v.tb, s.m, s.n, s.k, alpha, a, b, beta, c0);
        for (int threads : {1, 2}) {
          Stored c = c0;
          GemmProblem prob;
          ASSERT_EQ(make_problem(v.layout, v.ta, v.tb, s.m, s.n, s.k, alpha, a.data(), a.ld(),
                                 b.data(), b.ld(), beta, c.data(), c.ld(), prob),
                    Status::Ok);
          ShapeKey key = make_key(prob, isa, threads);
          key.cold = true;  // row plans are for operands in memory
          std::vector<float> tiles_bits;
          for (const Plan& plan : all_candidates(key, hw, ks)) {
            const bool one_block = plan.kind == PlanKind::Blocked && plan.pk == 1 &&
                                   plan.kc >= s.k && plan.tail == TailStrategy::Masked;
            if (plan.kind != PlanKind::Rows && !(one_block && tiles_bits.empty())) continue;
            c = c0;
            prob.c = c.data();
            ThreadPool one(1);
            const Status st = execute(plan, prob, ks, plan.threads() > 1 ? pool2 : one);
            ASSERT_EQ(st, Status::Ok) << describe(plan);
            const std::string err = check_result(c, ref);
            EXPECT_EQ(err, "") << s.m << "x" << s.n << "x" << s.k << " " << name(v.layout) << " "
                               << name(v.ta) << name(v.tb) << " beta " << beta << " ["
                               << describe(plan) << "]";
            if (plan.kind != PlanKind::Rows) {
              tiles_bits = c.memory();
              continue;
            }
            ++rows_plans;
            if (!tiles_bits.empty())
              EXPECT_TRUE(same_bits(tiles_bits, c.memory()))
                  << s.m << "x" << s.n << "x" << s.k << " [" << describe(plan) << "]";
          }
        }
      }
    }
  }
  if (ks.rows != nullptr) EXPECT_GT(rows_plans, 0);
}

// In-place B is prefetched a depth block ahead where B starts in DRAM (cold operands, or a B
// larger than the L3 a hot loop keeps), and not where a hot loop keeps it in L3, nor for the
// rows of C the profile's hardware streams by themselves over B rows long enough
// (HardwareProfile::dram_self_streaming_rows and _row_bytes: the detected profile's, 2 rows
// over 16 KiB, 4 rows over 2 KiB).
TEST_P(Plans, InPlaceBPrefetchedWhereItStartsInDram) {
  const HardwareProfile& detected = detected_hardware();
  const Isa isa = GetParam();
  if (!detected.supports(isa) || kernels::kernels_for(isa) == nullptr)
    GTEST_SKIP() << to_string(isa) << " is not available on this CPU";
  for (const auto [self_rows, self_bytes] :
       {std::pair<int, int64_t>{detected.dram_self_streaming_rows,
                                detected.dram_self_streaming_row_bytes},
        {2, 16384},
        {4, 2048}}) {
    HardwareProfile hw = detected;
    hw.dram_self_streaming_rows = self_rows;
    hw.dram_self_streaming_row_bytes = self_bytes;
    const TypeConfig cfg = type_config(*kernels::kernels_for(isa), hw);
    ShapeClass cls;                                              // the class only names the plans
    const int64_t beyond_l3 = hw.l3_warm_bytes / 4 / 1024 + 64;  // B of k = 1024 past L3
    for (const auto [m, n] : {std::pair<int64_t, int64_t>{4, 256},
                              {4, beyond_l3},
                              {3, 4096},
                              {1, 256},
                              {2, 4096},
                              {1, beyond_l3}}) {
      ShapeKey key;
      key.m = m, key.n = n, key.k = 1024;
      key.a_row_unit = key.b_row_unit = true;
      key.isa = isa;
      key.threads = 1;
      for (const bool cold : {false, true}) {
        key.cold = cold;
        const bool streamed_by_hardware = m <= self_rows && 4 * n >= self_bytes;
        const bool from_dram =
            (cold || 4 * key.k * key.n > hw.l3_warm_bytes) && !streamed_by_hardware;
        int64_t in_place = 0;
        for (const Plan& p : enumerate_candidates(key, cls, hw, cfg)) {
          if (p.is_dot() || p.kind == PlanKind::Rows) continue;
          EXPECT_EQ(check_blocked_plan(key, p, cfg), "") << describe(p);
          const bool several_blocks = !p.pack_b && p.kc < key.k;
          in_place += several_blocks;
          EXPECT_EQ(p.prefetch_b, several_blocks && from_dram)
              << m << "x" << n << "x1024 cold " << cold << ": " << describe(p);
        }
        EXPECT_GT(in_place, 0) << "no in-place plan over several depth blocks for " << m << "x"
                               << n;
      }
    }
  }
}

// Row-major problems of `shapes` whose B starts in DRAM (cold keys), over one and two threads:
// fn(shape, threads, key, run), run(plan) executing the plan into a fresh C and giving the
// reference check's message ("" where right).
template <class Fn>
void each_cold_problem(const kernels::IsaKernels& ks, std::initializer_list<Shape> shapes,
                       unsigned seed, Fn fn) {
  ThreadPools pool;
  std::mt19937 rng(seed);
  for (const Shape s : shapes) {
    const Variant v{Layout::RowMajor, Trans::No, Trans::No};
    Inputs in(s, v, rng);
    Stored c0(s.m, s.n, v.layout, s.n, 3);
    c0.fill([](int64_t, int64_t) { return qnan(); });
    const Reference ref = reference_gemm(v.ta, v.tb, s.m, s.n, s.k, 1.0f, in.a, in.b, 0.0f, c0);
    for (int threads : {1, 2}) {
      Stored c = c0;
      GemmProblem prob;
      ASSERT_EQ(make_problem(v.layout, v.ta, v.tb, s.m, s.n, s.k, 1.0f, in.a.data(), in.a.ld(),
                             in.b.data(), in.b.ld(), 0.0f, c.data(), c.ld(), prob),
                Status::Ok);
      ShapeKey key = make_key(prob, ks.isa, threads);
      key.cold = true;
      auto run = [&](const Plan& p) -> std::string {
        c = c0;
        prob.c = c.data();
        const Status st = execute(p, prob, ks, pool(p.threads()));
        return st == Status::Ok ? check_result(c, ref) : to_string(st);
      };
      fn(s, threads, key, run);
    }
  }
}

// In-place B read ahead through the tiles in column blocks narrower than C (Plan::nc): offered
// where the core's whole width at that depth would not leave the next block in half of L2 (here
// a profile of a 64 KiB L2, so that small shapes get them), and right, including the read-ahead
// of the next column block's first depth block, a last column block narrower than the others
// and a last depth block shorter than kc.
TEST_P(Plans, ReadAheadColumnBlocksFitHalfOfL2) {
  HardwareProfile hw = detected_hardware();
  hw.l2_bytes = 64 * 1024;
  const Isa isa = GetParam();
  ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa);
  const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
  const TypeConfig cfg = type_config(ks, hw);
  if (!cfg.prefetch_b) return;  // no read-ahead on this path: no narrow blocks to offer
  int64_t narrow = 0;
  each_cold_problem(ks, {Shape{8, 300, 700}, Shape{16, 250, 530}, Shape{3, 400, 300}}, 31,
                    [&](const Shape& s, int threads, const ShapeKey& key, auto& run) {
                      for (const Plan& p : all_candidates(key, hw, ks)) {
                        if (p.is_dot() || p.kind == PlanKind::Rows || p.pack_b ||
                            p.nc >= core_share(s.n, p.nr, p.pn))
                          continue;
                        ++narrow;
                        EXPECT_TRUE(p.prefetch_b) << describe(p);
                        EXPECT_LE(p.kc * p.nc * 4, hw.l2_bytes / 2) << describe(p);
                        EXPECT_EQ(check_blocked_plan(key, p, cfg), "") << describe(p);
                        EXPECT_EQ(run(p), "") << s.m << "x" << s.n << "x" << s.k << " threads "
                                              << threads << " [" << describe(p) << "]";
                      }
                    });
  std::printf("[ plans    ] %s: %lld plans in column blocks narrower than a core's columns\n",
              to_string(isa), static_cast<long long>(narrow));
  EXPECT_GT(narrow, 0);
}

// In-place B read ahead (Plan::prefetch_b) by column tiles: column blocks of more tiles than
// kReadAheadTiles (the tile that many on), as many or fewer (the next depth block's), a depth
// with a remainder block and column blocks with a narrow last tile, over one and two cores:
// every answer the reference's (the read-ahead only asks for lines, inside B).
TEST_P(Plans, ReadAheadByColumnTilesGivesTheReference) {
  const HardwareProfile& hw = detected_hardware();
  const Isa isa = GetParam();
  ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa);
  const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
  const TypeConfig cfg = type_config(ks, hw);
  if (!cfg.prefetch_b) return;  // no read-ahead on this path
  int64_t ran = 0;
  each_cold_problem(ks, {Shape{8, 700, 900}, Shape{13, 333, 259}}, 37,
                    [&](const Shape& s, int threads, const ShapeKey& key, auto& run) {
                      for (Plan p : all_candidates(key, hw, ks)) {
                        if (p.is_dot() || p.kind == PlanKind::Rows || p.pack_b || !p.prefetch_b)
                          continue;
                        for (const int64_t tiles :
                             {int64_t{2}, kReadAheadTiles, kReadAheadTiles + 3, int64_t{64}}) {
                          for (const int64_t kc : {int64_t{64}, int64_t{128}}) {
                            p.nc = tiles * p.nr - 5, p.kc = kc;
                            if (!check_blocked_plan(key, p, cfg).empty()) continue;
                            ++ran;
                            EXPECT_EQ(run(p), "") << s.m << "x" << s.n << "x" << s.k << " threads "
                                                  << threads << " [" << describe(p) << "]";
                          }
                        }
                      }
                    });
  EXPECT_GT(ran, 0);
}

// Transposed plans that the small-problem executor runs (op(A)^T packed on its stack, or read
// in place where A is stored transposed) give the executor's bits and the reference's answer;
// C dense and padded, beta zero (C full of NaN) and not.
TEST_P(Plans, TransposedPlansOnTheSmallExecutorMatchTheExecutor) {
  const HardwareProfile& hw = detected_hardware();
  const Isa isa = GetParam();
  ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa);
  const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
  ThreadPool pool(1);
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  constexpr Shape kSmall[] = {{40, 3, 5},   {133, 4, 5}, {100, 1, 7}, {64, 8, 3},
                              {200, 2, 20}, {17, 5, 60}, {50, 11, 6}, {33, 14, 9}};
  int ran = 0;
  for (std::size_t si = 0; si < std::size(kSmall); ++si) {
    const Shape s = kSmall[si];
    for (const Variant v : kVariants) {
      const bool row = v.layout == Layout::RowMajor;
      Inputs in(s, v, rng);
      Stored c0(s.m, s.n, v.layout, (row ? s.n : s.m) + (si % 2 ? 0 : 3), 1);
      const float beta = si % 3 == 0 ? 0.0f : 0.75f;
      c0.fill([&](int64_t, int64_t) { return beta == 0.0f ? qnan() : u(rng); });
      const Reference ref = reference_gemm(v.ta, v.tb, s.m, s.n, s.k, -1.5f, in.a, in.b, beta, c0);
      Stored c = c0;
      GemmProblem prob;
      ASSERT_EQ(make_problem(v.layout, v.ta, v.tb, s.m, s.n, s.k, -1.5f, in.a.data(), in.a.ld(),
                             in.b.data(), in.b.ld(), beta, c.data(), c.ld(), prob),
                Status::Ok);
      for (const Plan& plan : all_candidates(make_key(prob, isa, 1), hw, ks)) {
        const std::optional<SmallPlan> sp = small_plan(plan, prob, ks);
        if (!plan.transpose_c || !sp) continue;
        ASSERT_TRUE(sp->transposed);
        c = c0;
        prob.c = c.data();
        ASSERT_EQ(execute(plan, prob, ks, pool), Status::Ok);
        const std::vector<float> by_executor = c.memory();
        c = c0;
        run_small(SmallPlan::decode(sp->encode()), prob, ks);
        EXPECT_EQ(check_result(c, ref), "")
            << s.m << "x" << s.n << "x" << s.k << " " << name(v.layout) << name(v.ta) << name(v.tb)
            << " [" << describe(plan) << "]";
        EXPECT_TRUE(same_bits(c.memory(), by_executor)) << describe(plan);
        ++ran;
      }
    }
  }
  const auto& tiles = ks.tiles;
  if (std::any_of(tiles.begin(), tiles.end(),
                  [](const kernels::TileKernels& t) { return t.has_transposed_store(); }))
    EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(AllIsas, Plans, ::testing::Values(Isa::Generic, Isa::Avx2, Isa::Avx512),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace adaptcore::test
