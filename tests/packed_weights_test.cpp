// Prepacked weights (pack_weights / gemm_packed): every candidate plan on the panels against the
// double-precision reference, the public calls over random shapes on every ISA and thread
// count, the panel-width choice, and every error.
#include <gtest/gtest.h>

#include <set>

#include "adaptcore/adaptcore.h"
#include "core/packed_weights.hpp"
#include "core/problem.hpp"
#include "core/shape_key.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/packed_planning.hpp"
#include "exec/executor.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/registry.hpp"
#include "plan/candidates.hpp"
#include "test_util.hpp"
#include "thread_pools.hpp"

namespace adaptcore::test {
namespace {

// op(B) stored as the layout and transpose say (leading dimension padded), random values.
Stored make_b(int64_t k, int64_t n, Layout layout, Trans tb, std::mt19937& rng) {
  const bool row = layout == Layout::RowMajor;
  const int64_t r = transposed(tb) ? n : k, c = transposed(tb) ? k : n;
  Stored b(r, c, layout, (row ? c : r) + 3, 1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  b.fill([&](int64_t, int64_t) { return u(rng); });
  return b;
}
Stored make_a(int64_t m, int64_t k, Trans ta, std::mt19937& rng) {
  const int64_t r = transposed(ta) ? k : m, c = transposed(ta) ? m : k;
  Stored a(r, c, Layout::RowMajor, c + 1, 2);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  a.fill([&](int64_t, int64_t) { return u(rng); });
  return a;
}

// The element (p, j) of op(B) in the panels of a handle (core/packed_weights.hpp's layout).
TEST(PackedWeights, PanelLayout) {
  std::mt19937 rng(3);
  Context ctx;
  for (const auto& [k, n] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {5, 31}, {7, 33}, {64, 100}, {3, 129}, {300, 17}})
    for (const Trans tb : {Trans::No, Trans::Yes})
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
        const Stored b = make_b(k, n, layout, tb, rng);
        PackedWeights w;
        ASSERT_EQ(pack_weights(layout, tb, k, n, b.data(), b.ld(), w, {}, ctx), Status::Ok);
        ASSERT_TRUE(w.valid());
        EXPECT_EQ(w.k(), k);
        EXPECT_EQ(w.n(), n);
        EXPECT_EQ(w.packed_bytes(), static_cast<std::size_t>((k * n * 4 + 63) / 64 * 64));
        const int nr = w.panel_cols();
        const float* data = detail::impl_of(w)->data.get();
        for (int64_t p = 0; p < k; ++p)
          for (int64_t j = 0; j < n; ++j) {
            const int64_t first = j / nr * nr, width = std::min<int64_t>(nr, n - first);
            ASSERT_EQ(data[first * k + p * width + (j - first)], op_at(b, tb, p, j))
                << k << "x" << n << " (" << p << ", " << j << ") nr " << nr;
          }
      }
}

// Every plan the candidates offer for a prepacked key, run by the executor, on every ISA path
// and 1 to 3 threads: one and several depth blocks and column blocks, split-K, tails in M and N.
TEST(PackedWeights, EveryCandidateIsCorrect) {
  struct Shape {
    int64_t m, n, k;
  };
  constexpr Shape kShapes[] = {{1, 1, 1},        {1, 37, 64},  {5, 17, 33},  {16, 32, 256},
                               {17, 33, 300},    {3, 70, 700}, {8, 8, 3000}, {2, 200, 2500},
                               {100, 101, 129},  {37, 150, 5}, {133, 2, 3},  {70, 130, 19},
                               {300, 1100, 700}, {2, 9, 1},    {4, 1, 1}};
  const HardwareProfile& hw = detected_hardware();
  ThreadPools pool;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int64_t executed = 0, split_k = 0, blocked_n = 0, failures = 0;
  for (const Isa isa : available_isas()) {
    const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
    std::set<int> widths;
    for (const kernels::TileKernels& t : ks.tiles) widths.insert(t.nr);
    for (const Shape s : kShapes)
      for (const int nr : widths) {
        // The large shape (several column blocks of a packed A) on the best path only.
        if (s.m * s.n * s.k > 50'000'000 && isa != available_isas().back()) continue;
        const Stored b = make_b(s.k, s.n, Layout::RowMajor, Trans::No, rng);
        std::vector<float> panels(static_cast<std::size_t>(s.k * s.n));
        pack_weight_panels(ks, s.k, s.n, b.data(), b.ld(), 1, nr, panels.data());
        for (const Trans ta : {Trans::No, Trans::Yes}) {
          const Stored a = make_a(s.m, s.k, ta, rng);
          Stored c0(s.m, s.n, Layout::RowMajor, s.n + 2, 3);
          c0.fill([&](int64_t, int64_t) { return u(rng); });
          const float alpha = 0.75f, beta = ta == Trans::No ? 0.0f : 1.5f;
          if (beta == 0.0f) c0.fill([](int64_t, int64_t) { return qnan(); });
          const Reference ref = reference_gemm(ta, Trans::No, s.m, s.n, s.k, alpha, a, b, beta, c0);
          for (const int threads : {1, 2, 3}) {
            GemmProblem g;
            g.m = s.m, g.n = s.n, g.k = s.k;
            g.a = a.data();
            g.a_rs = transposed(ta) ? 1 : a.ld(), g.a_cs = transposed(ta) ? a.ld() : 1;
            if (s.m == 1) g.a_rs = 1;
            if (s.k == 1) g.a_cs = 1;
            g.b = panels.data(), g.b_rs = nr, g.b_cs = 1, g.b_panel_nr = nr;
            g.alpha = alpha, g.beta = beta, g.ldc = c0.ld();
            for (const bool cold : {false, true}) {
              ShapeKey key = make_key(g, isa, threads);
              key.cold = cold;
              std::vector<Plan> plans;
              for (auto par :
                   {ParallelClass::Serial, ParallelClass::ManyTiles, ParallelClass::FewTiles}) {
                ShapeClass cls{CapacityClass::L2, par};
                for (const Plan& p : enumerate_candidates(key, cls, hw, type_config(ks, hw)))
                  plans.push_back(p);
              }
              ASSERT_FALSE(plans.empty()) << s.m << "x" << s.n << "x" << s.k << " nr " << nr;
              for (const Plan& plan : plans) {
                EXPECT_TRUE(!plan.pack_b && plan.nr == nr && plan.kind == PlanKind::Blocked &&
                            !plan.transpose_c && !plan.prefetch_b)
                    << describe(plan);
                Stored c = c0;
                g.c = c.data();
                const Status st = execute(plan, g, ks, pool(plan.threads()));
                const std::string err = st == Status::Ok ? check_result(c, ref) : to_string(st);
                ++executed;
                split_k += plan.pk > 1;
                blocked_n += plan.nc < s.n && plan.pn == 1;
                if (!err.empty() && ++failures <= 10)
                  ADD_FAILURE() << s.m << "x" << s.n << "x" << s.k << " " << to_string(isa)
                                << " nr " << nr << " T" << name(ta) << " threads " << threads
                                << " plan [" << describe(plan) << "]:" << err;
              }
            }
          }
        }
      }
  }
  EXPECT_GT(executed, 500);
  EXPECT_GT(split_k, 0) << "no split-K plan was exercised";
  EXPECT_GT(blocked_n, 0) << "no plan over several column blocks was exercised";
}

// The public calls: one handle, several M, random shapes and options, every ISA and 1-3 threads.
TEST(PackedWeights, RandomShapesThroughTheApi) {
  std::mt19937 rng(5);
  auto dim = [&](int64_t hi) {
    return static_cast<int64_t>(
        std::exp(std::uniform_real_distribution<double>(0.0, std::log(hi))(rng)));
  };
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int failures = 0;
  for (auto& cfg : all_configs()) {
    for (int shape = 0; shape < 12 && failures < 10; ++shape) {
      const int64_t k = dim(900), n = dim(700);
      const Layout bl = rng() % 2 ? Layout::RowMajor : Layout::ColMajor;
      const Trans tb = rng() % 2 ? Trans::No : Trans::Yes;
      const Stored b = make_b(k, n, bl, tb, rng);
      PackOptions o;
      if (shape % 3 == 1) o.m_values = {1, 2, 4};
      if (shape % 3 == 2) o.m_values = {256, 1024}, o.m_weights = {1.0, 3.0};
      PackedWeights w;
      ASSERT_EQ(pack_weights(bl, tb, k, n, b.data(), b.ld(), w, o, *cfg.ctx), Status::Ok);
      for (const int64_t m : {int64_t{0}, int64_t{1}, dim(40), dim(600)}) {
        const Trans ta = rng() % 2 ? Trans::No : Trans::Yes;
        const Stored a = make_a(m, k, ta, rng);
        Stored c0(m, n, Layout::RowMajor, n + static_cast<int64_t>(rng() % 3), 1);
        c0.fill([&](int64_t, int64_t) { return u(rng); });
        const float alpha = (m % 3 == 0) ? 1.0f : -0.5f;
        const float beta = (m % 2 == 0) ? 0.0f : 0.25f;
        if (beta == 0.0f) c0.fill([](int64_t, int64_t) { return qnan(); });
        const Reference ref = reference_gemm(ta, tb, m, n, k, alpha, a, b, beta, c0);
        for (const Residency r : {Residency::Memory, Residency::Cached}) {
          Stored c = c0;
          CallOptions co;
          co.residency = r;
          const Status st = gemm_packed(Layout::RowMajor, ta, m, alpha, a.data(), a.ld(), w, beta,
                                        c.data(), c.ld(), co, *cfg.ctx);
          const std::string err = st == Status::Ok ? check_result(c, ref) : to_string(st);
          if (!err.empty() && ++failures <= 10) {
            GemmProblem g;
            (void)make_packed_problem(Layout::RowMajor, ta, m, alpha, a.data(), a.ld(), w, beta,
                                      c.data(), c.ld(), g);
            auto& impl = detail::impl_of(*cfg.ctx);
            ADD_FAILURE() << cfg.name() << " " << m << "x" << n << "x" << k << " nr "
                          << w.panel_cols() << " plan ["
                          << describe(impl.plan_for(impl.key_for(g, r == Residency::Memory)))
                          << "]:" << err;
          }
        }
      }
    }
  }
}

// The panel width is one of the path's tile widths, chosen by the model for the expected rows.
TEST(PackedWeights, PanelWidthIsATileOfThePath) {
  std::mt19937 rng(9);
  for (auto& cfg : all_configs()) {
    const kernels::IsaKernels& ks = *kernels::kernels_for(cfg.isa);
    const Stored b = make_b(512, 1024, Layout::RowMajor, Trans::No, rng);
    for (const std::vector<int64_t>& rows :
         {std::vector<int64_t>{1}, std::vector<int64_t>{1024}, std::vector<int64_t>{}}) {
      PackOptions o;
      o.m_values = rows;
      PackedWeights w;
      ASSERT_EQ(
          pack_weights(Layout::RowMajor, Trans::No, 512, 1024, b.data(), b.ld(), w, o, *cfg.ctx),
          Status::Ok);
      bool found = false;
      for (const kernels::TileKernels& t : ks.tiles) found |= t.nr == w.panel_cols();
      EXPECT_TRUE(found) << cfg.name() << " nr " << w.panel_cols();
      EXPECT_EQ(w.isa(), cfg.ctx->isa());
    }
  }
}

TEST(PackedWeights, Errors) {
  Context ctx;
  std::vector<float> b(64 * 64, 1.0f), a(64 * 64, 1.0f), c(64 * 64, 0.0f);
  PackedWeights w;
  // Packing: layout, transpose, dimensions, options, leading dimension, null pointer.
  EXPECT_EQ(pack_weights(static_cast<Layout>(7), Trans::No, 8, 8, b.data(), 8, w, {}, ctx),
            Status::InvalidLayout);
  EXPECT_EQ(pack_weights(Layout::RowMajor, static_cast<Trans>(7), 8, 8, b.data(), 8, w, {}, ctx),
            Status::InvalidTranspose);
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, 0, 8, b.data(), 8, w, {}, ctx),
            Status::InvalidDimension);
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, 8, -1, b.data(), 8, w, {}, ctx),
            Status::InvalidDimension);
  for (const PackOptions& bad :
       {PackOptions{{0}, {}}, PackOptions{{4, 8}, {1.0}}, PackOptions{{4}, {-1.0}},
        PackOptions{{4}, {std::nan("")}}, PackOptions{{4, 8}, {0.0, 0.0}}})
    EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, 8, 8, b.data(), 8, w, bad, ctx),
              Status::InvalidArgument);
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, 8, 8, b.data(), 7, w, {}, ctx),
            Status::InvalidLeadingDimension);
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, 8, 8, static_cast<const float*>(nullptr), 8,
                         w, {}, ctx),
            Status::NullPointer);
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, int64_t{1} << 62, 8, b.data(), 8, w, {}, ctx),
            Status::SizeOverflow);
  EXPECT_FALSE(w.valid());
  // An empty handle.
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, a.data(), 8, w, 0.0f, c.data(), 8, ctx),
      Status::NullPointer);
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, 8, 16, b.data(), 16, w, {}, ctx), Status::Ok);
  EXPECT_EQ(
      gemm_packed(Layout::ColMajor, Trans::No, 4, 1.0f, a.data(), 8, w, 0.0f, c.data(), 16, ctx),
      Status::InvalidLayout);
  EXPECT_EQ(gemm_packed(Layout::RowMajor, static_cast<Trans>(0), 4, 1.0f, a.data(), 8, w, 0.0f,
                        c.data(), 16, ctx),
            Status::InvalidTranspose);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, -1, 1.0f, a.data(), 8, w, 0.0f, c.data(), 16, ctx),
      Status::InvalidDimension);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, a.data(), 7, w, 0.0f, c.data(), 16, ctx),
      Status::InvalidLeadingDimension);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, a.data(), 8, w, 0.0f, c.data(), 15, ctx),
      Status::InvalidLeadingDimension);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, nullptr, 8, w, 0.0f, c.data(), 16, ctx),
      Status::NullPointer);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, a.data(), 8, w, 0.0f, nullptr, 16, ctx),
      Status::NullPointer);
  // C over A.
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, a.data(), 16, w, 0.0f, a.data() + 8,
                        16, ctx),
            Status::Aliasing);
  // C over the weights themselves.
  float* panels = const_cast<float*>(detail::impl_of(w)->data.get());
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, a.data(), 8, w, 0.0f, panels, 16, ctx),
      Status::Aliasing);
  CallOptions bad_residency;
  bad_residency.residency = static_cast<Residency>(9);
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 4, 1.0f, a.data(), 8, w, 0.0f, c.data(), 16,
                        bad_residency, ctx),
            Status::InvalidArgument);
  // alpha == 0 reads neither A nor the weights; m == 0 nothing.
  std::fill(c.begin(), c.end(), 2.0f);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 4, 0.0f, nullptr, 8, w, 0.5f, c.data(), 16, ctx),
      Status::Ok);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 0, 1.0f, nullptr, 8, w, 0.0f, nullptr, 16, ctx),
      Status::Ok);
}

