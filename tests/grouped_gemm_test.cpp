// Grouped GEMM for Mixture-of-Experts (gemm_grouped): random expert counts with zero and
// extreme rows, with and without gather and scatter, alpha / beta and post-ops, on every ISA
// path and 1-3 threads, against a double-precision reference; the schedule's coverage and
// balance; determinism of the scatter across thread counts; the C API; every error.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "planner/grouped_scheduler.hpp"
#include "test_util.hpp"

namespace adaptcore::test {
namespace {

// One grouped call's operands, dense row-major (leading dimensions padded).
struct Moe {
  int64_t experts = 0, k = 0, n = 0, tokens = 0;
  std::vector<int64_t> rows;          // M_e
  std::vector<std::vector<float>> w;  // k x n per expert
  std::vector<PackedWeights> packed;
  std::vector<const PackedWeights*> handles;
  std::vector<float> a;  // a_rows x lda
  // bf16 experts (make_moe's `half`): weights and activations rounded to bf16, a16 A's copy.
  bool half = false;
  std::vector<bf16> a16;
  int64_t lda = 0, a_rows = 0;
  bool gathers = false, scatters = false;
  std::vector<int64_t> gather, scatter;  // each with a spare element (non-null when R is 0)
  std::vector<float> route_w;
  std::vector<float> c;  // c_rows x ldc
  int64_t ldc = 0, c_rows = 0;
  int64_t routed() const { return std::accumulate(rows.begin(), rows.end(), int64_t{0}); }
};

Moe make_moe(std::vector<int64_t> rows, int64_t k, int64_t n, bool gather, bool scatter,
             int64_t tokens, Context& ctx, std::mt19937& rng, bool half = false) {
  Moe m;
  m.half = half;
  auto value = [&](float x) { return half ? bf16_to_float(float_to_bf16(x)) : x; };
  m.experts = static_cast<int64_t>(rows.size()), m.k = k, m.n = n, m.rows = std::move(rows);
  m.tokens = tokens;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  m.w.resize(static_cast<std::size_t>(m.experts));
  m.packed.resize(m.w.size());
  for (std::size_t e = 0; e < m.w.size(); ++e) {
    m.w[e].resize(static_cast<std::size_t>(k * n));
    for (float& x : m.w[e]) x = value(u(rng));
    if (half) {
      std::vector<bf16> w16(m.w[e].size());
      for (std::size_t i = 0; i < w16.size(); ++i) w16[i] = bf16(m.w[e][i]);
      EXPECT_EQ(
          pack_weights(Layout::RowMajor, Trans::No, k, n, w16.data(), n, m.packed[e], {}, ctx),
          Status::Ok);
    } else {
      EXPECT_EQ(
          pack_weights(Layout::RowMajor, Trans::No, k, n, m.w[e].data(), n, m.packed[e], {}, ctx),
          Status::Ok);
    }
    m.handles.push_back(m.rows[e] > 0 || e % 2 == 0 ? &m.packed[e] : nullptr);
  }
  const int64_t R = m.routed();
  std::uniform_int_distribution<int64_t> tok(0, std::max<int64_t>(tokens - 1, 0));
  m.lda = k + 3;
  m.a_rows = gather ? tokens : R;
  m.a.resize(static_cast<std::size_t>(std::max<int64_t>(m.a_rows, 1) * m.lda));
  for (float& x : m.a) x = value(u(rng));
  if (half)
    for (const float x : m.a) m.a16.push_back(bf16(x));
  m.gathers = gather, m.scatters = scatter;
  for (int64_t r = 0; r < R; ++r) {
    m.gather.push_back(tok(rng));
    m.scatter.push_back(tok(rng));
    m.route_w.push_back(u(rng));
  }
  m.gather.reserve(m.gather.size() + 1), m.scatter.reserve(m.scatter.size() + 1);
  m.route_w.reserve(m.route_w.size() + 1);
  m.ldc = n + 5;
  m.c_rows = scatter ? tokens : R;
  m.c.resize(static_cast<std::size_t>(std::max<int64_t>(m.c_rows, 1) * m.ldc));
  for (float& x : m.c) x = u(rng);
  return m;
}

GroupedGemm call_of(Moe& m, float alpha, float beta) {
  GroupedGemm g;
  g.experts = m.experts;
  g.expert_rows = m.rows.data();
  g.weights = m.handles.data();
  g.k = m.k, g.n = m.n;
  g.a = m.half ? nullptr : m.a.data(), g.lda = m.lda, g.a_rows = m.a_rows;
  g.a_bf16 = m.half ? m.a16.data() : nullptr;
  g.gather = m.gathers ? m.gather.data() : nullptr;
  g.c = m.c.data(), g.ldc = m.ldc, g.c_rows = m.c_rows;
  g.scatter = m.scatters ? m.scatter.data() : nullptr;
  g.scatter_weights = m.scatters ? m.route_w.data() : nullptr;
  g.alpha = alpha, g.beta = beta;
  return g;
}

double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

// The reference of a call on `m` (C as it was before): value and error bound per element.
void reference(const Moe& m, float alpha, float beta, const std::vector<float>& bias, bool act,
               std::vector<double>& ref, std::vector<double>& bound) {
  const int64_t R = m.routed(), n = m.n, k = m.k;
  ref.assign(static_cast<std::size_t>(m.c_rows * n), 0.0);
  bound = ref;
  const double eps = static_cast<double>(std::numeric_limits<float>::epsilon());
  std::vector<double> y(static_cast<std::size_t>(n)), yb(y.size());
  int64_t r = 0;
  for (int64_t e = 0; e < m.experts; ++e)
    for (int64_t i = 0; i < m.rows[static_cast<std::size_t>(e)]; ++i, ++r) {
      const int64_t arow = !m.gathers ? r : m.gather[static_cast<std::size_t>(r)];
      const float* a = m.a.data() + arow * m.lda;
      const auto& w = m.w[static_cast<std::size_t>(e)];
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, sa = 0;
        for (int64_t p = 0; p < k; ++p) {
          s += static_cast<double>(a[p]) * w[static_cast<std::size_t>(p * n + j)];
          sa += std::fabs(static_cast<double>(a[p]) * w[static_cast<std::size_t>(p * n + j)]);
        }
        s *= alpha, sa *= std::fabs(alpha);
        if (!m.scatters && beta != 0.0f) {
          const double c0 = m.c[static_cast<std::size_t>(r * m.ldc + j)];
          s += beta * c0, sa += std::fabs(beta * c0);
        }
        if (!bias.empty()) s += bias[static_cast<std::size_t>(j)], sa += std::fabs(bias[j]);
        if (act) s = gelu_tanh(s);
        y[static_cast<std::size_t>(j)] = s;
        yb[static_cast<std::size_t>(j)] = 4.0 * (k + 4) * eps * sa + 1e-5 * (act ? 1 : 0) + 1e-30;
      }
      const int64_t t = !m.scatters ? r : m.scatter[static_cast<std::size_t>(r)];
      const double wr = !m.scatters ? 1.0 : m.route_w[static_cast<std::size_t>(r)];
      for (int64_t j = 0; j < n; ++j) {
        ref[static_cast<std::size_t>(t * n + j)] += wr * y[static_cast<std::size_t>(j)];
        bound[static_cast<std::size_t>(t * n + j)] +=
            std::fabs(wr) * yb[static_cast<std::size_t>(j)] +
            2 * eps * std::fabs(wr * y[static_cast<std::size_t>(j)]);
      }
    }
  if (m.scatters)
    for (int64_t t = 0; t < m.c_rows; ++t)
      for (int64_t j = 0; j < n; ++j) {
        const double c0 = beta == 0.0f ? 0.0 : beta * m.c[static_cast<std::size_t>(t * m.ldc + j)];
        ref[static_cast<std::size_t>(t * n + j)] += c0;
        bound[static_cast<std::size_t>(t * n + j)] += 2 * eps * std::fabs(c0);
      }
}

std::string check(const Moe& m, const std::vector<double>& ref, const std::vector<double>& bound) {
  int bad = 0;
  std::ostringstream os;
  for (int64_t t = 0; t < m.c_rows; ++t) {
    for (int64_t j = 0; j < m.ldc; ++j) {
      const float got = m.c[static_cast<std::size_t>(t * m.ldc + j)];
      if (j >= m.n) continue;
      const double err = std::fabs(got - ref[static_cast<std::size_t>(t * m.n + j)]);
      if (!(err <= bound[static_cast<std::size_t>(t * m.n + j)]) && bad++ < 3)
        os << " C(" << t << "," << j << ")=" << got << " ref=" << ref[t * m.n + j];
    }
  }
  if (bad > 0) os << " [" << bad << " wrong]";
  return os.str();
}

struct Case {
  std::vector<int64_t> rows;
  int64_t k, n;
  bool gather, scatter;
  int64_t tokens;
};

std::vector<Case> random_cases(std::mt19937& rng, int count) {
  std::vector<Case> out;
  std::uniform_int_distribution<int> experts(1, 12), kd(1, 300), nd(1, 200), coin(0, 1);
  for (int i = 0; i < count; ++i) {
    Case c;
    const int e = experts(rng);
    for (int x = 0; x < e; ++x) {
      const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
      c.rows.push_back(kind < 3   ? 0
                       : kind < 8 ? std::uniform_int_distribution<int>(1, 9)(rng)
                                  : std::uniform_int_distribution<int>(20, 150)(rng));
    }
    c.k = kd(rng), c.n = nd(rng);
    c.gather = coin(rng) != 0, c.scatter = coin(rng) != 0;
    c.tokens = std::uniform_int_distribution<int>(1, 60)(rng);
    out.push_back(c);
  }
  // Extremes: all rows in one expert (a hot expert the scheduler must split), every expert
  // empty, a single row, wide columns.
  out.push_back({{0, 0, 400, 0}, 96, 300, false, false, 0});
  out.push_back({{0, 0, 0}, 32, 50, true, true, 7});
  out.push_back({{1}, 1, 1, false, false, 0});
  out.push_back({{3, 0, 700, 1, 0, 2}, 64, 97, true, true, 50});
  out.push_back({{2, 2, 2, 2, 2, 2, 2, 2}, 512, 1024, true, true, 4});
  return out;
}

TEST(GroupedGemm, MatchesReferenceEverywhere) {
  std::mt19937 rng(11);
  const std::vector<Case> cases = random_cases(rng, 24);
  for (const Isa isa : available_isas())
    for (const int threads : {1, 2, 3}) {
      auto ctx = make_context(isa, threads);
      for (std::size_t ci = 0; ci < cases.size(); ++ci) {
        const Case& c = cases[ci];
        for (const auto& [alpha, beta] :
             std::vector<std::pair<float, float>>{{1.0f, 0.0f}, {0.5f, -1.25f}}) {
          Moe m = make_moe(c.rows, c.k, c.n, c.gather, c.scatter, c.tokens, *ctx, rng);
          std::vector<double> ref, bound;
          reference(m, alpha, beta, {}, false, ref, bound);
          const GroupedGemm g = call_of(m, alpha, beta);
          ASSERT_EQ(gemm_grouped(g, {}, *ctx), Status::Ok) << to_string(isa) << " " << ci;
          const std::string bad = check(m, ref, bound);
          EXPECT_TRUE(bad.empty()) << to_string(isa) << "/" << threads << "t case " << ci << " k "
                                   << c.k << " n " << c.n << bad;
        }
      }
    }
}

// bf16 experts (bf16 handles, bf16 activations, fp32 C): the random cases on every ISA path and
// thread count, with alpha / beta, post-ops and a SwiGlu output; mixing handle types fails.
TEST(GroupedGemm, Bf16Experts) {
  std::mt19937 rng(17);
  const std::vector<Case> cases = random_cases(rng, 10);
  for (const Isa isa : available_isas())
    for (const int threads : {1, 2, 3}) {
      auto ctx = make_context(isa, threads);
      for (std::size_t ci = 0; ci < cases.size(); ++ci) {
        const Case& c = cases[ci];
        const float alpha = ci % 3 == 2 ? 0.0f : 1.0f, beta = ci % 2 ? 0.5f : 0.0f;
        Moe m = make_moe(c.rows, c.k, c.n, c.gather, c.scatter, c.tokens, *ctx, rng, true);
        std::vector<float> bias(static_cast<std::size_t>(m.n));
        for (float& b : bias) b = std::uniform_real_distribution<float>(-1, 1)(rng);
        std::vector<double> ref, bound;
        reference(m, alpha, beta, bias, true, ref, bound);
        const PostOp ops[] = {{PostOpKind::Bias, bias.data(), 0},
                              {PostOpKind::GeluTanh, nullptr, 0}};
        CallOptions o;
        o.post_ops = ops, o.post_op_count = 2;
        ASSERT_EQ(gemm_grouped(call_of(m, alpha, beta), o, *ctx), Status::Ok)
            << to_string(isa) << " " << ci;
        const std::string bad = check(m, ref, bound);
        EXPECT_TRUE(bad.empty()) << to_string(isa) << "/" << threads << "t case " << ci << " k "
                                 << c.k << " n " << c.n << bad;
      }
    }
  // Handles of two types in one call, or bf16 handles with fp32 activations.
  Context ctx;
  Moe m = make_moe({2, 3}, 16, 32, false, false, 0, ctx, rng, true);
  Moe f = make_moe({2, 3}, 16, 32, false, false, 0, ctx, rng, false);
  GroupedGemm g = call_of(m, 1.0f, 0.0f);
  const PackedWeights* mixed[] = {&m.packed[0], &f.packed[1]};
  g.weights = mixed;
  EXPECT_EQ(gemm_grouped(g, {}, ctx), Status::InvalidArgument);
  g = call_of(m, 1.0f, 0.0f);
  g.a = m.a.data();
  EXPECT_EQ(gemm_grouped(g, {}, ctx), Status::InvalidArgument);
  g.a_bf16 = nullptr;  // fp32 activations on bf16 handles
  EXPECT_EQ(gemm_grouped(g, {}, ctx), Status::InvalidArgument);
  // The C API: two bf16 experts of ones, one row each.
  const int64_t k = 4, n = 3;
  std::vector<std::uint16_t> w(k * n, float_to_bf16(1.0f)), a(2 * k, float_to_bf16(0.5f));
  ac_packed_t h[2] = {nullptr, nullptr};
  for (auto& x : h)
    ASSERT_EQ(
        ac_pack_weights_bf16(AC_ROW_MAJOR, AC_NO_TRANS, k, n, w.data(), n, nullptr, nullptr, 0, &x),
        AC_STATUS_OK);
  const int64_t rows[] = {1, 1};
  std::vector<float> c(2 * n, 0.0f);
  ac_grouped_gemm cg{};
  cg.experts = 2, cg.expert_rows = rows, cg.weights = h, cg.k = k, cg.n = n;
  cg.A_bf16 = a.data(), cg.lda = k, cg.a_rows = 2;
  cg.C = c.data(), cg.ldc = n, cg.c_rows = 2;
  cg.alpha = 1.0f, cg.parts = AC_WQ_TWO_PARTS;
  ASSERT_EQ(ac_gemm_grouped(&cg, nullptr, 0), AC_STATUS_OK);
  for (const float x : c) EXPECT_EQ(x, 2.0f);
  for (auto& x : h) ac_packed_destroy(x);
}

TEST(GroupedGemm, PostOpsPerRoutedRow) {
  std::mt19937 rng(5);
  for (const int threads : {1, 2}) {
    auto ctx = make_context(available_isas().back(), threads);
    for (const bool scatter : {false, true}) {
      Moe m = make_moe({5, 0, 40, 1}, 70, 130, true, scatter, 9, *ctx, rng);
      std::vector<float> bias(static_cast<std::size_t>(m.n));
      for (float& b : bias) b = std::uniform_real_distribution<float>(-1, 1)(rng);
      std::vector<double> ref, bound;
      reference(m, 1.0f, scatter ? 0.5f : 0.0f, bias, true, ref, bound);
      const PostOp ops[] = {{PostOpKind::Bias, bias.data(), 0}, {PostOpKind::GeluTanh, nullptr, 0}};
      CallOptions o;
      o.post_ops = ops, o.post_op_count = 2;
      ASSERT_EQ(gemm_grouped(call_of(m, 1.0f, scatter ? 0.5f : 0.0f), o, *ctx), Status::Ok);
      const std::string bad = check(m, ref, bound);
      EXPECT_TRUE(bad.empty()) << threads << "t scatter " << scatter << bad;
    }
  }
}

// alpha == 0 reads neither A nor the weights (NaN there stays out of C).
TEST(GroupedGemm, AlphaZeroReadsNoOperand) {
  std::mt19937 rng(2);
  auto ctx = make_context(available_isas().back(), 2);
  Moe m = make_moe({3, 4}, 20, 30, false, false, 0, *ctx, rng);
  for (float& x : m.a) x = qnan();
  const std::vector<float> c0 = m.c;
  ASSERT_EQ(gemm_grouped(call_of(m, 0.0f, 2.0f), {}, *ctx), Status::Ok);
  for (int64_t r = 0; r < 7; ++r)
    for (int64_t j = 0; j < 30; ++j)
      EXPECT_EQ(m.c[static_cast<std::size_t>(r * m.ldc + j)], 2.0f * c0[r * m.ldc + j]);
}

// The combine sums each token's routed rows in routed-row order: repeated calls give the same
// bits, whatever the workers' timing.
TEST(GroupedGemm, ScatterIsDeterministic) {
  for (const int threads : {1, 2, 3}) {
    std::mt19937 rng(9);
    auto ctx = make_context(available_isas().back(), threads);
    Moe m = make_moe({30, 1, 0, 77, 5, 12}, 200, 150, true, true, 20, *ctx, rng);
    const std::vector<float> c0 = m.c;
    std::vector<float> first;
    for (int rep = 0; rep < 5; ++rep) {
      m.c = c0;
      ASSERT_EQ(gemm_grouped(call_of(m, 1.0f, 1.0f), {}, *ctx), Status::Ok);
      if (rep == 0)
        first = m.c;
      else
        EXPECT_TRUE(same_bits(first, m.c)) << threads << " threads, call " << rep;
    }
  }
}

// Every (expert, column) is in exactly one unit; units of a core are listed together; the
// predicted core times are the sums of their units; a hot expert is split over the cores.
TEST(GroupedGemm, ScheduleCoversAndBalances) {
  std::mt19937 rng(4);
  auto ctx = make_context(available_isas().back(), 2);
  Moe m = make_moe({1, 0, 600, 2, 3}, 256, 512, false, false, 0, *ctx, rng);
  GroupedSchedule s;
  ASSERT_EQ(explain_grouped(call_of(m, 1.0f, 0.0f), s, *ctx), Status::Ok);
  ASSERT_EQ(s.threads, 2);
  std::vector<std::vector<int>> covered(5, std::vector<int>(512, 0));
  std::vector<double> sums(2, 0.0);
  int hot_units = 0;
  for (const auto& u : s.units) {
    ASSERT_GE(u.core, 0);
    ASSERT_LT(u.core, 2);
    EXPECT_EQ(u.rows, m.rows[static_cast<std::size_t>(u.expert)]);
    for (int64_t j = u.col0; j < u.col0 + u.cols; ++j) ++covered[u.expert][j];
    sums[static_cast<std::size_t>(u.core)] += u.predicted_us;
    hot_units += u.expert == 2 ? 1 : 0;
  }
  for (int64_t e = 0; e < 5; ++e)
    for (int64_t j = 0; j < 512; ++j)
      EXPECT_EQ(covered[e][j], m.rows[e] > 0 ? 1 : 0) << e << " " << j;
  for (int c = 0; c < 2; ++c) EXPECT_NEAR(sums[c], s.core_predicted_us[c], 1e-6 * sums[c] + 1e-9);
  EXPECT_GE(hot_units, 2);
  const double hi = std::max(sums[0], sums[1]), lo = std::min(sums[0], sums[1]);
  EXPECT_LE(hi, 1.15 * lo);
  // A run fills the measured core times.
  GroupedSchedule run;
  ASSERT_EQ(gemm_grouped(call_of(m, 1.0f, 0.0f), {}, *ctx, &run), Status::Ok);
  ASSERT_EQ(run.core_measured_us.size(), 2u);
  EXPECT_GT(run.core_measured_us[0] + run.core_measured_us[1], 0.0);
}

// The scheduler alone: LPT places equal units evenly; a unit too large for a core is cut.
TEST(GroupedScheduler, SplitsAndPacks) {
  auto linear = [](int64_t, int64_t, int64_t panels) { return 10.0 * panels; };
  const GroupedPlacement even = schedule_grouped({4, 4, 4, 4}, 2, linear);
  EXPECT_EQ(even.units.size(), 4u);
  EXPECT_DOUBLE_EQ(even.core_us[0], even.core_us[1]);
  const GroupedPlacement hot = schedule_grouped({16, 1, 0, 1}, 2, linear);
  EXPECT_GT(hot.units.size(), 3u);
  EXPECT_DOUBLE_EQ(hot.core_us[0], hot.core_us[1]);
  const GroupedPlacement one = schedule_grouped({16, 2}, 1, linear);
  EXPECT_EQ(one.units.size(), 2u);
}

// Weight-quantized experts (W8A16 per column, W4A16 in groups of 64): each routed row against
// gemm_quantized of the same rows on the same handle (the same kernels and activation split),
// with gather, scatter, beta and a post-op, on 1-3 threads.
TEST(GroupedGemm, QuantizedExpertsMatchGemmQuantized) {
  std::mt19937 rng(21);
  const int64_t k = 256, n = 200, tokens = 30;
  const std::vector<int64_t> rows = {3, 0, 40, 1, 7};
  const int64_t R = 51;
  for (const WeightQuantSpec spec :
       {WeightQuantSpec{WeightFormat::Int8, 0}, WeightQuantSpec{WeightFormat::Int4, 64}})
    for (const int threads : {1, 2, 3}) {
      auto ctx = make_context(available_isas().back(), threads);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      std::vector<QuantizedWeights> q(rows.size());
      std::vector<const QuantizedWeights*> handles;
      for (auto& h : q) {
        std::vector<float> w(static_cast<std::size_t>(k * n));
        for (float& x : w) x = u(rng);
        ASSERT_EQ(quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, spec, h, *ctx),
                  Status::Ok);
        handles.push_back(&h);
      }
      std::vector<float> x(static_cast<std::size_t>(tokens * k)), rw(R), bias(n);
      for (float& v : x) v = u(rng);
      for (float& v : rw) v = u(rng);
      for (float& v : bias) v = u(rng);
      std::vector<int64_t> gather(R), scatter(R);
      for (int64_t r = 0; r < R; ++r) gather[r] = rng() % tokens, scatter[r] = rng() % tokens;
      // Reference: per expert, its gathered rows through gemm_quantized, then bias, then the
      // weighted combine in double.
      std::vector<double> ref(static_cast<std::size_t>(tokens * n), 0.0);
      std::vector<float> c0(static_cast<std::size_t>(tokens * n));
      for (float& v : c0) v = u(rng);
      for (std::size_t t = 0; t < ref.size(); ++t) ref[t] = 0.5 * c0[t];
      int64_t r0 = 0;
      for (std::size_t e = 0; e < rows.size(); ++e) {
        const int64_t m = rows[e];
        if (m == 0) continue;
        std::vector<float> a(static_cast<std::size_t>(m * k)), y(static_cast<std::size_t>(m * n));
        for (int64_t i = 0; i < m; ++i)
          std::copy_n(x.data() + gather[r0 + i] * k, k, a.data() + i * k);
        ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, m, a.data(), k, q[e], 0.0f, y.data(),
                                 n, ActivationParts::Two, *ctx),
                  Status::Ok);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            ref[scatter[r0 + i] * n + j] += double(rw[r0 + i]) * (double(y[i * n + j]) + bias[j]);
        r0 += m;
      }
      std::vector<float> c = c0;
      GroupedGemm g;
      g.experts = static_cast<int64_t>(rows.size());
      g.expert_rows = rows.data();
      g.quantized_weights = handles.data();
      g.k = k, g.n = n;
      g.a = x.data(), g.lda = k, g.a_rows = tokens, g.gather = gather.data();
      g.c = c.data(), g.ldc = n, g.c_rows = tokens;
      g.scatter = scatter.data(), g.scatter_weights = rw.data();
      g.beta = 0.5f;
      const PostOp ops[] = {{PostOpKind::Bias, bias.data(), 0}};
      CallOptions o;
      o.post_ops = ops, o.post_op_count = 1;
      ASSERT_EQ(gemm_grouped(g, o, *ctx), Status::Ok);
      for (std::size_t t = 0; t < ref.size(); ++t)
        ASSERT_NEAR(c[t], ref[t], 1e-4 * (1.0 + std::fabs(ref[t])))
            << threads << "t int4 " << (spec.format == WeightFormat::Int4) << " at " << t;
      // Quantized calls take alpha 1 only, and one kind of handle.
      g.alpha = 2.0f;
      EXPECT_EQ(gemm_grouped(g, {}, *ctx), Status::InvalidArgument);
      g.alpha = 1.0f;
      std::vector<const PackedWeights*> none(rows.size(), nullptr);
      g.weights = none.data();
      EXPECT_EQ(gemm_grouped(g, {}, *ctx), Status::InvalidArgument);
    }
}

