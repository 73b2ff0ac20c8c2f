// The C offset of the int8 GEMM (COffset: fixed, per row, per column of C), through the public
// API of libadaptcore.so: bit-exact against an int64 reference reduced modulo 2^32 for both
// signedness kinds, both layouts, all transposes, padded leading dimensions, zero points and
// betas; padding of C untouched; argument errors leave C untouched; OffsetKind::None equals
// the overload without an offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"

namespace adaptcore {
namespace {

constexpr std::int32_t kFill = 0x5a5a5a5a;

// rows x cols stored in a layout with ld = minimum + pad; everything else holds `fill`.
template <class T>
struct Stored {
  int64_t rows, cols, ld;
  bool row_major;
  std::vector<T> data;
  Stored(int64_t r, int64_t c, bool rm, int64_t pad, T fill)
      : rows(r), cols(c), ld(std::max<int64_t>(1, (rm ? c : r) + pad)), row_major(rm) {
    data.assign(static_cast<std::size_t>(std::max<int64_t>(1, (rm ? r : c) * ld)), fill);
  }
  std::size_t index(int64_t i, int64_t j) const {
    return static_cast<std::size_t>(row_major ? i * ld + j : j * ld + i);
  }
  T& at(int64_t i, int64_t j) { return data[index(i, j)]; }
  const T& at(int64_t i, int64_t j) const { return data[index(i, j)]; }
};

struct Case {
  bool s8s8 = false;
  Layout layout = Layout::RowMajor;
  Trans ta = Trans::No, tb = Trans::No;
  int64_t m = 1, n = 1, k = 1;
  std::int32_t beta = 0;
  OffsetKind kind = OffsetKind::Fixed;
  bool zero_points = false;
  bool extreme_offsets = false;  // offsets near +-2^31: the sums wrap
};

std::string describe(const Case& c) {
  return std::string(c.s8s8 ? "s8s8" : "u8s8") + (c.layout == Layout::RowMajor ? " row" : " col") +
         (c.ta == Trans::No ? " N" : " T") + (c.tb == Trans::No ? "N" : "T") +
         " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         " beta=" + std::to_string(c.beta) + " kind=" + std::to_string(static_cast<int>(c.kind)) +
         (c.zero_points ? " zp" : "") + (c.extreme_offsets ? " wrap" : "");
}

std::int32_t mod32(int64_t v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
}

// Runs one case; "" or the first difference.
std::string run_case(Context& ctx, const Case& c, std::mt19937_64& rng) {
  const bool rm = c.layout == Layout::RowMajor;
  const bool ta = c.ta != Trans::No, tb = c.tb != Trans::No;
  std::uniform_int_distribution<int64_t> pad(0, 3);
  std::uniform_int_distribution<int> byte(0, 255);
  Stored<std::uint8_t> A(ta ? c.k : c.m, ta ? c.m : c.k, rm, pad(rng), 0xEE);
  Stored<std::int8_t> B(tb ? c.n : c.k, tb ? c.k : c.n, rm, pad(rng), 0x11);
  Stored<std::int32_t> C(c.m, c.n, rm, pad(rng), kFill);
  for (auto& v : A.data) v = static_cast<std::uint8_t>(byte(rng));
  for (auto& v : B.data) v = static_cast<std::int8_t>(byte(rng) - 128);
  std::uniform_int_distribution<std::int32_t> any(-2000000000, 2000000000);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) C.at(i, j) = any(rng);
  const Stored<std::int32_t> C0 = C;
  const int64_t count = c.kind == OffsetKind::Fixed ? 1 : c.kind == OffsetKind::PerRow ? c.m : c.n;
  std::vector<std::int32_t> co(static_cast<std::size_t>(count));
  std::uniform_int_distribution<std::int32_t> near_limit(
      std::numeric_limits<std::int32_t>::max() - 100, std::numeric_limits<std::int32_t>::max());
  for (auto& v : co) v = c.extreme_offsets ? near_limit(rng) * ((rng() & 1) ? 1 : -1) : any(rng);
  const std::int32_t azp = c.zero_points ? (c.s8s8 ? -3 : 9) : 0;
  const std::int32_t bzp = c.zero_points ? 5 : 0;
  const ZeroPoints za{&azp, c.zero_points ? 1 : 0}, zb{&bzp, c.zero_points ? 1 : 0};
  const COffset offset{c.kind, co.data()};

  const Status s =
      c.s8s8 ? gemm_s8s8s32(c.layout, c.ta, c.tb, c.m, c.n, c.k,
                            reinterpret_cast<const std::int8_t*>(A.data.data()), A.ld, za,
                            B.data.data(), B.ld, zb, c.beta, C.data.data(), C.ld, offset, ctx)
             : gemm_u8s8s32(c.layout, c.ta, c.tb, c.m, c.n, c.k, A.data.data(), A.ld, za,
                            B.data.data(), B.ld, zb, c.beta, C.data.data(), C.ld, offset, ctx);
  if (s != Status::Ok) return std::string("status ") + to_string(s);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      int64_t acc = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const std::uint8_t a = ta ? A.at(p, i) : A.at(i, p);
        const int64_t av = c.s8s8 ? static_cast<std::int8_t>(a) : a;
        acc += (av - azp) * (static_cast<int64_t>(tb ? B.at(j, p) : B.at(p, j)) - bzp);
      }
      const int64_t add = co[static_cast<std::size_t>(c.kind == OffsetKind::Fixed    ? 0
                                                      : c.kind == OffsetKind::PerRow ? i
                                                                                     : j)];
      const std::int32_t want =
          mod32(acc + static_cast<int64_t>(c.beta) * (c.beta == 0 ? 0 : C0.at(i, j)) + add);
      if (C.at(i, j) != want)
        return "C(" + std::to_string(i) + "," + std::to_string(j) +
               ") = " + std::to_string(C.at(i, j)) + ", want " + std::to_string(want);
    }
  for (int64_t i = 0; i < C.rows; ++i)
    for (int64_t j = 0; j < C.cols; ++j) C.at(i, j) = kFill;
  for (auto v : C.data)
    if (v != kFill) return "padding of C written";
  return "";
}