TEST(PackedWeights, HandleIsMoveOnly) {
  static_assert(!std::is_copy_constructible_v<PackedWeights>);
  static_assert(std::is_nothrow_move_constructible_v<PackedWeights>);
  std::vector<float> b(32 * 48, 0.5f);
  PackedWeights w;
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, 32, 48, b.data(), 48, w), Status::Ok);
  PackedWeights moved = std::move(w);
  EXPECT_FALSE(w.valid());  // NOLINT(bugprone-use-after-move): the documented moved-from state
  EXPECT_EQ(w.k(), 0);
  EXPECT_EQ(w.panel_cols(), 0);
  EXPECT_TRUE(moved.valid());
  EXPECT_EQ(moved.n(), 48);
}

// The C API: handle, hints, the call on the default context and on a context handle, errors.
TEST(PackedWeights, CApi) {
  const int64_t m = 5, n = 40, k = 33;
  std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f), c2(m * n, 0.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
  const int64_t rows[] = {1, 16};
  const double weights[] = {3.0, 1.0};
  ac_packed_t w = nullptr;
  ASSERT_EQ(ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, rows, weights, 2, &w),
            AC_STATUS_OK);
  ASSERT_NE(w, nullptr);
  EXPECT_GT(ac_packed_panel_cols(w), 0);
  EXPECT_EQ(ac_packed_panel_cols(nullptr), 0);
  ASSERT_EQ(ac_gemm_packed(AC_ROW_MAJOR, AC_NO_TRANS, m, 1.0f, a.data(), k, w, 0.0f, c.data(), n),
            AC_STATUS_OK);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0.0;
      for (int64_t p = 0; p < k; ++p) ref += double{a[i * k + p]} * b[p * n + j];
      ASSERT_EQ(c[i * n + j], static_cast<float>(ref)) << i << "," << j;  // small integers: exact
    }
  ac_context* ctx = nullptr;
  ASSERT_EQ(ac_context_create(nullptr, &ctx), AC_STATUS_OK);
  ASSERT_EQ(ac_gemm_packed_ctx(AC_ROW_MAJOR, AC_NO_TRANS, m, 1.0f, a.data(), k, w, 0.0f, c2.data(),
                               n, ctx),
            AC_STATUS_OK);
  EXPECT_EQ(c, c2);
  ac_packed_t w2 = nullptr;
  EXPECT_EQ(ac_pack_weights_ctx(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, nullptr, nullptr, 0,
                                &w2, ctx),
            AC_STATUS_OK);
  EXPECT_NE(w2, nullptr);
  ac_packed_destroy(w2);
  EXPECT_EQ(ac_pack_weights_ctx(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, nullptr, nullptr, 0,
                                &w2, nullptr),
            AC_STATUS_NULL_POINTER);
  EXPECT_EQ(w2, nullptr);
  ac_context_destroy(ctx);
  // Errors: no handle, a bad hint, a NULL handle, column-major.
  EXPECT_EQ(
      ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, nullptr, nullptr, 0, nullptr),
      AC_STATUS_NULL_POINTER);
  ac_packed_t bad = nullptr;
  EXPECT_EQ(
      ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, nullptr, nullptr, 2, &bad),
      AC_STATUS_NULL_POINTER);
  EXPECT_EQ(ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, rows, nullptr, -1, &bad),
            AC_STATUS_INVALID_ARGUMENT);
  const int64_t zero[] = {0};
  EXPECT_EQ(ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, zero, nullptr, 1, &bad),
            AC_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(
      ac_gemm_packed(AC_ROW_MAJOR, AC_NO_TRANS, m, 1.0f, a.data(), k, nullptr, 0.0f, c.data(), n),
      AC_STATUS_NULL_POINTER);
  EXPECT_EQ(ac_gemm_packed(AC_COL_MAJOR, AC_NO_TRANS, m, 1.0f, a.data(), m, w, 0.0f, c.data(), m),
            AC_STATUS_INVALID_LAYOUT);
  ac_packed_destroy(w);
  ac_packed_destroy(nullptr);
}

}  // namespace
}  // namespace adaptcore::test
