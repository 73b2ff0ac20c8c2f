// The vendor baselines' low-precision entry points (Baseline::run_lowp): MKL's
// cblas_gemm_bf16bf16f32 / cblas_gemm_s8u8s32 (u8s8 as the transposed product, s8s8 through the
// +128 shift) and oneDNN's bf16 matmul / dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 give the exact
// int32 result (int8) or one within the bf16 bound, for every transpose combination, padded
// leading dimensions and zero points of A. A missing library is skipped with its message; a
// library without the operation must say so through supports_lowp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "baselines/baseline.hpp"

namespace ab = adaptcore::bench;

namespace {

struct Case {
  int64_t m, n, k;
  bool ta, tb;
  int64_t pad;  // added to every leading dimension
};
constexpr Case kCases[] = {{1, 1, 1, false, false, 0},
                           {7, 13, 5, false, true, 3},
                           {33, 65, 17, true, false, 0},
                           {20, 9, 70, true, true, 5},
                           {64, 48, 129, false, false, 16}};

float bf16_value(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

// Runs `type` on one case and returns the number of wrong entries of C (or -1 if unsupported).
int64_t wrong_entries(ab::Baseline& lib, ab::LowpType type, const Case& c, int32_t a_zp) {
  std::mt19937 rng(static_cast<uint32_t>(c.m * 131 + c.n * 7 + c.k));
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  const int64_t lda = a_cols + c.pad, ldb = b_cols + c.pad, ldc = c.n + c.pad;
  const bool bf16 = type == ab::LowpType::Bf16;
  std::vector<uint16_t> a16(static_cast<std::size_t>(a_rows * lda)),
      b16(static_cast<std::size_t>(b_rows * ldb));
  std::vector<uint8_t> a8(a16.size());
  std::vector<int8_t> b8(b16.size());
  for (auto& v : a16) v = static_cast<uint16_t>(0x3f80 + rng() % 256 - 128 + (rng() % 2) * 0x8000);
  for (auto& v : b16) v = static_cast<uint16_t>(0x3f80 + rng() % 256 - 128 + (rng() % 2) * 0x8000);
  for (auto& v : a8) v = static_cast<uint8_t>(rng());
  for (auto& v : b8) v = static_cast<int8_t>(rng());
  std::vector<float> cf(static_cast<std::size_t>(c.m * ldc), NAN);
  std::vector<int32_t> ci(cf.size(), 0x5a5a5a5a);
  const ab::LowpGemmCall call{type,
                              c.m,
                              c.n,
                              c.k,
                              c.ta,
                              c.tb,
                              bf16 ? static_cast<const void*>(a16.data()) : a8.data(),
                              lda,
                              bf16 ? static_cast<const void*>(b16.data()) : b8.data(),
                              ldb,
                              bf16 ? static_cast<void*>(cf.data()) : ci.data(),
                              ldc,
                              a_zp};
  if (!lib.supports_lowp(call)) return -1;
  lib.prepare_lowp(call);
  lib.run_lowp(call);
  int64_t wrong = 0;
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double ref = 0, mag = 0;
      int64_t iref = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const std::size_t ai = static_cast<std::size_t>(c.ta ? p * lda + i : i * lda + p);
        const std::size_t bi = static_cast<std::size_t>(c.tb ? j * ldb + p : p * ldb + j);
        if (bf16) {
          const double prod = static_cast<double>(bf16_value(a16[ai])) * bf16_value(b16[bi]);
          ref += prod, mag += std::fabs(prod);
        } else {
          const int64_t av = type == ab::LowpType::U8S8 ? a8[ai] : static_cast<int8_t>(a8[ai]);
          iref += (av - a_zp) * b8[bi];
        }
      }
      const std::size_t at = static_cast<std::size_t>(i * ldc + j);
      if (bf16) {
        const double n =
            static_cast<double>(c.k + 2 * ((c.k + 63) / 64) + 4) * std::ldexp(1.0, -24);
        if (!(std::fabs(cf[at] - ref) <= n / (1 - n) * mag)) ++wrong;
      } else if (ci[at] != static_cast<int32_t>(static_cast<uint32_t>(iref))) {
        ++wrong;
      }
    }
  }
  return wrong;
}

class LowpBaselineTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LowpBaselineTest, ExactInt8AndBoundedBf16) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "vendor libraries are not instrumented for TSan";
#endif
  ab::LoadedBaseline lb = ab::load_baseline(GetParam(), 2);
  if (!lb.lib) GTEST_SKIP() << lb.message;
  int supported = 0;
  for (const Case& c : kCases) {
    for (auto [type, zp] : {std::pair{ab::LowpType::Bf16, 0}, std::pair{ab::LowpType::U8S8, 0},
                            std::pair{ab::LowpType::U8S8, 100}, std::pair{ab::LowpType::S8S8, 0},
                            std::pair{ab::LowpType::S8S8, -5}}) {
      const int64_t wrong = wrong_entries(*lb.lib, type, c, zp);
      if (wrong >= 0) ++supported;
      EXPECT_LE(wrong, 0) << GetParam() << " type " << static_cast<int>(type) << " zp " << zp
                          << " shape " << c.m << 'x' << c.n << 'x' << c.k;
    }
  }
  // MKL has every operation; oneDNN those it computes exactly on this CPU (bf16 from AVX-512
  // on, int8 with a VNNI dot product: none on an AVX2 Zen 3); the others have none.
  const bool onednn_here = GetParam() == "onednn" && __builtin_cpu_supports("avx512f");
  if (GetParam() == "mkl" || onednn_here) {
    EXPECT_GT(supported, 0);
  } else if (GetParam() != "onednn") {
    EXPECT_EQ(supported, 0);
  }
}

TEST_P(LowpBaselineTest, ZeroPointsOutsideTheLibrarysRangeAreUnsupported) {
  ab::LoadedBaseline lb = ab::load_baseline(GetParam(), 1);
  if (!lb.lib) GTEST_SKIP() << lb.message;
  uint8_t a = 1;
  int8_t b = 1;
  int32_t c = 0;
  // No library offsets A by more than a byte can hold (oneDNN: u8 for u8s8; MKL: -bo an s8).
  const ab::LowpGemmCall call{ab::LowpType::U8S8, 1, 1, 1, false, false, &a, 1, &b, 1, &c, 1, 300};
  EXPECT_FALSE(lb.lib->supports_lowp(call));
  // Inconsistent leading dimensions are refused, never passed on.
  const ab::LowpGemmCall bad{ab::LowpType::Bf16, 4, 4, 4, false, false, &a, 2, &b, 4, &c, 4, 0};
  EXPECT_FALSE(lb.lib->supports_lowp(bad));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& p) { return p.param; }
INSTANTIATE_TEST_SUITE_P(All, LowpBaselineTest, ::testing::ValuesIn(ab::baseline_names()),
                         test_name);

}  // namespace