Context& test_context() {
  static Context ctx([] {
    ContextOptions o;
    o.threads = 2;
    o.read_environment = false;
    return o;
  }());
  return ctx;
}

TEST(LowpCOffset, ExactForEveryKindLayoutAndTranspose) {
  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<int64_t> dim(1, 70);
  int cases = 0;
  for (bool s8s8 : {false, true})
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (Trans ta : {Trans::No, Trans::Yes})
        for (Trans tb : {Trans::No, Trans::Yes})
          for (OffsetKind kind : {OffsetKind::Fixed, OffsetKind::PerRow, OffsetKind::PerColumn}) {
            Case c;
            c.s8s8 = s8s8, c.layout = layout, c.ta = ta, c.tb = tb, c.kind = kind;
            c.m = dim(rng), c.n = dim(rng), c.k = dim(rng);
            c.beta = std::array<std::int32_t, 3>{0, 1, -3}[static_cast<std::size_t>(cases % 3)];
            c.zero_points = (cases & 1) != 0;
            c.extreme_offsets = cases % 4 == 3;
            ++cases;
            EXPECT_EQ(run_case(test_context(), c, rng), "") << describe(c);
          }
}

// Shapes where m == n (a per-row and a per-column offset of one length must differ), single
// rows and columns, and a depth of 0 (C = beta C + offset).
TEST(LowpCOffset, EdgeShapes) {
  std::mt19937_64 rng(7);
  const int64_t shapes[][3] = {{5, 5, 9}, {1, 33, 17}, {33, 1, 17}, {1, 1, 1}, {6, 7, 0}};
  for (const auto& sh : shapes)
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (OffsetKind kind : {OffsetKind::Fixed, OffsetKind::PerRow, OffsetKind::PerColumn})
        for (std::int32_t beta : {0, 2}) {
          Case c;
          c.layout = layout, c.kind = kind, c.beta = beta;
          c.m = sh[0], c.n = sh[1], c.k = sh[2];
          EXPECT_EQ(run_case(test_context(), c, rng), "") << describe(c);
        }
}

TEST(LowpCOffset, NoneEqualsTheCallWithoutOffset) {
  const int64_t m = 9, n = 13, k = 21;
  std::vector<std::uint8_t> a(static_cast<std::size_t>(m * k));
  std::vector<std::int8_t> b(static_cast<std::size_t>(k * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 37);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int8_t>(i * 11);
  std::vector<std::int32_t> c1(static_cast<std::size_t>(m * n), 3), c2 = c1;
  ASSERT_EQ(gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, m, n, k, a.data(), k, {}, b.data(),
                         n, {}, 1, c1.data(), n, test_context()),
            Status::Ok);
  ASSERT_EQ(gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, m, n, k, a.data(), k, {}, b.data(),
                         n, {}, 1, c2.data(), n, COffset{}, test_context()),
            Status::Ok);
  EXPECT_EQ(c1, c2);
}

TEST(LowpCOffset, ErrorsLeaveCUntouched) {
  std::vector<std::uint8_t> a(16, 1);
  std::vector<std::int8_t> b(16, 1);
  std::vector<std::int32_t> c(16, 7);
  const std::int32_t values[4] = {1, 2, 3, 4};
  auto call = [&](COffset co, int64_t m = 4) {
    return gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, m, 4, 4, a.data(), 4, {}, b.data(),
                        4, {}, 0, c.data(), 4, co, test_context());
  };
  EXPECT_EQ(call({static_cast<OffsetKind>(4), values}), Status::InvalidArgument);
  EXPECT_EQ(call({static_cast<OffsetKind>(-1), values}), Status::InvalidArgument);
  EXPECT_EQ(call({OffsetKind::Fixed, nullptr}), Status::NullPointer);
  EXPECT_EQ(call({OffsetKind::PerRow, nullptr}), Status::NullPointer);
  EXPECT_EQ(call({OffsetKind::PerColumn, nullptr}), Status::NullPointer);
  EXPECT_EQ(call({OffsetKind::Fixed, nullptr}, 0), Status::NullPointer);  // even for an empty C
  // The checks of the product come first, in the fp32 order.
  EXPECT_EQ(
      gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, 4, 4, 4, a.data(), 3, {}, b.data(), 4,
                   {}, 0, c.data(), 4, {static_cast<OffsetKind>(9), nullptr}, test_context()),
      Status::InvalidLeadingDimension);
  for (auto v : c) EXPECT_EQ(v, 7);
  EXPECT_EQ(call({OffsetKind::None, nullptr}), Status::Ok);
  EXPECT_EQ(call({OffsetKind::PerRow, values}, 0), Status::Ok);  // empty C: nothing to add
  for (auto v : c) EXPECT_EQ(v, 4);
}

}  // namespace
}  // namespace adaptcore
