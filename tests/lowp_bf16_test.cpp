// bf16 GEMM against a double-precision reference within a derived bound, on every kernel path.
//
// The bound. A product of two bf16 values (8 significant bits each) is exact in fp32 (16 <= 24
// bits), so the only errors are the fp32 roundings (unit u = 2^-24) of the accumulation and of
// the epilogue. Along any one term's path: at most k roundings inside a depth block's
// accumulators (vdpbf16ps rounds once per product added; the fp32 kernels' FMAs likewise), plus
// 2 per depth block (alpha * acc, then its merge into C) plus 1 for beta * C. With n such
// roundings, |computed - exact| <= gamma_n * (|alpha| sum_p |a_ip b_pj| + |beta c_ij|), gamma_n =
// n u / (1 - n u) (Higham, recursive summation with FMAs). The test uses n = k + 2 * ceil(k /
// 8) + 4: no depth block is shorter than 8 (packed plans use 512 or more, in-place-B plans 8
// to 64), so this covers every plan, and checks |err| <= gamma_n * magnitude.
// A bf16 C adds one rounding to nearest even of the fp32 result r: |bf16(r) - r| <= 2^-8 |r|
// (8 significant bits), so there the bound is e + 2^-8 (|exact| + e).
// Inputs stay far from the subnormal range: vdpbf16ps flushes subnormals to zero (Intel SDM),
// which the bound does not cover.
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <bit>
#include <cmath>

#include "kernels/registry.hpp"
#include "lowp_test_util.hpp"

namespace adaptcore::test {
namespace {

constexpr std::uint16_t kBf16Fill = 0x7fa5;  // a NaN pattern arithmetic never produces

struct Bf16Case {
  bool bf16_out = false;
  Layout layout = Layout::RowMajor;
  Trans ta = Trans::No, tb = Trans::No;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  bool wide = false;  // magnitudes over 2^-12 .. 2^12 instead of [-1, 1]
};

std::string describe(const Bf16Case& c) {
  return std::string(c.bf16_out ? "bf16-out " : "f32-out ") + name(c.layout) + " " + name(c.ta) +
         name(c.tb) + " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
         " k=" + std::to_string(c.k) + " alpha=" + std::to_string(c.alpha) +
         " beta=" + std::to_string(c.beta) + (c.wide ? " wide" : "");
}

std::uint16_t random_bf16(std::mt19937_64& rng, bool wide) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  float v = u(rng);
  if (wide) v = std::ldexp(v, static_cast<int>(rng() % 25) - 12);
  return float_to_bf16(v);
}

std::string run_case(const LowpRunner& r, const Bf16Case& c, std::mt19937_64& rng) {
  const bool rm = c.layout == Layout::RowMajor;
  const bool ta = c.ta != Trans::No, tb = c.tb != Trans::No;
  std::uniform_int_distribution<int64_t> pad(0, 3);
  Mat<std::uint16_t> A(ta ? c.k : c.m, ta ? c.m : c.k, rm, pad(rng), kBf16Fill);
  Mat<std::uint16_t> B(tb ? c.n : c.k, tb ? c.k : c.n, rm, pad(rng), kBf16Fill);
  for (auto* M : {&A, &B})
    for (int64_t i = 0; i < M->rows; ++i)
      for (int64_t j = 0; j < M->cols; ++j) M->at(i, j) = random_bf16(rng, c.wide);
  Mat<float> Cf(c.m, c.n, rm, pad(rng), sentinel());
  Mat<std::uint16_t> Cb(c.m, c.n, rm, pad(rng), kBf16Fill);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      const std::uint16_t v = random_bf16(rng, false);
      Cf.at(i, j) = c.beta == 0.0f ? qnan() : bf16_to_float(v);  // beta == 0 must not read C
      Cb.at(i, j) = c.beta == 0.0f ? std::uint16_t{0x7fc0} : v;
    }
  const Mat<float> Cf0 = Cf;
  const Mat<std::uint16_t> Cb0 = Cb;

