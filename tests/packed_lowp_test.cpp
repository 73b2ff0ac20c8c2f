// Prepacked bf16 and int8 weights (pack_weights from bf16 / s8, gemm_packed with bf16 / u8 / s8
// activations): every candidate plan on the panels of every bf16 table (native and converted)
// against the double-precision reference of the bf16 operands; the public calls over random
// shapes with an fp32 and a bf16 C, with post-ops, on every ISA and thread count; int8 with zero
// points, s8 A, a C offset and post-ops against the exact int64 result; the errors and the C API.
#include <gtest/gtest.h>

#include <cstring>

#include "adaptcore/adaptcore.h"
#include "amx_model_table.hpp"
#include "core/int_math.hpp"
#include "core/packed_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor_lowp.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/registry.hpp"
#include "plan/candidates.hpp"
#include "plan/type_config.hpp"
#include "test_util.hpp"
#include "thread_pools.hpp"

namespace adaptcore::test {
namespace {

float bf16_round(float x) { return bf16_to_float(float_to_bf16(x)); }

// A matrix of bf16-representable values (Stored, fp32) and its bf16 copy, same layout.
struct Bf16Matrix {
  Stored f;
  std::vector<bf16> h;
  Bf16Matrix(int64_t r, int64_t c, Layout layout, int64_t ld, std::mt19937& rng)
      : f(r, c, layout, ld, 1) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    f.fill([&](int64_t, int64_t) { return bf16_round(u(rng)); });
    h.resize(f.memory().size());
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = bf16(f.memory()[i]);
  }
  const bf16* data() const { return h.data() + (f.data() - f.memory().data()); }
};

// The bf16 tables this CPU runs: the converted one of every path, the native one where the CPU
// has AVX512-BF16, and the AMX tile through its model.
std::vector<const kernels::LowpKernels*> bf16_tables() {
  std::vector<const kernels::LowpKernels*> out;
  const HardwareProfile& hw = detected_hardware();
  for (const Isa isa : available_isas())
    if (const auto* t = kernels::lowp_kernels_for(DType::Bf16, isa))
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  // The converted table of the avx512 level, which a best level above it does not run.
  if (hw.supports(Isa::Avx512))
    if (const auto* t = kernels::lowp_kernels_for(DType::Bf16, Isa::Avx512))
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  // The AMX tile on its scalar model, on every host: its plans on the padded panels.
  out.push_back(&model_engine_kernels(DType::Bf16));
  return out;
}

TEST(PackedBf16, EveryCandidateIsCorrect) {
  struct Shape {
    int64_t m, n, k;
  };
  constexpr Shape kShapes[] = {{1, 1, 1},       {1, 37, 64},  {5, 17, 33},  {16, 32, 256},
                               {17, 33, 301},   {3, 70, 700}, {8, 8, 3001}, {2, 200, 2500},
                               {100, 101, 129}, {37, 150, 5}, {133, 2, 3},  {2, 9, 1}};
  const HardwareProfile& hw = detected_hardware();
  ThreadPools pool;
  std::mt19937 rng(12);
  int64_t executed = 0, failures = 0;
  for (const kernels::LowpKernels* lk : bf16_tables()) {
    const TypeConfig cfg = type_config(*lk, hw);
    std::vector<int> widths;
    for (const kernels::LowpTile& t : lk->tiles)
      if (std::find(widths.begin(), widths.end(), t.nr) == widths.end()) widths.push_back(t.nr);
    for (const Shape s : kShapes)
      for (const int nr : widths) {
        const Bf16Matrix b(s.k, s.n, Layout::RowMajor, s.n + 3, rng);
        // The handle's layout: panel by panel, each lowp_panel_depth words deep (zero below).
        const int64_t rows = lowp_panel_depth(s.k, lk->group), cols = round_up(s.n, int64_t{nr});
        std::vector<std::uint32_t> panels(static_cast<std::size_t>(rows * cols), 0u);
        for (int64_t j = 0; j < s.n; j += nr)
          lk->pack_b(s.k, std::min<int64_t>(nr, s.n - j), b.data() + j, b.f.ld(), 1, nr, 0u,
                     panels.data() + j * rows, nullptr);
        for (const Trans ta : {Trans::No, Trans::Yes}) {
          const int64_t ar = transposed(ta) ? s.k : s.m, ac = transposed(ta) ? s.m : s.k;
          const Bf16Matrix a(ar, ac, Layout::RowMajor, ac + 1, rng);
          Stored c0(s.m, s.n, Layout::RowMajor, s.n + 2, 0);
          std::uniform_real_distribution<float> u(-1.0f, 1.0f);
          const float alpha = 0.75f, beta = ta == Trans::No ? 0.0f : 1.5f;
          c0.fill([&](int64_t, int64_t) { return beta == 0.0f ? qnan() : u(rng); });
          const Reference ref =
              reference_gemm(ta, Trans::No, s.m, s.n, s.k, alpha, a.f, b.f, beta, c0);
          for (const int threads : {1, 2, 3}) {
            LowpProblem g = packed_lowp_problem(LowpKind::Bf16F32, s.m, s.n, s.k, transposed(ta),
                                                a.f.ld(), c0.ld(), nr);
            g.a.ptr = a.data(), g.b.ptr = panels.data();
            g.alpha = alpha, g.beta = beta;
            for (const bool cold : {false, true}) {
              ShapeKey key = make_key(g, lk->isa, threads);
              key.cold = cold;
              std::vector<Plan> plans;
              for (auto par :
                   {ParallelClass::Serial, ParallelClass::ManyTiles, ParallelClass::FewTiles})
                for (const Plan& p :
                     enumerate_candidates(key, ShapeClass{CapacityClass::L2, par}, hw, cfg))
                  plans.push_back(p);
              ASSERT_FALSE(plans.empty()) << s.m << "x" << s.n << "x" << s.k << " nr " << nr;
              for (const Plan& plan : plans) {
                EXPECT_TRUE(!plan.pack_b && plan.nr == nr && plan.kind == PlanKind::Blocked)
                    << describe(plan);
                Stored c = c0;
                g.c = c.data();
                const Status st = execute(plan, g, *lk, pool(plan.threads()));
                const std::string err = st == Status::Ok ? check_result(c, ref) : to_string(st);
                ++executed;
                if (!err.empty() && ++failures <= 10)
                  ADD_FAILURE() << s.m << "x" << s.n << "x" << s.k << " " << lk->name << " nr "
                                << nr << " T" << name(ta) << " threads " << threads << " plan ["
                                << describe(plan) << "]:" << err;
              }
            }
          }
        }
      }
  }
  EXPECT_GT(executed, 300);
}

// The public calls: one handle, several M, fp32 and bf16 C, a post-op list, every ISA and 1-3
// threads; the handle's size.
TEST(PackedBf16, RandomShapesThroughTheApi) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int64_t> dim(1, 300);
  int failures = 0;
  for (auto& cfg : all_configs())
    for (int round = 0; round < 6; ++round) {
      const int64_t k = dim(rng), n = dim(rng);
      const Layout layout = round % 2 ? Layout::ColMajor : Layout::RowMajor;
      const Trans tb = round % 3 ? Trans::No : Trans::Yes;
      const bool row = layout == Layout::RowMajor;
      const int64_t br = transposed(tb) ? n : k, bc = transposed(tb) ? k : n;
      const Bf16Matrix b(br, bc, layout, (row ? bc : br) + 1, rng);
      PackedWeights w;
      ASSERT_EQ(pack_weights(layout, tb, k, n, b.data(), b.f.ld(), w, {}, *cfg.ctx), Status::Ok);
      ASSERT_TRUE(w.holds_bf16());
      const kernels::LowpKernels* lk = detail::impl_of(w)->lowp;
      EXPECT_EQ(
          w.packed_bytes(),
          static_cast<std::size_t>(
              (lowp_panel_depth(k, lk->group) * round_up(n, int64_t{w.panel_cols()}) * 4 + 63) /
              64 * 64));
      // op(B) as a plain row-major matrix for the reference.
      Stored bref(k, n, Layout::RowMajor, n, 0);
      bref.fill([&](int64_t p, int64_t j) { return op_at(b.f, tb, p, j); });
      for (const int64_t m : {int64_t{1}, int64_t{4}, dim(rng)})
        for (const bool c_bf16 : {false, true}) {
          const Trans ta = m % 2 ? Trans::No : Trans::Yes;
          const int64_t ar = transposed(ta) ? k : m, ac = transposed(ta) ? m : k;
          const Bf16Matrix a(ar, ac, Layout::RowMajor, ac + 2, rng);
          std::vector<float> bias(static_cast<std::size_t>(n));
          for (auto& x : bias) x = static_cast<float>(rng() % 7) * 0.125f;
          const PostOp ops[] = {{PostOpKind::Bias, bias.data()}, {PostOpKind::Relu}};
          CallOptions o;
          o.post_ops = ops;
          o.post_op_count = 2;
          Stored c0(m, n, Layout::RowMajor, n + 1, 0);
          c0.fill([&](int64_t, int64_t) { return bf16_round(0.5f); });
          Reference ref = reference_gemm(ta, Trans::No, m, n, k, 1.0f, a.f, bref, 0.5f, c0);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double& v = ref.ref[static_cast<std::size_t>(i * n + j)];
              v = std::max(v + bias[static_cast<std::size_t>(j)], 0.0);
              if (c_bf16)
                ref.bound[static_cast<std::size_t>(i * n + j)] += std::ldexp(std::fabs(v), -8);
            }
          Stored c = c0;
          Status st;
          if (!c_bf16) {
            st = gemm_packed(Layout::RowMajor, ta, m, 1.0f, a.data(), a.f.ld(), w, 0.5f, c.data(),
                             c.ld(), o, *cfg.ctx);
          } else {
            std::vector<bf16> c16(c.memory().size());
            for (std::size_t i = 0; i < c16.size(); ++i) c16[i] = bf16(c.memory()[i]);
            st = gemm_packed(Layout::RowMajor, ta, m, 1.0f, a.data(), a.f.ld(), w, 0.5f,
                             c16.data() + (c.data() - c.memory().data()), c.ld(), o, *cfg.ctx);
            for (std::size_t i = 0; i < c16.size(); ++i)
              if (!is_sentinel(c.memory()[i]) || c16[i].bits != bf16(sentinel()).bits)
                c.memory()[i] = static_cast<float>(c16[i]);
          }
          const std::string err = st == Status::Ok ? check_result(c, ref) : to_string(st);
          if (!err.empty() && ++failures <= 10)
            ADD_FAILURE() << cfg.name() << " " << m << "x" << n << "x" << k << " "
                          << (c_bf16 ? "bf16" : "f32") << " C:" << err;
        }
    }
}

