// int8 GEMM (u8 x s8 -> s32, s8 x s8 -> s32) against an int64 reference: every result must be
// bit-exact (modulo 2^32, which is the exact value whenever it fits in int32) on every kernel
// path, for random shapes of 1..300, all layouts and transposes, padded leading dimensions,
// zero points per row / per column / per matrix, extreme values and long K.
#include <gtest/gtest.h>

#include "lowp_test_util.hpp"

namespace adaptcore::test {
namespace {

constexpr std::int32_t kCFill = 0x5a5a5a5a;

struct Int8Case {
  LowpKind kind = LowpKind::U8S8S32;
  Layout layout = Layout::RowMajor;
  Trans ta = Trans::No, tb = Trans::No;
  int64_t m = 1, n = 1, k = 1;
  std::int32_t beta = 0;
  int a_zp_mode = 0, b_zp_mode = 0;  // 0 none, 1 whole matrix, 2 per row / column
  int extremes = 0;                  // 0 random, 1 A max / B min, 2 A min / B max
};

std::string describe(const Int8Case& c) {
  return std::string(c.kind == LowpKind::U8S8S32 ? "u8s8" : "s8s8") + " " + name(c.layout) + " " +
         name(c.ta) + name(c.tb) + " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
         " k=" + std::to_string(c.k) + " beta=" + std::to_string(c.beta) +
         " zp=" + std::to_string(c.a_zp_mode) + "/" + std::to_string(c.b_zp_mode) +
         " ext=" + std::to_string(c.extremes);
}

// Runs one case and returns "" or the first mismatch.
std::string run_case(const LowpRunner& r, const Int8Case& c, std::mt19937_64& rng) {
  const bool rm = c.layout == Layout::RowMajor;
  const bool ta = c.ta != Trans::No, tb = c.tb != Trans::No;
  std::uniform_int_distribution<int64_t> pad(0, 3);
  // Stored A is m x k (k x m transposed); bytes are u8 or s8 by kind.
  Mat<std::uint8_t> A(ta ? c.k : c.m, ta ? c.m : c.k, rm, pad(rng), 0xEE);
  Mat<std::int8_t> B(tb ? c.n : c.k, tb ? c.k : c.n, rm, pad(rng), 0x11);
  Mat<std::int32_t> C(c.m, c.n, rm, pad(rng), kCFill);
  std::uniform_int_distribution<int> byte(0, 255);
  const bool a_signed = c.kind == LowpKind::S8S8S32;
  for (int64_t i = 0; i < A.rows; ++i)
    for (int64_t j = 0; j < A.cols; ++j) {
      int v = byte(rng);
      if (c.extremes == 1) v = a_signed ? 0x7f : 255;
      if (c.extremes == 2) v = a_signed ? 0x80 : 0;
      A.at(i, j) = static_cast<std::uint8_t>(v);
    }
  for (int64_t i = 0; i < B.rows; ++i)
    for (int64_t j = 0; j < B.cols; ++j) {
      int v = byte(rng) - 128;
      if (c.extremes == 1) v = -128;
      if (c.extremes == 2) v = 127;
      B.at(i, j) = static_cast<std::int8_t>(v);
    }
  std::uniform_int_distribution<std::int32_t> anyint(-2000000000, 2000000000);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) C.at(i, j) = anyint(rng);
  const Mat<std::int32_t> C0 = C;
  std::vector<std::int32_t> azp(static_cast<std::size_t>(c.m)), bzp(static_cast<std::size_t>(c.n));
  std::uniform_int_distribution<std::int32_t> zpa(a_signed ? -128 : 0, a_signed ? 127 : 255),
      zpb(-128, 127);
  for (auto& v : azp) v = zpa(rng);
  for (auto& v : bzp) v = zpb(rng);

  LowpCall call;
  call.kind = c.kind;
  call.layout = c.layout, call.transa = c.ta, call.transb = c.tb;
  call.m = c.m, call.n = c.n, call.k = c.k;
  call.a = A.data.data(), call.lda = A.ld;
  call.b = B.data.data(), call.ldb = B.ld;
  call.c = C.data.data(), call.ldc = C.ld;
  call.ibeta = c.beta;
  call.a_zp = {azp.data(), c.a_zp_mode == 0 ? 0 : c.a_zp_mode == 1 ? 1 : c.m};
  call.b_zp = {bzp.data(), c.b_zp_mode == 0 ? 0 : c.b_zp_mode == 1 ? 1 : c.n};
  const Status s = r.run(call);
  if (s != Status::Ok) return std::string("status ") + to_string(s);

