// Weight-quantized GEMM: the int32 path bit-exact against an integer reference of the same
// quantized parts, native and portable splits bit-identical, the fp32 result inside the error
// bound of docs/QUANT.md over random shapes and hard rows, on every path the CPU offers.
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <cstring>

#include "adaptcore/hardware.hpp"
#include "core/weight_storage.hpp"
#include "core/wq_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "kernels/registry.hpp"
#include "kernels/wq.hpp"
#include "kernels/wq_split.hpp"
#include "test_util.hpp"
#include "wq_test_util.hpp"

namespace adaptcore::test {
namespace {

std::vector<const kernels::WqKernels*> kernel_tables() {
  std::vector<const kernels::WqKernels*> out{kernels::wq_kernels_for(Isa::Generic)};
  const HardwareProfile& hw = detected_hardware();
  if (hw.supports(Isa::Avx512Vnni)) out.push_back(kernels::wq_kernels_for(Isa::Avx512Vnni));
  return out;
}

std::vector<std::unique_ptr<Context>> contexts() {
  std::vector<std::unique_ptr<Context>> out;
  for (Isa isa : ::adaptcore::test::available_isas()) {
    for (int threads : {1, 2}) {
      ContextOptions o;
      o.read_environment = false;
      o.isa = isa;
      o.threads = threads;
      out.push_back(std::make_unique<Context>(o));
    }
  }
  return out;
}

QuantizedWeights handle_of(Context& ctx, const IntWeights& w) {
  QuantizedWeights h;
  WeightQuantSpec spec;
  spec.format = w.int4 ? WeightFormat::Int4 : WeightFormat::Int8;
  spec.group_size = w.group;
  EXPECT_EQ(quantize_weights_s8(Layout::RowMajor, Trans::No, w.k, w.n, w.q.data(), w.n,
                                w.scale.data(), spec, h, ctx),
            Status::Ok);
  return h;
}

// The kernel on hand-made parts: one group (k <= group), unit scales, so the output is the
// int32 combine converted once to fp32, which must equal the int64 reference converted once.
TEST(WqKernel, Int32PathIsExact) {
  std::mt19937_64 rng(11);
  Context ctx;
  for (const kernels::WqKernels* ks : kernel_tables()) {
    for (bool int4 : {false, true})
      for (int parts : {1, 2})
        for (bool extremes : {false, true}) {
          const int64_t k = 256, n = 32;
          IntWeights w = random_int_weights(rng, k, n, 256, int4, extremes);
          for (auto& s : w.scale) s = 1.0f;
          const QuantizedWeights h = handle_of(ctx, w);
          const detail::QuantizedWeightsImpl& im = *::adaptcore::detail::impl_of(h);
          const int mr = ks->mr(parts);
          std::vector<std::int8_t> ap(static_cast<std::size_t>(im.quads * mr * parts * 4));
          std::uniform_int_distribution<int> qd(-127, 127);
          for (auto& v : ap)
            v = static_cast<std::int8_t>(extremes ? (rng() & 1 ? 127 : -127) : qd(rng));
          std::vector<float> scale(static_cast<std::size_t>(mr), 1.0f),
              rf(static_cast<std::size_t>(mr), 1.0f);
          std::vector<std::int32_t> comp(static_cast<std::size_t>(mr));
          std::vector<std::int64_t> ref(static_cast<std::size_t>(mr * n), 0);
          for (int i = 0; i < mr; ++i) {
            std::int32_t s1 = 0, s2 = 0;
            for (int64_t p = 0; p < k; ++p) {
              const auto at = [&](int t) {
                return ap[static_cast<std::size_t>(((p / 4) * mr + i) * parts * 4 + t * 4 + p % 4)];
              };
              s1 += at(0);
              if (parts == 2) s2 += at(1);
              const std::int64_t x = parts == 2 ? 256 * at(0) + at(1) : at(0);
              for (int64_t j = 0; j < n; ++j)
                ref[static_cast<std::size_t>(i * n + j)] +=
                    x * w.q[static_cast<std::size_t>(p * n + j)];
            }
            comp[static_cast<std::size_t>(i)] =
                kernels::wq_compensation(im.offset(), parts, s1, s2);
          }
          for (int m = 1; m <= mr; ++m) {
            std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
            kernels::WqArgs args{};
            args.quads = im.quads;
            args.quads_per_group = im.act_group / 4;
            args.a = {ap.data(), scale.data(), comp.data(), rf.data(), mr};
            args.w = im.panel(0);
            args.w_group_scale = im.group_scale.get();
            args.c = c.data();
            args.c_rs = n, args.c_cs = 1;
            args.n = static_cast<int>(n);
            ks->get(parts, int4, m)(args);
            for (int i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j)
                ASSERT_EQ(c[static_cast<std::size_t>(i * n + j)],
                          static_cast<float>(ref[static_cast<std::size_t>(i * n + j)]))
                    << ks->name << " int4=" << int4 << " parts=" << parts << " m=" << m
                    << " i=" << i << " j=" << j;
          }
        }
  }
}

// The native split gives the portable split's bits, for every kind of row.
TEST(WqSplit, NativeMatchesPortable) {
  const auto tables = kernel_tables();
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx512Vnni, tables.size() >= 2);
  std::mt19937_64 rng(5);
  for (int rep = 0; rep < 300; ++rep) {
    const int64_t k = 1 + static_cast<int64_t>(rng() % 700);
    const int64_t group = 32 * (1 + static_cast<int64_t>(rng() % 8));
    const int parts = 1 + static_cast<int>(rng() % 2);
    const int mr = 4, row = static_cast<int>(rng() % 4);
    std::vector<float> x(static_cast<std::size_t>(k));
    fill_row(rng, static_cast<RowKind>(rng() % 6), x.data(), k);
    if (rep % 50 == 7)
      x[static_cast<std::size_t>(rng() % k)] = std::numeric_limits<float>::infinity();
    const int64_t quads = (k + 3) / 4, groups = (k + group - 1) / group;
    auto run = [&](const kernels::WqKernels& ks, std::vector<std::int8_t>& pa,
                   std::vector<float>& sc, std::vector<std::int32_t>& cp, std::vector<float>& rf) {
      pa.assign(static_cast<std::size_t>(quads * mr * parts * 4), 99);
      sc.assign(static_cast<std::size_t>(groups * mr), 7.0f);
      cp.assign(static_cast<std::size_t>(groups * mr), 7);
      rf.assign(static_cast<std::size_t>(mr), 7.0f);
      kernels::WqQuantizeArgs q{x.data(),  k,         group,     parts, 128, pa.data(),
                                sc.data(), cp.data(), rf.data(), mr,    row};
      ks.quantize(q);
    };
    std::vector<std::int8_t> pa0, pa1;
    std::vector<float> sc0, sc1, rf0, rf1;
    std::vector<std::int32_t> cp0, cp1;
    run(*tables[0], pa0, sc0, cp0, rf0);
    run(*tables[1], pa1, sc1, cp1, rf1);
    ASSERT_EQ(pa0, pa1) << "rep " << rep;
    ASSERT_EQ(0, std::memcmp(sc0.data(), sc1.data(), sc0.size() * 4)) << "rep " << rep;
    ASSERT_EQ(cp0, cp1) << "rep " << rep;
    ASSERT_EQ(0, std::memcmp(rf0.data(), rf1.data(), rf0.size() * 4)) << "rep " << rep;
  }
}

// Weight storage: zero-filled when asked, on whole lines, and from 2 MiB on on a 2 MiB boundary
// (the huge pages decode's weight streams need); a quantized handle's panels use it.
TEST(WqWeights, StorageIsHugePageAlignedFromTwoMiB) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  for (std::size_t bytes : {std::size_t{0}, std::size_t{100}, kHuge - 64, kHuge, 3 * kHuge + 5}) {
    const auto p = weight_bytes(bytes, true);
    ASSERT_NE(p, nullptr);
    const auto at = reinterpret_cast<std::uintptr_t>(p.get());
    EXPECT_EQ(at % 64, 0u) << bytes;
    if (bytes >= kHuge) EXPECT_EQ(at % kHuge, 0u) << bytes;
    for (std::size_t i = 0; i < bytes; i += 4093) ASSERT_EQ(p.get()[i], 0) << bytes;
    if (bytes > 0) EXPECT_EQ(p.get()[bytes - 1], 0) << bytes;
  }
  Context ctx;
  const int64_t k = 2048, n = 1024;  // int8 panels: 2 MiB
  std::vector<float> w(static_cast<std::size_t>(k * n), 0.5f);
  QuantizedWeights h;
  ASSERT_EQ(Status::Ok, quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n,
                                         WeightQuantSpec{}, h, ctx));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(detail::impl_of(h)->panel(0)) % kHuge, 0u);
}