TEST(PackedBf16, Errors) {
  Context ctx;
  const int64_t k = 8, n = 8;
  std::vector<bf16> b(k * n, bf16(1.0f)), a(k, bf16(1.0f));
  std::vector<float> bf(k * n, 1.0f), af(k, 1.0f), c(n, 0.0f);
  PackedWeights w16, w32;
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, static_cast<const bf16*>(nullptr), n,
                         w16, {}, ctx),
            Status::NullPointer);
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, 0, n, b.data(), n, w16, {}, ctx),
            Status::InvalidDimension);
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b.data(), n - 1, w16, {}, ctx),
            Status::InvalidLeadingDimension);
  PackOptions bad;
  bad.m_values = {0};
  EXPECT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b.data(), n, w16, bad, ctx),
            Status::InvalidArgument);
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b.data(), n, w16, {}, ctx), Status::Ok);
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, bf.data(), n, w32, {}, ctx),
            Status::Ok);
  EXPECT_FALSE(w32.holds_bf16());
  // A handle of the other type.
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 1, 1.0f, af.data(), k, w16, 0.0f, c.data(), n, ctx),
      Status::InvalidArgument);
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 1, 1.0f, a.data(), k, w32, 0.0f, c.data(), n,
                        {}, ctx),
            Status::InvalidArgument);
  // Column-major, a short lda, an empty handle, C over the weights.
  EXPECT_EQ(gemm_packed(Layout::ColMajor, Trans::No, 1, 1.0f, a.data(), k, w16, 0.0f, c.data(), n,
                        {}, ctx),
            Status::InvalidLayout);
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 2, 1.0f, a.data(), k - 1, w16, 0.0f, c.data(),
                        n, {}, ctx),
            Status::InvalidLeadingDimension);
  PackedWeights empty;
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 1, 1.0f, a.data(), k, empty, 0.0f, c.data(), n,
                        {}, ctx),
            Status::NullPointer);
  auto* over = static_cast<float*>(static_cast<void*>(detail::impl_of(w16)->data.get()));
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 1, 1.0f, a.data(), k, w16, 0.0f, over, n, {}, ctx),
      Status::Aliasing);
  // A context of another ISA path (another bf16 table) cannot read the panels.
  if (available_isas().size() > 1) {
    ContextOptions co;
    co.isa = Isa::Generic;
    co.read_environment = false;
    Context other(co);
    if (other.isa() != ctx.isa())
      EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 1, 1.0f, a.data(), k, w16, 0.0f, c.data(),
                            n, {}, other),
                Status::InvalidArgument);
  }
  // m = 0 returns at once.
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 0, 1.0f, a.data(), k, w16, 0.0f, c.data(), n,
                        {}, ctx),
            Status::Ok);
}