  auto a_val = [&](int64_t i, int64_t p) -> int64_t {
    const std::uint8_t x = ta ? A.at(p, i) : A.at(i, p);
    return a_signed ? static_cast<int64_t>(static_cast<std::int8_t>(x)) : x;
  };
  auto b_val = [&](int64_t p, int64_t j) -> int64_t { return tb ? B.at(j, p) : B.at(p, j); };
  for (int64_t i = 0; i < c.m; ++i) {
    const int64_t za = c.a_zp_mode == 0   ? 0
                       : c.a_zp_mode == 1 ? azp[0]
                                          : azp[static_cast<std::size_t>(i)];
    for (int64_t j = 0; j < c.n; ++j) {
      const int64_t zb = c.b_zp_mode == 0   ? 0
                         : c.b_zp_mode == 1 ? bzp[0]
                                            : bzp[static_cast<std::size_t>(j)];
      int64_t ref = 0;
      for (int64_t p = 0; p < c.k; ++p) ref += (a_val(i, p) - za) * (b_val(p, j) - zb);
      ref += static_cast<int64_t>(c.beta) * C0.at(i, j);
      const auto want =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(ref)));
      if (C.at(i, j) != want)
        return "C(" + std::to_string(i) + "," + std::to_string(j) +
               ") = " + std::to_string(C.at(i, j)) + ", want " + std::to_string(want) + " (int64 " +
               std::to_string(ref) + ")";
    }
  }
  if (!C.padding_is(kCFill)) return "wrote outside C";
  return {};
}

TEST(LowpInt8, RandomShapesExactOnEveryPath) {
  const int64_t cases = env_int("ADAPTCORE_LOWP_CASES", 40);
  std::mt19937_64 rng(static_cast<std::uint64_t>(env_int("ADAPTCORE_TEST_SEED", 7)));
  for (const LowpRunner& r : lowp_runners(DType::U8S8)) {
    std::uniform_int_distribution<int64_t> dim(1, 300), small(1, 20), coin(0, 99);
    for (int64_t t = 0; t < cases; ++t) {
      Int8Case c;
      c.kind = coin(rng) < 50 ? LowpKind::U8S8S32 : LowpKind::S8S8S32;
      c.layout = coin(rng) < 50 ? Layout::RowMajor : Layout::ColMajor;
      c.ta = coin(rng) < 50 ? Trans::No : Trans::Yes;
      c.tb = coin(rng) < 50 ? Trans::No : Trans::Yes;
      // A third of the shapes small in some dimension (tails, decode-like M).
      c.m = coin(rng) < 33 ? small(rng) : dim(rng);
      c.n = coin(rng) < 20 ? small(rng) : dim(rng);
      c.k = coin(rng) < 20 ? small(rng) : dim(rng);
      const std::int32_t betas[] = {0, 1, -3};
      c.beta = betas[coin(rng) % 3];
      c.a_zp_mode = static_cast<int>(coin(rng) % 3);
      c.b_zp_mode = static_cast<int>(coin(rng) % 3);
      c.extremes = coin(rng) < 10 ? 1 + static_cast<int>(coin(rng) % 2) : 0;
      const std::string err = run_case(r, c, rng);
      ASSERT_EQ(err, "") << r.name << ": " << describe(c);
    }
  }
}

// The K limit: 65793 * 255 * -128 = -2147483520 still fits in int32 and is exact; one more
// step of K wraps, and the result is then the reference modulo 2^32 (as vpdpbusd's own
// wrapping add gives).
TEST(LowpInt8, ExtremesAtTheKLimit) {
  std::mt19937_64 rng(1);
  for (const LowpRunner& r : lowp_runners(DType::U8S8)) {
    for (int64_t k : {int64_t{65793}, int64_t{65794}}) {
      for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
        // s8 x s8 runs as (A + 128) x B: with A = 127, B = -128 the kernel's own sum is
        // 255 * -128 per step, at the limit, and the compensation brings it back.
        for (LowpKind kind : {LowpKind::U8S8S32, LowpKind::S8S8S32}) {
          for (int ext : {1, 2}) {
            Int8Case c;
            c.kind = kind;
            c.layout = l;
            c.m = 3, c.n = 17, c.k = k;
            c.extremes = ext;
            ASSERT_EQ(run_case(r, c, rng), "") << r.name << ": " << describe(c);
          }
        }
      }
    }
  }
}

TEST(LowpInt8, ExactMinimumFitsAtTheLimit) {
  // The arithmetic behind the stated limit.
  EXPECT_GE(int64_t{65793} * 255 * -128, int64_t{INT32_MIN});
  EXPECT_LT(int64_t{65794} * 255 * -128, int64_t{INT32_MIN});
}

}  // namespace
}  // namespace adaptcore::test