// quantize_weights: symmetric per column / per group, packed values and scales as derived.
TEST(WqWeights, QuantizeFromFloats) {
  std::mt19937_64 rng(3);
  Context ctx;
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (bool int4 : {false, true})
    for (int64_t group : {0, 32, 128}) {
      if (int4 && group == 0) continue;
      const int64_t k = 133, n = 45;
      std::vector<float> wt(static_cast<std::size_t>(n * k));  // stored transposed: n x k
      for (auto& v : wt) v = nd(rng);
      wt[5] = 0.0f;
      QuantizedWeights h;
      WeightQuantSpec spec{int4 ? WeightFormat::Int4 : WeightFormat::Int8, group};
      ASSERT_EQ(quantize_weights(Layout::RowMajor, Trans::Yes, k, n, wt.data(), k, spec, h, ctx),
                Status::Ok);
      ASSERT_EQ(h.k(), k);
      ASSERT_EQ(h.n(), n);
      const detail::QuantizedWeightsImpl& im = *::adaptcore::detail::impl_of(h);
      const float qmax = int4 ? 7.0f : 127.0f;
      const int64_t gs = group > 0 ? group : k;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t g = 0; g * gs < k; ++g) {
          float amax = 0.0f;
          for (int64_t p = g * gs; p < std::min(k, (g + 1) * gs); ++p)
            amax = std::max(amax, std::fabs(wt[static_cast<std::size_t>(j * k + p)]));
          const float scale = amax / qmax;
          const float got_scale =
              group > 0 ? im.group_scale.get()[((j / 32) * im.groups + g) * 32 + j % 32]
                        : im.col_scale.get()[j];
          ASSERT_EQ(got_scale, scale);
          for (int64_t p = g * gs; p < std::min(k, (g + 1) * gs); ++p) {
            const int want =
                static_cast<int>(std::nearbyint(wt[static_cast<std::size_t>(j * k + p)] / scale));
            const std::uint8_t* pnl = im.panel(j / 32);
            const int jj = static_cast<int>(j % 32);
            const int u = int4 ? (jj < 16 ? pnl[(p / 4) * 64 + jj * 4 + p % 4] & 0x0F
                                          : pnl[(p / 4) * 64 + (jj - 16) * 4 + p % 4] >> 4)
                               : pnl[(p / 4) * 128 + jj * 4 + p % 4];
            ASSERT_EQ(u - im.offset(), want) << "p=" << p << " j=" << j;
          }
        }
    }
}