TEST(GroupedGemm, CApi) {
  std::mt19937 rng(8);
  const int64_t k = 40, n = 60;
  std::vector<float> w0(k * n), w1(k * n), a(5 * k), c(4 * n, 0.0f);
  for (auto* v : {&w0, &w1, &a})
    for (float& x : *v) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  ac_packed_t h[2] = {nullptr, nullptr};
  ASSERT_EQ(
      ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, w0.data(), n, nullptr, nullptr, 0, &h[0]),
      AC_STATUS_OK);
  ASSERT_EQ(
      ac_pack_weights(AC_ROW_MAJOR, AC_NO_TRANS, k, n, w1.data(), n, nullptr, nullptr, 0, &h[1]),
      AC_STATUS_OK);
  const int64_t rows[2] = {2, 3}, gather[5] = {4, 0, 1, 1, 3}, scatter[5] = {0, 3, 3, 2, 0};
  const float rw[5] = {0.5f, 0.25f, 1.0f, -1.0f, 2.0f};
  ac_grouped_gemm g{};
  g.experts = 2, g.expert_rows = rows, g.weights = h, g.k = k, g.n = n;
  g.A = a.data(), g.lda = k, g.a_rows = 5, g.gather = gather;
  g.C = c.data(), g.ldc = n, g.c_rows = 4, g.scatter = scatter, g.scatter_weights = rw;
  g.alpha = 1.0f, g.beta = 0.0f;
  ASSERT_EQ(ac_gemm_grouped(&g, nullptr, 0), AC_STATUS_OK);
  for (int64_t j = 0; j < n; ++j) {
    double ref[4] = {0, 0, 0, 0};
    for (int64_t r = 0; r < 5; ++r) {
      const auto& w = r < 2 ? w0 : w1;
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += double(a[gather[r] * k + p]) * w[p * n + j];
      ref[scatter[r]] += rw[r] * s;
    }
    for (int t = 0; t < 4; ++t) EXPECT_NEAR(c[t * n + j], ref[t], 1e-4) << t << " " << j;
  }
  EXPECT_EQ(ac_gemm_grouped(nullptr, nullptr, 0), AC_STATUS_NULL_POINTER);
  ac_packed_destroy(h[0]);
  ac_packed_destroy(h[1]);
}

