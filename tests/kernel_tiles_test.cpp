// Every entry of every kernel table this CPU runs, called directly on small operands whose
// products and sums are exact in fp32 (small integers, power-of-two alpha), against a scalar
// reference: the mainloop's sums and the epilogue's contract (kernels/tile_epilogue.hpp):
//   - C = alpha * acc + beta * C (fp32), C = acc + ibeta * C modulo 2^32 (int8);
//   - beta == 0 never reads C (it holds NaN here);
//   - nothing outside the m x n tile is written (a sentinel around it stays);
//   - int8 in-place and dot-product tiles add B's column sums, read with B's sign, to colsum;
//   - the fp32 tiles' transposed-store twins (Plan::transpose_c) put tile element (i, j) at
//     C(j, i), densely stored C and padded.
// Row counts 1..mr, column tails, empty and partial depths.
#include <gtest/gtest.h>

#include <algorithm>
#include "cpu_skip.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore {
namespace {

constexpr std::uint32_t kSentinel = 0x7fa5a5a5u;  // a NaN no kernel produces

// A C block of `rows` x `ld` 32-bit cells, all sentinel; the tile m x n at its top left.
struct CBlock {
  int rows, ld;
  std::vector<std::uint32_t> cells;
  CBlock(int r, int l) : rows(r), ld(l), cells(static_cast<std::size_t>(r * l), kSentinel) {}
  std::uint32_t& at(int i, int j) { return cells[static_cast<std::size_t>(i * ld + j)]; }
  void* data() { return cells.data(); }
};

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// Fills the tile's old C: small integers where beta reads them, NaN where it must not.
void fill_c(CBlock& c, int m, int n, bool read, std::mt19937_64& rng, bool integer) {
  std::uniform_int_distribution<int> d(-9, 9);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      c.at(i, j) = integer ? static_cast<std::uint32_t>(static_cast<std::int32_t>(rng()))
                           : (read ? bits(static_cast<float>(d(rng))) : bits(std::nanf("")));
}

// Checks the tile against want(i, j) and the sentinel around it; "" when right.
template <class Want>
std::string check_c(CBlock& c, int m, int n, Want want) {
  for (int i = 0; i < c.rows; ++i)
    for (int j = 0; j < c.ld; ++j) {
      const std::uint32_t got = c.at(i, j);
      const std::uint32_t w = i < m && j < n ? want(i, j) : kSentinel;
      if (got != w)
        return "C(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(got) +
               ", want " + std::to_string(w);
    }
  return "";
}

std::uint32_t linear(double acc, float alpha, float beta, std::uint32_t old) {
  const double r = alpha * acc + (beta != 0.0f ? beta * from_bits(old) : 0.0);
  return bits(static_cast<float>(r));
}
std::uint32_t wrap(std::int64_t acc, std::int32_t ibeta, std::uint32_t old) {
  return static_cast<std::uint32_t>(acc) + static_cast<std::uint32_t>(ibeta) * old;
}

struct Scale {
  float alpha, beta;
  std::int32_t ibeta;
};
constexpr Scale kScales[] = {{1.0f, 0.0f, 0}, {0.5f, 1.0f, 1}, {1.0f, -2.0f, -3}};

// ---------------------------------------------------------------- fp32 register tiles

void check_fp32_tiles(const kernels::IsaKernels& ks) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> d(-3, 3);
  for (const kernels::TileKernels& t : ks.tiles)
    for (int mode = 0; mode < kernels::kAModes; ++mode)
      for (int m = 1; m <= t.mr; ++m)
        for (int n : {t.nr, t.nr - 1, 1, std::min(t.nr, t.lanes + 1)})
          for (int64_t k : {0, 1, 9})
            for (bool packed_b : {true, false})
              for (const Scale s : kScales) {
                const int64_t a_stride = mode == 0 ? t.mr : k + 1;
                std::vector<float> a(static_cast<std::size_t>(t.mr * (k + 1) + 1));
                for (float& x : a) x = static_cast<float>(d(rng));
                auto av = [&](int i, int64_t p) {
                  return a[static_cast<std::size_t>(mode == 0 ? i + p * a_stride
                                                              : i * a_stride + p)];
                };
                const int64_t ldb = packed_b ? t.nr : n + 3;
                std::vector<float> b(static_cast<std::size_t>((k + 1) * ldb + t.nr));
                for (float& x : b) x = static_cast<float>(d(rng));
                CBlock c(t.mr + 1, t.nr + 3);
                fill_c(c, m, n, s.beta != 0.0f, rng, false);
                const std::vector<std::uint32_t> old = c.cells;
                const kernels::UKernelArgs args{
                    k,    a.data(), a_stride, b.data(), ldb, reinterpret_cast<float*>(c.data()),
                    c.ld, s.alpha,  s.beta,   n};
                t.get(static_cast<kernels::AMode>(mode), m)(args);
                const std::string err = check_c(c, m, n, [&](int i, int j) {
                  double acc = 0;
                  for (int64_t p = 0; p < k; ++p)
                    acc += av(i, p) * b[static_cast<std::size_t>(p * ldb + j)];
                  return linear(acc, s.alpha, s.beta, old[static_cast<std::size_t>(i * c.ld + j)]);
                });
                ASSERT_EQ(err, "")
                    << to_string(ks.isa) << " " << t.mr << "x" << t.nr << " mode " << mode
                    << " m=" << m << " n=" << n << " k=" << k
                    << (packed_b ? " packed B" : " B in place") << " beta=" << s.beta;
                if (!t.has_transposed_store()) continue;
                // The transposed store: tile element (i, j) at C(j, i), C's rows `ld` apart,
                // densely (ld == m, the run of rows) and padded (the row stores).
                for (const int ld : {m, m + 3}) {
                  CBlock ct(t.nr + 1, ld);
                  fill_c(ct, n, m, s.beta != 0.0f, rng, false);
                  const std::vector<std::uint32_t> old_t = ct.cells;
                  kernels::UKernelArgs targs = args;
                  targs.c = reinterpret_cast<float*>(ct.data());
                  targs.ldc = ld;
                  t.get_tc(static_cast<kernels::AMode>(mode), m)(targs);
                  const std::string terr = check_c(ct, n, m, [&](int r, int q) {
                    double acc = 0;
                    for (int64_t p = 0; p < k; ++p)
                      acc += av(q, p) * b[static_cast<std::size_t>(p * ldb + r)];
                    return linear(acc, s.alpha, s.beta,
                                  old_t[static_cast<std::size_t>(r * ld + q)]);
                  });
                  ASSERT_EQ(terr, "")
                      << to_string(ks.isa) << " " << t.mr << "x" << t.nr << " transposed, mode "
                      << mode << " m=" << m << " n=" << n << " k=" << k << " ldc=" << ld
                      << (packed_b ? " packed B" : " B in place") << " beta=" << s.beta;
                }
              }
}