struct Case {
  int64_t m, k, n, group;
  bool int4, bf16;
  int parts;
  float beta;
};

void run_case(Context& ctx, std::mt19937_64& rng, const Case& cs, const std::string& where) {
  const IntWeights w = random_int_weights(rng, cs.k, cs.n, cs.group, cs.int4);
  const QuantizedWeights h = handle_of(ctx, w);
  std::vector<float> a(static_cast<std::size_t>(cs.m * cs.k));
  for (int64_t i = 0; i < cs.m; ++i)
    fill_row(rng, static_cast<RowKind>(rng() % 6), a.data() + i * cs.k, cs.k);
  std::vector<bf16> ab;
  if (cs.bf16) {
    ab.resize(a.size());
    for (std::size_t x = 0; x < a.size(); ++x) {
      ab[x] = bf16(a[x]);
      a[x] = static_cast<float>(ab[x]);
    }
  }
  std::vector<float> c0(static_cast<std::size_t>(cs.m * cs.n));
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto& v : c0) v = nd(rng);
  std::vector<float> c = c0;
  const auto parts = cs.parts == 2 ? ActivationParts::Two : ActivationParts::One;
  const Status s = cs.bf16 ? gemm_quantized(Layout::RowMajor, Trans::No, cs.m, ab.data(), cs.k, h,
                                            cs.beta, c.data(), cs.n, parts, ctx)
                           : gemm_quantized(Layout::RowMajor, Trans::No, cs.m, a.data(), cs.k, h,
                                            cs.beta, c.data(), cs.n, parts, ctx);
  ASSERT_EQ(s, Status::Ok) << where;
  const int64_t act_group = cs.group > 0 ? cs.group : kWqColumnActGroup;
  const Bounded b = check_bound(a, cs.m, cs.k, w, act_group, cs.parts, cs.beta, c0, c, cs.n);
  ASSERT_FALSE(b.nan_mismatch) << where;
  ASSERT_LE(b.worst_ratio, 1.0) << where << " m=" << cs.m << " k=" << cs.k << " n=" << cs.n
                                << " group=" << cs.group << " int4=" << cs.int4
                                << " parts=" << cs.parts;
}

TEST(WqGemm, RandomShapesInsideTheBound) {
  std::mt19937_64 rng(1234);
  for (auto& ctx : contexts()) {
    const std::string where =
        std::string(to_string(ctx->isa())) + " threads=" + std::to_string(ctx->threads());
    for (int rep = 0; rep < 24; ++rep) {
      Case cs;
      cs.m = 1 + static_cast<int64_t>(rng() % 300);
      if (rep % 3 == 0) cs.m = 1 + static_cast<int64_t>(rng() % 9);
      cs.k = 1 + static_cast<int64_t>(rng() % 600);
      cs.n = 1 + static_cast<int64_t>(rng() % 90);
      cs.int4 = rng() % 2 == 0;
      const int64_t groups[] = {0, 32, 64, 128, 256};
      cs.group = groups[rng() % 5];
      if (cs.int4 && cs.group == 0) cs.group = 64;
      cs.parts = 1 + static_cast<int>(rng() % 2);
      cs.bf16 = rng() % 4 == 0;
      cs.beta = rep % 4 == 1 ? 0.5f : 0.0f;
      run_case(*ctx, rng, cs, where);
    }
  }
}