TEST(PackedBf16, CApi) {
  const int64_t k = 6, n = 5, m = 2;
  std::vector<std::uint16_t> b(k * n, float_to_bf16(0.5f)), a(m * k, float_to_bf16(1.0f));
  ac_packed_t w = nullptr;
  ASSERT_EQ(
      ac_pack_weights_bf16(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, nullptr, nullptr, 0, &w),
      AC_STATUS_OK);
  std::vector<float> c(m * n, 0.0f);
  ASSERT_EQ(ac_gemm_packed_bf16bf16f32(AC_ROW_MAJOR, AC_NO_TRANS, m, 1.0f, a.data(), k, w, 0.0f,
                                       c.data(), n, nullptr, 0),
            AC_STATUS_OK);
  for (const float x : c) EXPECT_EQ(x, 3.0f);
  std::vector<std::uint16_t> c16(m * n, 0);
  const float bias[] = {1, 1, 1, 1, 1};
  const ac_post_op op{AC_POST_BIAS, bias, 0, nullptr, AC_OUT_F32};
  ASSERT_EQ(ac_gemm_packed_bf16bf16bf16(AC_ROW_MAJOR, AC_NO_TRANS, m, 1.0f, a.data(), k, w, 0.0f,
                                        c16.data(), n, &op, 1),
            AC_STATUS_OK);
  for (const std::uint16_t x : c16) EXPECT_EQ(bf16_to_float(x), 4.0f);
  // An fp32 call on the bf16 handle.
  std::vector<float> af(m * k, 1.0f);
  EXPECT_EQ(ac_gemm_packed(AC_ROW_MAJOR, AC_NO_TRANS, m, 1.0f, af.data(), k, w, 0.0f, c.data(), n),
            AC_STATUS_INVALID_ARGUMENT);
  ac_packed_destroy(w);
}