void check_fp32_dots(const kernels::IsaKernels& ks) {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> d(-3, 3);
  for (int m = 1; m <= kernels::kDotMr; ++m)
    for (int n = 1; n <= kernels::kDotNr; ++n)
      for (int64_t k : {1, 7, 16, 37})
        for (const Scale s : kScales) {
          const int64_t lda = k + 2, ldb = k + 1;
          std::vector<float> a(static_cast<std::size_t>(m * lda)),
              b(static_cast<std::size_t>(n * ldb));
          for (float& x : a) x = static_cast<float>(d(rng));
          for (float& x : b) x = static_cast<float>(d(rng));
          CBlock c(m + 1, n + 3);
          fill_c(c, m, n, s.beta != 0.0f, rng, false);
          const std::vector<std::uint32_t> old = c.cells;
          kernels::DotArgs args{k,        a.data(), lda,
                                b.data(), ldb,      reinterpret_cast<float*>(c.data()),
                                c.ld,     s.alpha,  s.beta};
          // The read-ahead of a next tile (a hint, here over these columns again) changes
          // nothing; the kernels take another loop for it.
          if (k % 2 == 1) {
            args.b_next = b.data();
            args.b_next_cols = n;
          }
          ks.dot->get(m, n)(args);
          const std::string err = check_c(c, m, n, [&](int i, int j) {
            double acc = 0;
            for (int64_t p = 0; p < k; ++p)
              acc += a[static_cast<std::size_t>(i * lda + p)] *
                     b[static_cast<std::size_t>(j * ldb + p)];
            return linear(acc, s.alpha, s.beta, old[static_cast<std::size_t>(i * c.ld + j)]);
          });
          ASSERT_EQ(err, "") << to_string(ks.isa) << " dot m=" << m << " n=" << n << " k=" << k
                             << " beta=" << s.beta;
        }
}