TEST(WqGemm, NonFiniteActivationsGiveNaNRows) {
  Context ctx;
  std::mt19937_64 rng(9);
  const IntWeights w = random_int_weights(rng, 100, 40, 0, false);
  const QuantizedWeights h = handle_of(ctx, w);
  std::vector<float> a(3 * 100, 1.0f);
  a[100 + 17] = std::numeric_limits<float>::infinity();
  a[200 + 99] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> c(3 * 40, 0.0f);
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 3, a.data(), 100, h, 0.0f, c.data(), 40,
                           ActivationParts::Two, ctx),
            Status::Ok);
  for (int j = 0; j < 40; ++j) {
    EXPECT_FALSE(std::isnan(c[static_cast<std::size_t>(j)]));
    EXPECT_TRUE(std::isnan(c[static_cast<std::size_t>(40 + j)]));
    EXPECT_TRUE(std::isnan(c[static_cast<std::size_t>(80 + j)]));
  }
}

// Layouts and transposes of A and C, padded leading dimensions: the same numbers as row-major.
TEST(WqGemm, LayoutsAgree) {
  std::mt19937_64 rng(21);
  Context ctx;
  const int64_t m = 37, k = 150, n = 70;
  const IntWeights w = random_int_weights(rng, k, n, 32, false);
  const QuantizedWeights h = handle_of(ctx, w);
  std::vector<float> a(static_cast<std::size_t>(m * k));
  for (int64_t i = 0; i < m; ++i) fill_row(rng, RowKind::Gauss, a.data() + i * k, k);
  std::vector<float> want(static_cast<std::size_t>(m * n));
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, m, a.data(), k, h, 0.0f, want.data(), n,
                           ActivationParts::Two, ctx),
            Status::Ok);
  for (Layout lay : {Layout::RowMajor, Layout::ColMajor})
    for (Trans ta : {Trans::No, Trans::Yes}) {
      const bool a_rows_contig = (lay == Layout::RowMajor) == (ta == Trans::No);
      const int64_t lda = (a_rows_contig ? k : m) + 3, ldc = (lay == Layout::RowMajor ? n : m) + 5;
      std::vector<float> as(static_cast<std::size_t>(lda * (a_rows_contig ? m : k)), 0.0f);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p)
          as[static_cast<std::size_t>(a_rows_contig ? i * lda + p : p * lda + i)] =
              a[static_cast<std::size_t>(i * k + p)];
      std::vector<float> c(static_cast<std::size_t>(ldc * (lay == Layout::RowMajor ? m : n)), 5.0f);
      ASSERT_EQ(gemm_quantized(lay, ta, m, as.data(), lda, h, 0.0f, c.data(), ldc,
                               ActivationParts::Two, ctx),
                Status::Ok);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          ASSERT_EQ(
              c[static_cast<std::size_t>(lay == Layout::RowMajor ? i * ldc + j : j * ldc + i)],
              want[static_cast<std::size_t>(i * n + j)]);
    }
}

// Two parts carry about 16 bits: on Gaussian data the error is far below one part's.
TEST(WqGemm, TwoPartsFarMoreAccurateThanOne) {
  std::mt19937_64 rng(77);
  Context ctx;
  const int64_t m = 16, k = 512, n = 64;
  const IntWeights w = random_int_weights(rng, k, n, 0, false);
  const QuantizedWeights h = handle_of(ctx, w);
  std::vector<float> a(static_cast<std::size_t>(m * k));
  for (int64_t i = 0; i < m; ++i) fill_row(rng, RowKind::Gauss, a.data() + i * k, k);
  std::vector<float> c1(static_cast<std::size_t>(m * n)), c2 = c1, c0 = c1;
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, m, a.data(), k, h, 0.0f, c1.data(), n,
                           ActivationParts::One, ctx),
            Status::Ok);
  ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, m, a.data(), k, h, 0.0f, c2.data(), n,
                           ActivationParts::Two, ctx),
            Status::Ok);
  const Bounded b1 = check_bound(a, m, k, w, kWqColumnActGroup, 1, 0.0f, c0, c1, n);
  const Bounded b2 = check_bound(a, m, k, w, kWqColumnActGroup, 2, 0.0f, c0, c2, n);
  EXPECT_LE(b1.worst_ratio, 1.0);
  EXPECT_LE(b2.worst_ratio, 1.0);
  EXPECT_LT(b2.max_abs_err * 50.0, b1.max_abs_err);
}

}  // namespace
}  // namespace adaptcore::test