// int8 weights: u8 and s8 activations with zero points of A (per row: needs the handle's
// column sums) and of B, beta, a C offset and a post-op list ending in an fp32 Store, on every
// ISA and thread count and several M, against the exact int64 result.
TEST(PackedInt8, RandomShapesThroughTheApi) {
  std::mt19937 rng(14);
  std::uniform_int_distribution<int64_t> dim(1, 200);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  int failures = 0, calls = 0;
  for (auto& cfg : all_configs())
    for (int round = 0; round < 4; ++round) {
      const int64_t k = dim(rng), n = dim(rng);
      const Trans tb = round % 2 ? Trans::Yes : Trans::No;
      const int64_t ldb = (tb == Trans::Yes ? k : n) + 3;
      std::vector<std::int8_t> b(static_cast<std::size_t>((tb == Trans::Yes ? n : k) * ldb));
      for (auto& x : b) x = static_cast<std::int8_t>(s8(rng));
      auto b_at = [&](int64_t p, int64_t j) {
        return b[static_cast<std::size_t>(tb == Trans::Yes ? j * ldb + p : p * ldb + j)];
      };
      PackedWeights w;
      ASSERT_EQ(pack_weights(Layout::RowMajor, tb, k, n, b.data(), ldb, w, {}, *cfg.ctx),
                Status::Ok);
      ASSERT_TRUE(w.holds_int8());
      for (const int64_t m : {int64_t{1}, int64_t{5}, dim(rng)})
        for (const bool signed_a : {false, true}) {
          const int64_t lda = k + 1;
          std::vector<std::uint8_t> a(static_cast<std::size_t>(m * lda));
          for (auto& x : a) x = static_cast<std::uint8_t>(u8(rng));
          std::vector<std::int32_t> za(static_cast<std::size_t>(m)), zb(1, s8(rng) / 8);
          for (auto& x : za) x = u8(rng) / 4 - 32;
          std::vector<std::int32_t> off(static_cast<std::size_t>(n));
          for (auto& x : off) x = s8(rng);
          const int64_t ldc = n + 2;
          std::vector<std::int32_t> c(static_cast<std::size_t>(m * ldc), 3);
          std::vector<float> out(static_cast<std::size_t>(m * n), 0.0f),
              scale(static_cast<std::size_t>(n));
          for (auto& x : scale) x = 1e-3f * static_cast<float>(1 + rng() % 5);
          const PostOp ops[] = {{PostOpKind::Scale, scale.data()},
                                {PostOpKind::Store, nullptr, n, out.data(), OutputType::F32}};
          CallOptions o;
          o.post_ops = ops;
          o.post_op_count = 2;
          const ZeroPoints a_zp{za.data(), m}, b_zp{zb.data(), 1};
          const COffset co{OffsetKind::PerColumn, off.data()};
          const Status st = signed_a
                                ? gemm_packed(Layout::RowMajor, Trans::No, m,
                                              reinterpret_cast<const std::int8_t*>(a.data()), lda,
                                              a_zp, w, b_zp, 2, c.data(), ldc, co, o, *cfg.ctx)
                                : gemm_packed(Layout::RowMajor, Trans::No, m, a.data(), lda, a_zp,
                                              w, b_zp, 2, c.data(), ldc, co, o, *cfg.ctx);
          ++calls;
          std::string err = st == Status::Ok ? "" : to_string(st);
          for (int64_t i = 0; i < m && err.empty(); ++i)
            for (int64_t j = 0; j < n && err.empty(); ++j) {
              int64_t ref = 2 * 3 + off[static_cast<std::size_t>(j)];
              for (int64_t p = 0; p < k; ++p) {
                const std::uint8_t byte = a[static_cast<std::size_t>(i * lda + p)];
                const int64_t av = signed_a ? static_cast<std::int8_t>(byte) : byte;
                ref += (av - za[static_cast<std::size_t>(i)]) * (b_at(p, j) - zb[0]);
              }
              const auto want = static_cast<std::int32_t>(static_cast<std::uint32_t>(ref));
              const std::int32_t got = c[static_cast<std::size_t>(i * ldc + j)];
              const double fo = out[static_cast<std::size_t>(i * n + j)];
              const double fref = static_cast<double>(want) * scale[static_cast<std::size_t>(j)];
              if (got != want)
                err = " C(" + std::to_string(i) + "," + std::to_string(j) +
                      ")=" + std::to_string(got) + " want " + std::to_string(want);
              else if (!(std::fabs(fo - fref) <= 1e-6 * std::fabs(fref) + 1e-6))
                err = " out(" + std::to_string(i) + "," + std::to_string(j) +
                      ")=" + std::to_string(fo) + " want " + std::to_string(fref);
            }
          if (!err.empty() && ++failures <= 10)
            ADD_FAILURE() << cfg.name() << " " << m << "x" << n << "x" << k
                          << (signed_a ? " s8" : " u8") << " A:" << err;
        }
    }
  EXPECT_GT(calls, 50);
  // A bf16 or fp32 call on the int8 handle, and an int8 call on a bf16 one.
  Context ctx;
  std::vector<std::int8_t> b8(64, 1);
  std::vector<bf16> b16(64, bf16(1.0f));
  PackedWeights w8, w16;
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, 8, 8, b8.data(), 8, w8, {}, ctx), Status::Ok);
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, 8, 8, b16.data(), 8, w16, {}, ctx),
            Status::Ok);
  std::vector<std::uint8_t> a8(8, 1);
  std::vector<bf16> a16(8, bf16(1.0f));
  std::vector<float> af(8, 1.0f), cf(8);
  std::vector<std::int32_t> c32(8);
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 1, 1.0f, a16.data(), 8, w8, 0.0f, cf.data(), 8,
                        {}, ctx),
            Status::InvalidArgument);
  EXPECT_EQ(
      gemm_packed(Layout::RowMajor, Trans::No, 1, 1.0f, af.data(), 8, w8, 0.0f, cf.data(), 8, ctx),
      Status::InvalidArgument);
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 1, a8.data(), 8, {}, w16, {}, 0, c32.data(), 8,
                        {}, {}, ctx),
            Status::InvalidArgument);
  const std::int32_t z[2] = {1, 2};
  EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 1, a8.data(), 8, ZeroPoints{z, 2}, w8, {}, 0,
                        c32.data(), 8, {}, {}, ctx),
            Status::InvalidArgument);  // 2 zero points for 1 row
  ASSERT_EQ(gemm_packed(Layout::RowMajor, Trans::No, 1, a8.data(), 8, {}, w8, {}, 0, c32.data(), 8,
                        {}, {}, ctx),
            Status::Ok);
  for (const std::int32_t x : c32) EXPECT_EQ(x, 8);
  // The C API, with a zero point of A (2 - 1) * 1 * 8 = 8, plus a fixed offset.
  ac_packed_t h = nullptr;
  ASSERT_EQ(
      ac_pack_weights_s8(AC_ROW_MAJOR, AC_NO_TRANS, 8, 8, b8.data(), 8, nullptr, nullptr, 0, &h),
      AC_STATUS_OK);
  std::vector<std::uint8_t> a2(8, 2);
  const std::int32_t one = 1, ten = 10;
  ASSERT_EQ(ac_gemm_packed_u8s8s32(AC_ROW_MAJOR, AC_NO_TRANS, 1, a2.data(), 8, &one, 1, h, nullptr,
                                   0, 0, c32.data(), 8, AC_OFFSET_FIXED, &ten, nullptr, 0),
            AC_STATUS_OK);
  for (const std::int32_t x : c32) EXPECT_EQ(x, 18);
  EXPECT_EQ(
      ac_gemm_packed_u8s8s32(AC_ROW_MAJOR, AC_NO_TRANS, 1, a2.data(), 8, nullptr, 0, nullptr,
                             nullptr, 0, 0, c32.data(), 8, AC_OFFSET_NONE, nullptr, nullptr, 0),
      AC_STATUS_NULL_POINTER);
  ac_packed_destroy(h);
}

}  // namespace
}  // namespace adaptcore::test