// A sweep (UKernelArgs::tiles, tiles of up to kSweepKernelRows rows): three whole column tiles
// in one call write what three calls of one tile each write, bit for bit, and nothing past
// them: B in place (tiles nr columns apart) and packed (nr * k floats apart), C as rows and
// transposed, with beta 0 (C holds NaN) and not.
void check_fp32_sweeps(const kernels::IsaKernels& ks) {
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  constexpr int64_t kTiles = 3;
  for (const kernels::TileKernels& t : ks.tiles)
    for (int mode = 0; mode < kernels::kAModes; ++mode)
      for (int m = 1; m <= std::min(t.mr, kernels::kSweepKernelRows); ++m)
        for (const int64_t k : {1, 8, 19})
          for (const bool packed_b : {true, false})
            for (const bool transposed : {false, true})
              for (const Scale s : kScales) {
                if (transposed && !t.has_transposed_store()) continue;
                const int64_t a_stride = mode == 0 ? t.mr : k + 1;
                std::vector<float> a(static_cast<std::size_t>(t.mr * (k + 1) + 1));
                for (float& x : a) x = d(rng);
                const int64_t ldb = packed_b ? t.nr : kTiles * t.nr + 5;
                const int64_t b_tile_step = packed_b ? t.nr * k : t.nr;
                std::vector<float> b(static_cast<std::size_t>(kTiles * t.nr * (k + 1) + ldb * k));
                for (float& x : b) x = d(rng);
                // C: m rows of kTiles * nr columns (or its transpose), a sentinel column after.
                const int64_t rows = transposed ? kTiles * t.nr : m;
                const int64_t cols = transposed ? m : kTiles * t.nr;
                const int64_t ldc = cols + 1;
                std::vector<float> c0(static_cast<std::size_t>(rows * ldc + 1));
                for (float& x : c0) x = s.beta != 0.0f ? d(rng) : std::nanf("");
                std::vector<float> swept = c0, single = c0;
                const kernels::UKernelFn fn = transposed
                                                  ? t.get_tc(static_cast<kernels::AMode>(mode), m)
                                                  : t.get(static_cast<kernels::AMode>(mode), m);
                const int64_t c_tile_step = transposed ? t.nr * ldc : t.nr;
                kernels::UKernelArgs args{k,   a.data(), a_stride, b.data(), ldb, swept.data(),
                                          ldc, s.alpha,  s.beta,   t.nr};
                args.tiles = kTiles, args.b_tile_step = b_tile_step;
                args.c_tile_step = c_tile_step;
                fn(args);
                for (int64_t i = 0; i < kTiles; ++i) {
                  kernels::UKernelArgs one{k,        a.data(),
                                           a_stride, b.data() + i * b_tile_step,
                                           ldb,      single.data() + i * c_tile_step,
                                           ldc,      s.alpha,
                                           s.beta,   t.nr};
                  fn(one);
                }
                ASSERT_EQ(std::memcmp(swept.data(), single.data(), swept.size() * sizeof(float)), 0)
                    << to_string(ks.isa) << " " << t.mr << "x" << t.nr << " mode " << mode
                    << " m=" << m << " k=" << k << (packed_b ? " packed B" : " B in place")
                    << (transposed ? " transposed" : "") << " beta=" << s.beta;
                for (int64_t r = 0; r < rows; ++r) {  // the sentinel column is left alone
                  const float sentinel = c0[static_cast<std::size_t>(r * ldc + cols)];
                  const float got = swept[static_cast<std::size_t>(r * ldc + cols)];
                  ASSERT_TRUE(std::memcmp(&sentinel, &got, sizeof(float)) == 0) << r;
                }
              }
}

TEST(KernelTiles, Fp32TilesAndDotTilesOnEveryPath) {
  const HardwareProfile& hw = detected_hardware();
  for (const Isa isa : kernels::built_levels()) {
    const kernels::IsaKernels* ks = kernels::kernels_for(isa);
    if (!hw.supports(isa) || ks->isa != isa) continue;  // each table once
    check_fp32_tiles(*ks);
    check_fp32_sweeps(*ks);
    check_fp32_dots(*ks);
  }
}

// ---------------------------------------------------------------- low precision