  LowpCall call;
  call.kind = c.bf16_out ? LowpKind::Bf16Bf16 : LowpKind::Bf16F32;
  call.layout = c.layout, call.transa = c.ta, call.transb = c.tb;
  call.m = c.m, call.n = c.n, call.k = c.k;
  call.alpha = c.alpha, call.beta = c.beta;
  call.a = A.data.data(), call.lda = A.ld;
  call.b = B.data.data(), call.ldb = B.ld;
  if (c.bf16_out)
    call.c = Cb.data.data(), call.ldc = Cb.ld;
  else
    call.c = Cf.data.data(), call.ldc = Cf.ld;
  const Status s = r.run(call);
  if (s != Status::Ok) return std::string("status ") + to_string(s);

  const double u = std::ldexp(1.0, -24);
  const double rounds = static_cast<double>(c.k + 2 * ((c.k + 7) / 8) + 4);
  const double gamma = rounds * u / (1.0 - rounds * u);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double ref = 0.0, mag = 0.0;
      for (int64_t p = 0; p < c.k; ++p) {
        const double av = bf16_to_float(ta ? A.at(p, i) : A.at(i, p));
        const double bv = bf16_to_float(tb ? B.at(j, p) : B.at(p, j));
        ref += av * bv;
        mag += std::fabs(av * bv);
      }
      ref *= c.alpha;
      mag *= std::fabs(c.alpha);
      if (c.beta != 0.0f) {
        const double c0 = c.bf16_out ? bf16_to_float(Cb0.at(i, j)) : Cf0.at(i, j);
        ref += c.beta * c0;
        mag += std::fabs(c.beta * c0);
      }
      double bound = gamma * mag;
      if (c.bf16_out) bound += std::ldexp(1.0, -8) * (std::fabs(ref) + bound);
      const double got = c.bf16_out ? bf16_to_float(Cb.at(i, j)) : Cf.at(i, j);
      if (!(std::fabs(got - ref) <= bound))
        return "C(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(got) +
               ", reference " + std::to_string(ref) + ", bound " + std::to_string(bound);
    }
  }
  if (c.bf16_out ? !Cb.padding_is(kBf16Fill) : !Cf.padding_is(sentinel())) return "wrote outside C";
  return {};
}

TEST(LowpBf16, RandomShapesWithinBoundOnEveryPath) {
  const int64_t cases = env_int("ADAPTCORE_LOWP_CASES", 40);
  std::mt19937_64 rng(static_cast<std::uint64_t>(env_int("ADAPTCORE_TEST_SEED", 11)));
  for (const LowpRunner& r : lowp_runners(DType::Bf16)) {
    std::uniform_int_distribution<int64_t> dim(1, 300), small(1, 20), coin(0, 99);
    for (int64_t t = 0; t < cases; ++t) {
      Bf16Case c;
      c.bf16_out = coin(rng) < 40;
      c.layout = coin(rng) < 50 ? Layout::RowMajor : Layout::ColMajor;
      c.ta = coin(rng) < 50 ? Trans::No : Trans::Yes;
      c.tb = coin(rng) < 50 ? Trans::No : Trans::Yes;
      c.m = coin(rng) < 33 ? small(rng) : dim(rng);
      c.n = coin(rng) < 20 ? small(rng) : dim(rng);
      c.k = coin(rng) < 20 ? small(rng) : dim(rng);
      const float alphas[] = {1.0f, 0.5f, -2.0f};
      const float betas[] = {0.0f, 1.0f, 0.25f};
      c.alpha = alphas[coin(rng) % 3];
      c.beta = betas[coin(rng) % 3];
      c.wide = coin(rng) < 25;
      const std::string err = run_case(r, c, rng);
      ASSERT_EQ(err, "") << r.name << ": " << describe(c);
    }
  }
}