TEST(GroupedGemm, Errors) {
  std::mt19937 rng(1);
  Context ctx;
  Moe m = make_moe({2, 3}, 16, 24, true, true, 6, ctx, rng);
  auto status = [&](auto&& edit) {
    GroupedGemm g = call_of(m, 1.0f, 0.0f);
    edit(g);
    return gemm_grouped(g, {}, ctx);
  };
  EXPECT_EQ(status([](GroupedGemm&) {}), Status::Ok);
  EXPECT_EQ(status([](GroupedGemm& g) { g.experts = -1; }), Status::InvalidDimension);
  EXPECT_EQ(status([](GroupedGemm& g) { g.expert_rows = nullptr; }), Status::NullPointer);
  std::vector<int64_t> neg = {2, -1};
  EXPECT_EQ(status([&](GroupedGemm& g) { g.expert_rows = neg.data(); }), Status::InvalidDimension);
  std::vector<int64_t> huge = {INT64_MAX, 3};
  EXPECT_EQ(status([&](GroupedGemm& g) { g.expert_rows = huge.data(); }), Status::InvalidDimension);
  EXPECT_EQ(status([](GroupedGemm& g) { g.a = nullptr; }), Status::NullPointer);
  EXPECT_EQ(status([](GroupedGemm& g) { g.c = nullptr; }), Status::NullPointer);
  EXPECT_EQ(status([](GroupedGemm& g) { g.weights = nullptr; }), Status::NullPointer);
  std::vector<const PackedWeights*> none = {m.handles[0], nullptr};
  EXPECT_EQ(status([&](GroupedGemm& g) { g.weights = none.data(); }), Status::NullPointer);
  PackedWeights empty;
  std::vector<const PackedWeights*> with_empty = {m.handles[0], &empty};
  EXPECT_EQ(status([&](GroupedGemm& g) { g.weights = with_empty.data(); }), Status::NullPointer);
  EXPECT_EQ(status([](GroupedGemm& g) { g.n = 25; }), Status::ShapeMismatch);
  EXPECT_EQ(status([](GroupedGemm& g) { g.k = 0; }), Status::InvalidDimension);
  EXPECT_EQ(status([](GroupedGemm& g) { g.lda = 15; }), Status::InvalidLeadingDimension);
  EXPECT_EQ(status([](GroupedGemm& g) { g.ldc = 23; }), Status::InvalidLeadingDimension);
  EXPECT_EQ(status([](GroupedGemm& g) { g.a_rows = 2; }), Status::InvalidArgument);
  EXPECT_EQ(status([](GroupedGemm& g) { g.c_rows = -1; }), Status::InvalidDimension);
  // Rows routed beyond A or C: the shapes do not compose (not a negative dimension).
  EXPECT_EQ(status([](GroupedGemm& g) { g.gather = nullptr, g.a_rows = 4; }),
            Status::ShapeMismatch);
  EXPECT_EQ(status([](GroupedGemm& g) { g.scatter = nullptr, g.c_rows = 4; }),
            Status::ShapeMismatch);
  EXPECT_EQ(status([](GroupedGemm& g) { g.scatter = nullptr, g.c_rows = 5; }),
            Status::InvalidArgument);  // routing weights without a scatter
  std::vector<int64_t> bad_index = {0, 1, 2, 3, 6};
  EXPECT_EQ(status([&](GroupedGemm& g) { g.scatter = bad_index.data(); }), Status::InvalidArgument);
  EXPECT_EQ(status([&](GroupedGemm& g) { g.gather = bad_index.data(); }), Status::InvalidArgument);
  // C over A: Aliasing (both the same buffer, rows wide enough for either).
  std::vector<float> shared(static_cast<std::size_t>(64 * 32), 1.0f);
  EXPECT_EQ(status([&](GroupedGemm& g) {
              g.a = shared.data(), g.lda = 32, g.c = shared.data() + 8, g.ldc = 32;
            }),
            Status::Aliasing);
  EXPECT_EQ(status([](GroupedGemm& g) { g.lda = INT64_MAX / 2; }), Status::SizeOverflow);
  CallOptions o;
  o.post_op_count = 9;
  EXPECT_EQ(gemm_grouped(call_of(m, 1.0f, 0.0f), o, ctx), Status::InvalidArgument);
  GroupedSchedule s;
  EXPECT_EQ(explain_grouped(call_of(m, 1.0f, 0.0f), s, ctx), Status::Ok);
}

}  // namespace
}  // namespace adaptcore::test