// Operand values: bf16 small integers (exact products and sums in fp32), int8 any byte.
struct LowpValues {
  bool int8;
  std::mt19937_64 rng{13};
  std::uint32_t value() {
    if (int8) return static_cast<std::uint32_t>(rng() & 0xffu);
    const int v = static_cast<int>(rng() % 7) - 3;
    return bits(static_cast<float>(v)) >> 16;
  }
};

// One value of an int8 operand as the instruction reads it.
std::int64_t as_s8(std::uint32_t b) {
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(b));
}
std::int64_t as_u8(std::uint32_t b, bool flip) { return (b ^ (flip ? 0x80u : 0u)) & 0xffu; }
double as_bf16(std::uint32_t h) { return from_bits(h << 16); }

// A packed group panel (lowp.hpp) of `lines` x `k` values, width lines wide: word g * width + l.
std::vector<std::uint32_t> panel(const std::vector<std::uint32_t>& v, int lines, int64_t k,
                                 int width, int group) {
  const int64_t groups = (k + group - 1) / group;
  const int bits_per = 32 / group;
  std::vector<std::uint32_t> w(static_cast<std::size_t>(groups * width + 1), 0);
  for (int l = 0; l < lines; ++l)
    for (int64_t p = 0; p < k; ++p)
      w[static_cast<std::size_t>(p / group * width + l)] |= v[static_cast<std::size_t>(l * k + p)]
                                                            << (p % group * bits_per);
  return w;
}

// The product of A's row i and B's column j (values a[i * k + p], b[j * k + p]) as read by a
// kernel variant: bf16, or int8 with A unsigned (swapped: B unsigned, flipped where flip).
struct Reader {
  bool int8, swapped, flip_b;
  double bf16(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, int i,
              int j, int64_t k) const {
    double s = 0;
    for (int64_t p = 0; p < k; ++p)
      s += as_bf16(a[static_cast<std::size_t>(i * k + p)]) *
           as_bf16(b[static_cast<std::size_t>(j * k + p)]);
    return s;
  }
  std::int64_t b8(std::uint32_t x) const { return swapped ? as_u8(x, flip_b) : as_s8(x); }
  std::int64_t a8(std::uint32_t x, bool flip_a) const {
    return swapped ? as_s8(x) : as_u8(x, flip_a);
  }
  std::int64_t dot8(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, int i,
                    int j, int64_t k, bool flip_a = false) const {
    std::int64_t s = 0;
    for (int64_t p = 0; p < k; ++p)
      s += a8(a[static_cast<std::size_t>(i * k + p)], flip_a) *
           b8(b[static_cast<std::size_t>(j * k + p)]);
    return s;
  }
  std::int64_t colsum(const std::vector<std::uint32_t>& b, int j, int64_t k) const {
    std::int64_t s = 0;
    for (int64_t p = 0; p < k; ++p) s += b8(b[static_cast<std::size_t>(j * k + p)]);
    return s;
  }
};

std::vector<std::uint32_t> values(LowpValues& gen, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = gen.value();
  return v;
}

// An operand of `lines` x k values (line l at v[l * k]) laid out in memory as int8 and as bf16,
// element (l, p) at l * line_stride + p * depth_stride, `extra` elements of slack after it.
struct LaidOut {
  std::vector<std::uint8_t> b8;
  std::vector<std::uint16_t> b16;
  LaidOut(const std::vector<std::uint32_t>& v, int lines, int64_t k, int64_t line_stride,
          int64_t depth_stride, std::size_t size)
      : b8(size), b16(size) {
    for (int l = 0; l < lines; ++l)
      for (int64_t p = 0; p < k; ++p) {
        const auto at = static_cast<std::size_t>(l * line_stride + p * depth_stride);
        b8[at] = static_cast<std::uint8_t>(v[static_cast<std::size_t>(l * k + p)]);
        b16[at] = static_cast<std::uint16_t>(v[static_cast<std::size_t>(l * k + p)]);
      }
  }
  const void* data(bool int8) const {
    return int8 ? static_cast<const void*>(b8.data()) : b16.data();
  }
};