// Deep K spans several depth blocks (the planner's kc is 512 or 1024 for bf16).
TEST(LowpBf16, DeepKWithinBound) {
  std::mt19937_64 rng(5);
  for (const LowpRunner& r : lowp_runners(DType::Bf16)) {
    for (bool out : {false, true}) {
      Bf16Case c;
      c.bf16_out = out;
      c.m = 37, c.n = 45, c.k = 3001;
      c.beta = 1.0f;
      ASSERT_EQ(run_case(r, c, rng), "") << r.name << ": " << describe(c);
    }
  }
}

TEST(LowpBf16, RoundingOfTheBf16Output) {
  // Ties to even, NaN kept, overflow to infinity.
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even below
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, even above
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x7f7fffffu)), 0x7f80);  // rounds to inf
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(qnan()))));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::bit_cast<float>(0x7f800001u)))));
}

// alpha == 0 reads neither A nor B; k == 0 scales C; both with either output.
TEST(LowpBf16, AlphaZeroAndEmptyDepth) {
  auto ctx = make_context(Isa::Auto, 2);
  std::vector<float> c(6, 2.0f);
  ASSERT_EQ(gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, 2, 3, 4, 0.0f, nullptr, 4, nullptr, 3,
                      0.5f, c.data(), 3, *ctx),
            Status::Ok);
  for (float v : c) EXPECT_EQ(v, 1.0f);
  std::vector<bf16> cb(6, bf16(3.0f));
  ASSERT_EQ(gemm_bf16(Layout::ColMajor, Trans::No, Trans::No, 2, 3, 0, 1.0f, nullptr, 2, nullptr, 1,
                      2.0f, cb.data(), 2, *ctx),
            Status::Ok);
  for (auto v : cb) EXPECT_EQ(static_cast<float>(v), 6.0f);
}

}  // namespace
}  // namespace adaptcore::test

namespace adaptcore::test {
namespace {

// The vector bf16 epilogue gives the portable conversion's bits for any fp32 pattern (ties,
// NaNs, infinities, subnormals, overflow) and any beta, with masked tails.
TEST(LowpBf16, VectorRoundingMatchesPortable) {
  const auto* ks = kernels::lowp_kernels_for(DType::Bf16, Isa::Avx512Bf16);
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx512Bf16,
                         detected_hardware().features.has(Feature::Avx512Bf16) && ks != nullptr &&
                             ks->round_bf16 != nullptr);
  std::mt19937_64 rng(3);
  for (int64_t n : {int64_t{1}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{1000}}) {
    for (float beta : {0.0f, 1.0f, -0.75f}) {
      std::vector<float> acc(static_cast<std::size_t>(n));
      std::vector<std::uint16_t> out(static_cast<std::size_t>(n) + 8), want;
      for (auto& x : acc) {
        std::uint32_t u = static_cast<std::uint32_t>(rng());
        if (rng() % 4 == 0) u = (u & 0xffff0000u) | 0x8000u;  // exact ties
        if (rng() % 16 == 0) u = 0x7f800000u | (u & 0x80000000u) | (rng() % 2 ? 0u : 0x1234u);
        x = std::bit_cast<float>(u);
      }
      for (auto& v : out) v = static_cast<std::uint16_t>(rng());
      want = out;
      for (int64_t j = 0; j < n; ++j) {
        const auto jj = static_cast<std::size_t>(j);
        want[jj] = beta == 0.0f ? float_to_bf16(acc[jj])
                                : float_to_bf16(acc[jj] + beta * bf16_to_float(want[jj]));
      }
      ks->round_bf16(acc.data(), out.data(), n, beta);
      for (std::size_t j = 0; j < out.size(); ++j) {
        const bool both_nan =
            std::isnan(bf16_to_float(out[j])) && std::isnan(bf16_to_float(want[j]));
        ASSERT_TRUE(out[j] == want[j] || (both_nan && j < static_cast<std::size_t>(n)))
            << "n=" << n << " beta=" << beta << " j=" << j << " got " << out[j] << " want "
            << want[j];
      }
    }
  }
}

}  // namespace
}  // namespace adaptcore::test