// The outputs of one low-precision call: the C tile, the int8 column sums, their old values.
struct LowpOutputs {
  CBlock c, colsum;
  std::vector<std::uint32_t> old, old_sums;
  LowpOutputs(int rows, int ld, int m, int n, const Scale& s, bool int8, std::mt19937_64& rng)
      : c(rows, ld), colsum(1, ld) {
    fill_c(c, m, n, s.beta != 0.0f, rng, int8);
    old = c.cells;
    fill_c(colsum, 1, n, true, rng, true);
    old_sums = colsum.cells;
  }
  template <class Args>
  void set(Args& x, const Scale& s, bool sums) {
    x.c = c.data();
    x.ldc = c.ld;
    x.alpha = s.alpha;
    x.beta = s.beta;
    x.ibeta = s.ibeta;
    if constexpr (requires { x.colsum; })
      x.colsum = sums ? static_cast<std::int32_t*>(colsum.data()) : nullptr;
  }
  // C against dot(i, j) (int8: exact integer, bf16: exact double) and, with sums, the column
  // sums against sum(j); "" when right.
  template <class Dot, class Sum>
  std::string check(int m, int n, const Scale& s, bool int8, bool sums, Dot dot, Sum sum) {
    std::string err = check_c(c, m, n, [&](int i, int j) {
      const std::uint32_t o = old[static_cast<std::size_t>(i * c.ld + j)];
      return int8 ? wrap(static_cast<std::int64_t>(dot(i, j)), s.ibeta, o)
                  : linear(static_cast<double>(dot(i, j)), s.alpha, s.beta, o);
    });
    if (err.empty() && sums)
      err = check_c(colsum, 1, n, [&](int, int j) {
        return wrap(sum(j), 1, old_sums[static_cast<std::size_t>(j)]);
      });
    return err;
  }
};

void check_packed_tiles(const kernels::LowpKernels& ks) {
  const bool int8 = ks.dtype == DType::U8S8;
  LowpValues gen{int8};
  for (const kernels::LowpTile& t : ks.tiles) {
    if (t.fp32 != nullptr) continue;  // bf16 widened to fp32: the fp32 tiles' test
    for (bool swapped : {false, true})
      for (int m = 1; m <= t.mr; ++m)
        for (int n : {t.nr, t.nr - 1, 1, t.nr / 2 + 1})
          for (int64_t k : {0, 4, 22})
            for (const Scale s : kScales) {
              const auto a = values(gen, static_cast<std::size_t>(t.mr * k));
              const auto b = values(gen, static_cast<std::size_t>(t.nr * k));
              const auto ap = panel(a, t.mr, k, t.mr, ks.group);
              const auto bp = panel(b, t.nr, k, t.nr, ks.group);
              LowpOutputs out(t.mr + 1, t.nr + 3, m, n, s, int8, gen.rng);
              kernels::LowpArgs x{};
              x.groups = (k + ks.group - 1) / ks.group;
              x.a = ap.data();
              x.b = bp.data();
              x.n = n;
              out.set(x, s, false);
              t.get(m, swapped)(x);
              const Reader r{int8, swapped, false};
              const std::string err = out.check(
                  m, n, s, int8, false,
                  [&](int i, int j) {
                    return int8 ? r.dot8(a, b, i, j, k) : r.bf16(a, b, i, j, k);
                  },
                  [](int) { return std::int64_t{0}; });
              ASSERT_EQ(err, "") << ks.name << " " << t.mr << "x" << t.nr
                                 << (swapped ? " swapped" : "") << " m=" << m << " n=" << n
                                 << " k=" << k << " beta=" << s.beta;
            }
  }
}

// B in place, row-major k x n with ldb elements between rows.
void check_direct_tiles(const kernels::LowpKernels& ks) {
  const kernels::LowpDirectTile& d = *ks.direct_b;
  const bool int8 = ks.dtype == DType::U8S8;
  LowpValues gen{int8};
  for (int variant = 0; variant < (int8 ? 3 : 1); ++variant)
    for (int m = 1; m <= d.mr; ++m)
      for (int n : {d.nr, d.nr - 1, 1, d.nr / 2 + 1})
        for (int64_t k : {1, 2, 3, 5, 8})
          for (bool sums : {false, int8})
            for (const Scale s : kScales) {
              const bool swapped = variant >= 1, flip = variant == 2;
              const auto a = values(gen, static_cast<std::size_t>(d.mr * k));
              const auto b = values(gen, static_cast<std::size_t>(n * k));  // column j at j * k
              const int64_t ldb = n + 7;
              const LaidOut bl(b, n, k, 1, ldb, static_cast<std::size_t>(k * ldb + 64));
              const auto ap = panel(a, d.mr, k, d.mr, ks.group);
              LowpOutputs out(d.mr + 1, d.nr + 3, m, n, s, int8, gen.rng);
              kernels::LowpDirectArgs x{};
              x.k = k;
              x.a = ap.data();
              x.b = bl.data(int8);
              x.ldb = ldb;
              x.n = n;
              out.set(x, s, sums);
              d.get(m, swapped, flip)(x);
              const Reader r{int8, swapped, flip};
              const std::string err = out.check(
                  m, n, s, int8, sums,
                  [&](int i, int j) {
                    return int8 ? r.dot8(a, b, i, j, k) : r.bf16(a, b, i, j, k);
                  },
                  [&](int j) { return r.colsum(b, j, k); });
              ASSERT_EQ(err, "") << ks.name << " in place, variant " << variant << " m=" << m
                                 << " n=" << n << " k=" << k << (sums ? " colsum" : "")
                                 << " beta=" << s.beta;
            }
}

// A rows and B columns contiguous along k.
void check_dot_tiles(const kernels::LowpKernels& ks) {
  const bool int8 = ks.dtype == DType::U8S8;
  LowpValues gen{int8};
  for (int variant = 0; variant < (int8 ? 4 : 1); ++variant)
    for (int m = 1; m <= kernels::kLowpDotMr; ++m)
      for (int n = 1; n <= kernels::kLowpDotNr; ++n)
        for (int64_t k : {1, 31, 64, 100})
          for (bool sums : {false, int8})
            for (const Scale s : kScales) {
              const bool swapped = variant >= 2, flip = variant % 2 == 1;
              const auto a = values(gen, static_cast<std::size_t>(m * k));
              const auto b = values(gen, static_cast<std::size_t>(n * k));
              const int64_t lda = k + 2, ldb = k + 1;
              const LaidOut al(a, m, k, lda, 1, static_cast<std::size_t>(m * lda));
              const LaidOut bl(b, n, k, ldb, 1, static_cast<std::size_t>(n * ldb));
              LowpOutputs out(m + 1, n + 3, m, n, s, int8, gen.rng);
              kernels::LowpDotArgs x{};
              x.k = k;
              x.a = al.data(int8);
              x.lda = lda;
              x.b = bl.data(int8);
              x.ldb = ldb;
              if (k % 2 == 1) {  // the read-ahead loops (DotArgs::b_next)
                x.b_next = x.b;
                x.b_next_cols = n;
              }
              out.set(x, s, sums);
              ks.dot->get(m, n, swapped, flip)(x);
              // The flip applies to the u8 side: A unless swapped.
              const Reader r{int8, swapped, swapped && flip};
              const std::string err = out.check(
                  m, n, s, int8, sums,
                  [&](int i, int j) {
                    return int8 ? r.dot8(a, b, i, j, k, !swapped && flip) : r.bf16(a, b, i, j, k);
                  },
                  [&](int j) { return r.colsum(b, j, k); });
              ASSERT_EQ(err, "") << ks.name << " dot, variant " << variant << " m=" << m
                                 << " n=" << n << " k=" << k << (sums ? " colsum" : "")
                                 << " beta=" << s.beta;
            }
}

void check_lowp(DType dtype, bool native) {
  const HardwareProfile& hw = detected_hardware();
  if (native) {
    const bool has = hw.supports(dtype == DType::Bf16 ? Isa::Avx512Bf16 : Isa::Avx512Vnni);
    ADAPTCORE_SKIP_WITHOUT(
        dtype == DType::Bf16 ? test::CpuFeature::Avx512Bf16 : test::CpuFeature::Avx512Vnni,
        has && hw.supports(Isa::Avx512));
  }
  const kernels::LowpKernels* ks =
      kernels::lowp_kernels_for(dtype, !native                ? Isa::Generic
                                       : dtype == DType::Bf16 ? Isa::Avx512Bf16
                                                              : Isa::Avx512Vnni);
  ASSERT_NE(ks, nullptr);
  check_packed_tiles(*ks);
  if (ks->direct_b != nullptr) check_direct_tiles(*ks);
  if (ks->dot != nullptr) check_dot_tiles(*ks);
}

TEST(KernelTiles, Bf16NativeTiles) { check_lowp(DType::Bf16, true); }
TEST(KernelTiles, Int8NativeTiles) { check_lowp(DType::U8S8, true); }
TEST(KernelTiles, Int8PortableTiles) { check_lowp(DType::U8S8, false); }

}  // namespace
}  // namespace adaptcore
