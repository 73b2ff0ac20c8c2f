// Conformance sweep: random shapes (log-uniform 0..3000, primes, fixed edge shapes), every
// layout x transa x transb, padded leading dimensions, misaligned operands, alpha and beta
// including 0, k = 0, both API forms (BLAS-style and views with mixed layouts), checked against
// a double-precision reference with a rounding-error bound, on every ISA path of this CPU with
// 1, 2 (and 3) threads.
//
//   ADAPTCORE_TEST_SHAPES  random shapes in total over all shards (default 2000)
//   ADAPTCORE_TEST_SEED    seed of the shape stream (default below)
//
// Each case is reproducible from its index and the seed; a failure prints both.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include <sys/mman.h>

#include "adaptcore/adaptcore.h"
#include "core/problem.hpp"
#include "dispatch/internal_access.hpp"
#include "test_util.hpp"

namespace adaptcore::test {
namespace {

constexpr int kShards = 4;
// 2000 random shapes; fewer under ThreadSanitizer, which slows the numeric sweep ~10x and
// is there for the concurrency tests (ADAPTCORE_TEST_SHAPES overrides either way).
constexpr int64_t kDefaultShapes = kThreadSanitizer ? 400 : 2000;
constexpr uint64_t kDefaultSeed = 0x5eed2026;
// Multiply-adds allowed per random shape: keeps the double reference (and sanitizer runs)
// fast. Shapes above it are shrunk one randomly chosen dimension at a time, so one or two big
// dimensions survive when the others are small.
constexpr int64_t kMacBudget = 2'000'000;

struct Shape {
  int64_t m, n, k;
};

// Always run (distributed over the shards like the random cases).
constexpr std::array<Shape, 24> kFixed{{
    {1, 3000, 2000}, {3000, 1, 2000}, {2000, 3000, 1}, {1, 1, 3000},   {3000, 1, 1},
    {1, 3000, 1},    {8, 8, 20000},   {3, 5, 10007},   {0, 3000, 100}, {3000, 0, 100},
    {257, 263, 0},   {0, 0, 0},       {1, 1, 1},       {97, 89, 101},  {257, 263, 271},
    {16, 32, 64},    {1000, 1000, 2}, {31, 2999, 7},   {2999, 31, 13}, {127, 129, 131},
    {17, 1, 4099},   {1, 17, 4099},   {64, 64, 4096},  {33, 65, 1537},
}};

constexpr std::array<int64_t, 24> kPrimes{2,   3,   5,   7,   11,   13,   17,   19,
                                          23,  29,  31,  37,  61,   67,   127,  131,
                                          251, 257, 509, 521, 1021, 1031, 2039, 2999};

struct Case {
  int64_t index = 0;
  int64_t m = 0, n = 0, k = 0;
  bool views = false;
  Layout layout = Layout::RowMajor;                                            // BLAS-style call
  Layout la = Layout::RowMajor, lb = Layout::RowMajor, lc = Layout::RowMajor;  // views
  Trans ta = Trans::No, tb = Trans::No;
  int64_t pad_a = 0, pad_b = 0, pad_c = 0;
  std::size_t mis_a = 0, mis_b = 0, mis_c = 0;
  float alpha = 1.0f, beta = 0.0f;
  bool null_a = false, null_b = false, null_c = false;

  std::string describe(uint64_t seed) const {
    std::ostringstream os;
    os << "case " << index << " (seed " << seed << "): " << m << "x" << n << "x" << k << " ";
    if (views)
      os << "views A:" << name(la) << " B:" << name(lb) << " C:" << name(lc);
    else
      os << "layout " << name(layout);
    os << " op " << name(ta) << name(tb) << " pad " << pad_a << "/" << pad_b << "/" << pad_c
       << " misalign " << mis_a << "/" << mis_b << "/" << mis_c << " alpha " << alpha << " beta "
       << beta << (null_a ? " A=null" : "") << (null_b ? " B=null" : "")
       << (null_c ? " C=null" : "");
    return os.str();
  }
};

class Gen {
 public:
  Gen(uint64_t seed, int64_t index)
      : rng_(seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(index)) {}
  double uni() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
  int64_t below(int64_t n) { return std::uniform_int_distribution<int64_t>(0, n - 1)(rng_); }
  bool chance(double p) { return uni() < p; }
  std::mt19937_64& rng() { return rng_; }

  int64_t dim() {
    const double r = uni();
    if (r < 0.03) return 0;
    if (r < 0.18) return kPrimes[static_cast<std::size_t>(below(kPrimes.size()))];
    return std::min<int64_t>(3000, static_cast<int64_t>(std::exp(uni() * std::log(3001.0))));
  }
  float scalar(bool for_beta) {
    const double r = uni();
    if (for_beta) {
      if (r < 0.3) return 0.0f;
      if (r < 0.5) return 1.0f;
      if (r < 0.6) return -1.0f;
      if (r < 0.7) return 0.5f;
    } else {
      if (r < 0.08) return 0.0f;
      if (r < 0.45) return 1.0f;
      if (r < 0.55) return -1.0f;
      if (r < 0.65) return 2.5f;
    }
    return static_cast<float>(uni() * 4.0 - 2.0);
  }
  Trans trans() {
    const double r = uni();
    return r < 0.45 ? Trans::No : (r < 0.9 ? Trans::Yes : Trans::ConjYes);
  }
  Layout layout() { return chance(0.5) ? Layout::RowMajor : Layout::ColMajor; }
  int64_t pad() {
    const double r = uni();
    if (r < 0.6) return 0;
    if (r < 0.95) return 1 + below(20);
    return 100 + below(400);
  }
  std::size_t misalign() { return chance(0.5) ? 0 : static_cast<std::size_t>(1 + below(15)); }

 private:
  std::mt19937_64 rng_;
};

Case make_case(uint64_t seed, int64_t index) {
  Gen g(seed, index);
  Case c;
  c.index = index;
  if (index < static_cast<int64_t>(kFixed.size())) {
    const Shape s = kFixed[static_cast<std::size_t>(index)];
    c.m = s.m, c.n = s.n, c.k = s.k;
  } else {
    c.m = g.dim(), c.n = g.dim(), c.k = g.dim();
    while (c.m * c.n * c.k > kMacBudget) {
      int64_t* d[3] = {&c.m, &c.n, &c.k};
      int64_t* pick = d[g.below(3)];
      if (*pick > 1) *pick = std::max<int64_t>(1, *pick * (3 + g.below(5)) / 10);
    }
  }
  c.views = g.chance(0.3);
  c.layout = g.layout();
  c.la = g.layout(), c.lb = g.layout(), c.lc = g.layout();
  c.ta = g.trans(), c.tb = g.trans();
  c.pad_a = g.pad(), c.pad_b = g.pad(), c.pad_c = g.pad();
  c.mis_a = g.misalign(), c.mis_b = g.misalign(), c.mis_c = g.misalign();
  c.alpha = g.scalar(false);
  c.beta = g.scalar(true);
  const bool empty = c.m == 0 || c.n == 0;
  const bool reads_ab = !empty && c.k > 0 && c.alpha != 0.0f;
  // An operand that is not accessed may be NULL.
  if (!reads_ab) c.null_a = g.chance(0.3), c.null_b = g.chance(0.3);
  if (empty) c.null_c = g.chance(0.3);
  return c;
}

Stored make_operand(int64_t rows, int64_t cols, Layout l, int64_t pad, std::size_t mis) {
  const int64_t width = l == Layout::RowMajor ? cols : rows;
  return Stored(rows, cols, l, std::max<int64_t>(1, width) + pad, mis);
}

struct Stats {
  std::map<std::string, int64_t> parallel_plans, split_k_plans, padded_tail, calls;
};

// Runs one case on every configuration; returns the number of configurations that failed.
int run_case(const Case& c, uint64_t seed, std::vector<Config>& configs, Stats& stats) {
  int failures = 0;
  const int64_t m = c.m, n = c.n, k = c.k;
  const Layout la = c.views ? c.la : c.layout;
  const Layout lb = c.views ? c.lb : c.layout;
  const Layout lc = c.views ? c.lc : c.layout;
  const bool ta = transposed(c.ta), tb = transposed(c.tb);
  Stored a = make_operand(ta ? k : m, ta ? m : k, la, c.pad_a, c.mis_a);
  Stored b = make_operand(tb ? n : k, tb ? k : n, lb, c.pad_b, c.mis_b);
  Stored c0 = make_operand(m, n, lc, c.pad_c, c.mis_c);
  Gen vals(seed ^ 0xabcdefULL, c.index);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  // alpha == 0: A and B must not be read, so they hold NaN. beta == 0: C must not be read.
  if (c.alpha == 0.0f) {
    a.fill([](int64_t, int64_t) { return qnan(); });
    b.fill([](int64_t, int64_t) { return qnan(); });
  } else {
    a.fill([&](int64_t, int64_t) { return u(vals.rng()); });
    b.fill([&](int64_t, int64_t) { return u(vals.rng()); });
  }
  if (c.beta == 0.0f)
    c0.fill([](int64_t, int64_t) { return qnan(); });
  else
    c0.fill([&](int64_t, int64_t) { return u(vals.rng()); });
  const Reference ref = reference_gemm(c.ta, c.tb, m, n, k, c.alpha, a, b, c.beta, c0);
  const std::vector<float> a_before = a.memory(), b_before = b.memory();

  for (auto& cfg : configs) {
    Stored cc = c0;
    const float* pa = c.null_a ? nullptr : a.data();
    const float* pb = c.null_b ? nullptr : b.data();
    float* pc = c.null_c ? nullptr : cc.data();
    Status s;
    GemmProblem prob;
    Status ps;
    if (c.views) {
      auto va = a.cview(), vb = b.cview();
      auto vc = cc.view();
      va.data = pa, vb.data = pb, vc.data = pc;
      s = gemm(c.ta, c.tb, c.alpha, va, vb, c.beta, vc, *cfg.ctx);
      ps = make_problem(c.ta, c.tb, c.alpha, va, vb, c.beta, vc, prob);
    } else {
      s = gemm(c.layout, c.ta, c.tb, m, n, k, c.alpha, pa, a.ld(), pb, b.ld(), c.beta, pc, cc.ld(),
               *cfg.ctx);
      ps = make_problem(c.layout, c.ta, c.tb, m, n, k, c.alpha, pa, a.ld(), pb, b.ld(), c.beta, pc,
                        cc.ld(), prob);
    }
    std::string problem;
    if (s != Status::Ok) problem += std::string(" status ") + to_string(s);
    if (!same_bits(a.memory(), a_before)) problem += " [A modified]";
    if (!same_bits(b.memory(), b_before)) problem += " [B modified]";
    if (s == Status::Ok) problem += check_result(cc, ref);
    // Plan (informational, and named in a failure): how much ran in parallel / split-K.
    std::string plan_text;
    if (ps == Status::Ok && prob.m > 0 && prob.n > 0 && prob.k > 0 && prob.alpha != 0.0f) {
      const Plan plan = ::adaptcore::detail::impl_of(*cfg.ctx).plan_for(
          ::adaptcore::detail::impl_of(*cfg.ctx).key_for(prob));
      plan_text = describe(plan);
      ++stats.calls[cfg.name()];
      if (plan.threads() > 1) ++stats.parallel_plans[cfg.name()];
      if (plan.pk > 1) ++stats.split_k_plans[cfg.name()];
      if (!plan.is_dot() && plan.tail == TailStrategy::Padded) ++stats.padded_tail[cfg.name()];
    }
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << c.describe(seed) << " on " << cfg.name() << " plan [" << plan_text
                    << "]:" << problem;
    }
  }
  return failures;
}

void print_stats(const Stats& stats) {
  for (const auto& [cfg, calls] : stats.calls) {
    auto get = [&](const std::map<std::string, int64_t>& m) {
      const auto it = m.find(cfg);
      return static_cast<long long>(it == m.end() ? 0 : it->second);
    };
    std::printf(
        "[ plans    ] %-24s %5lld computing calls, %5lld parallel, %5lld split-K, "
        "%5lld padded-tail plans\n",
        cfg.c_str(), static_cast<long long>(calls), get(stats.parallel_plans),
        get(stats.split_k_plans), get(stats.padded_tail));
  }
}

class ConformanceSweep : public ::testing::TestWithParam<int> {};

TEST_P(ConformanceSweep, RandomShapesAllPaths) {
  const int shard = GetParam();
  const int64_t shapes = env_int("ADAPTCORE_TEST_SHAPES", kDefaultShapes);
  const uint64_t seed = static_cast<uint64_t>(env_int("ADAPTCORE_TEST_SEED", kDefaultSeed));
  const int64_t total = static_cast<int64_t>(kFixed.size()) + shapes;
  auto configs = all_configs();
  ASSERT_FALSE(configs.empty());
  for (const auto& cfg : configs) ASSERT_EQ(cfg.ctx->init_status(), Status::Ok) << cfg.name();

  Stats stats;
  int failures = 0;
  constexpr int kMaxReported = 15;
  for (int64_t idx = shard; idx < total && failures < kMaxReported; idx += kShards)
    failures += run_case(make_case(seed, idx), seed, configs, stats);
  print_stats(stats);
}

INSTANTIATE_TEST_SUITE_P(Shards, ConformanceSweep, ::testing::Range(0, kShards));

// Valid but extreme hardware profiles push the planner to plans it does not pick for the
// detected machine (tiny or huge cache blocks, parallel plans for tiny shapes, no packing, ...).
// Whatever it picks must be correct.
//   ADAPTCORE_TEST_PROFILE_SHAPES  random shapes per profile run (default 60)
struct ExtremeProfile {
  const char* name;
  const char* json;
};
constexpr ExtremeProfile kExtremeProfiles[] = {
    {"tiny-caches", "{\"l1d_bytes\": 2048, \"l2_bytes\": 8192, \"l3_bytes\": 16384}"},
    {"huge-caches", "{\"l1d_bytes\": 1048576, \"l2_bytes\": 268435456, \"l3_bytes\": 4294967296}"},
    {"free-fork-join", "{\"fork_join_us\": 0, \"bw_dram_total_gbs\": 10000}"},
    {"costly-fork-join", "{\"fork_join_us\": 100000}"},
    {"slow-packing", "{\"pack_gbs\": 0.1}"},  // the lowest a profile may say
    {"fast-packing-slow-memory",
     "{\"pack_gbs\": 100000, \"bw_l2_gbs\": 1, \"bw_l3_gbs\": 0.5, \"bw_dram_core_gbs\": 0.1}"},
};

class ExtremeProfiles : public ::testing::TestWithParam<ExtremeProfile> {};

TEST_P(ExtremeProfiles, RandomShapesStayCorrect) {
  const ExtremeProfile prof = GetParam();
  const std::string path =
      ::testing::TempDir() + "adaptcore_extreme_profile_" + prof.name + ".json";
  std::ofstream(path, std::ios::binary) << prof.json;
  std::vector<Config> configs;
  for (Isa isa : available_isas())
    for (int t : {1, 2, 3}) {
      ContextOptions o;
      o.isa = isa;
      o.threads = t;
      o.profile_path = path;
      o.read_environment = false;
      configs.push_back({isa, t, std::make_unique<Context>(o)});
      ASSERT_EQ(configs.back().ctx->init_status(), Status::Ok)
          << prof.name << ": " << configs.back().ctx->init_message();
      ASSERT_EQ(configs.back().ctx->hardware().source, path);
    }
  const int64_t shapes = env_int("ADAPTCORE_TEST_PROFILE_SHAPES", 60);
  const uint64_t seed = static_cast<uint64_t>(env_int("ADAPTCORE_TEST_SEED", kDefaultSeed)) + 7;
  Stats stats;
  int failures = 0;
  // Random shapes only (indices past the fixed list), a different stream than the main sweep.
  for (int64_t i = 0; i < shapes && failures < 10; ++i)
    failures +=
        run_case(make_case(seed, static_cast<int64_t>(kFixed.size()) + i), seed, configs, stats);
  print_stats(stats);
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Profiles, ExtremeProfiles, ::testing::ValuesIn(kExtremeProfiles),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// The shape generator itself: the sweep must cover what it claims to (big dimensions survive the
// flop budget, zeros and primes occur, every layout/op/alpha/beta class is drawn).
TEST(ConformanceGenerator, CoversTheAdvertisedSpace) {
  const uint64_t seed = static_cast<uint64_t>(env_int("ADAPTCORE_TEST_SEED", kDefaultSeed));
  int big = 0, zero_dim = 0, k_zero = 0, alpha0 = 0, beta0 = 0, views = 0, padded = 0, conj = 0;
  std::map<int, int> combos;
  for (int64_t i = static_cast<int64_t>(kFixed.size());
       i < 2000 + static_cast<int64_t>(kFixed.size()); ++i) {
    const Case c = make_case(seed, i);
    ASSERT_LE(c.m * c.n * c.k, kMacBudget);
    ASSERT_TRUE(c.m >= 0 && c.m <= 3000 && c.n >= 0 && c.n <= 3000 && c.k >= 0 && c.k <= 3000);
    big += std::max({c.m, c.n, c.k}) >= 1500;
    zero_dim += c.m == 0 || c.n == 0;
    k_zero += c.k == 0;
    alpha0 += c.alpha == 0.0f;
    beta0 += c.beta == 0.0f;
    views += c.views;
    padded += c.pad_a > 0 || c.pad_b > 0 || c.pad_c > 0;
    conj += c.ta == Trans::ConjYes || c.tb == Trans::ConjYes;
    combos[(c.layout == Layout::RowMajor) * 4 + transposed(c.ta) * 2 + transposed(c.tb)]++;
  }
  EXPECT_GT(big, 20);
  EXPECT_GT(zero_dim, 20);
  EXPECT_GT(k_zero, 10);
  EXPECT_GT(alpha0, 50);
  EXPECT_GT(beta0, 200);
  EXPECT_GT(views, 200);
  EXPECT_GT(padded, 500);
  EXPECT_GT(conj, 50);
  EXPECT_EQ(combos.size(), 8u);
}

// Leading dimensions above 2^31 elements (byte offsets above 2^33): every index computation must
// be 64-bit. The operands live in sparse MAP_NORESERVE mappings, so only the few pages holding
// elements are ever touched.
class SparseMatrix {
 public:
  SparseMatrix(int64_t rows, int64_t cols, Layout l, int64_t ld)
      : rows_(rows), cols_(cols), ld_(ld), layout_(l) {
    const int64_t lines = l == Layout::RowMajor ? rows : cols;
    bytes_ = static_cast<std::size_t>(lines * ld) * sizeof(float);
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<float*>(p);
  }
  ~SparseMatrix() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
  }
  SparseMatrix(const SparseMatrix&) = delete;
  SparseMatrix& operator=(const SparseMatrix&) = delete;
  bool ok() const { return base_ != nullptr; }
  float* data() { return base_; }
  int64_t ld() const { return ld_; }
  float& at(int64_t r, int64_t c) {
    return base_[layout_ == Layout::RowMajor ? r * ld_ + c : c * ld_ + r];
  }

 private:
  float* base_ = nullptr;
  std::size_t bytes_ = 0;
  int64_t rows_, cols_, ld_;
  Layout layout_;
};

TEST(LargeStrides, LeadingDimensionsAbove2To31) {
  auto configs = all_configs();
  const int64_t huge = (int64_t{1} << 31) + 48;  // elements; not a power of two
  const int64_t m = 3, n = 37, k = 70;
  for (Layout l : {Layout::RowMajor, Layout::ColMajor})
    for (Trans ta : {Trans::No, Trans::Yes})
      for (Trans tb : {Trans::No, Trans::Yes})
        for (int which = 0; which < 3; ++which) {  // which operand gets the huge ld
          const bool row = l == Layout::RowMajor;
          const int64_t ar = transposed(ta) ? k : m, ac = transposed(ta) ? m : k;
          const int64_t br = transposed(tb) ? n : k, bc = transposed(tb) ? k : n;
          SparseMatrix a(ar, ac, l, which == 0 ? huge : (row ? ac : ar));
          SparseMatrix b(br, bc, l, which == 1 ? huge : (row ? bc : br));
          SparseMatrix c(m, n, l, which == 2 ? huge : (row ? n : m));
          if (!a.ok() || !b.ok() || !c.ok()) GTEST_SKIP() << "cannot reserve address space";
          for (int64_t i = 0; i < ar; ++i)
            for (int64_t p = 0; p < ac; ++p)
              a.at(i, p) = static_cast<float>((i + 3 * p) % 5) - 2.0f;
          for (int64_t p = 0; p < br; ++p)
            for (int64_t j = 0; j < bc; ++j)
              b.at(p, j) = static_cast<float>((2 * p + j) % 7) - 3.0f;
          for (auto& cfg : configs) {
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) c.at(i, j) = static_cast<float>(i - j);
            ASSERT_EQ(gemm(l, ta, tb, m, n, k, 1.0f, a.data(), a.ld(), b.data(), b.ld(), 2.0f,
                           c.data(), c.ld(), *cfg.ctx),
                      Status::Ok);
            int bad = 0;
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                float e = 2.0f * static_cast<float>(i - j);  // small integers: exact
                for (int64_t p = 0; p < k; ++p)
                  e += (transposed(ta) ? a.at(p, i) : a.at(i, p)) *
                       (transposed(tb) ? b.at(j, p) : b.at(p, j));
                bad += c.at(i, j) != e;
              }
            EXPECT_EQ(bad, 0) << name(l) << " " << name(ta) << name(tb) << " huge ld on "
                              << "ABC"[which] << " on " << cfg.name();
          }
        }
}

// One column of C stored contiguously (row-major, ldc = 1) with op(A) contiguous down its
// columns is normalised to the transposed problem (one row of C, the outputs across the vector
// lanes); with ldc > 1 or op(A) contiguous along its rows it is not. Every case against an
// exact small-integer result, with alpha and beta, on every configuration.
TEST(OneColumn, TransposedProblemWhereTheColumnIsContiguous) {
  auto configs = all_configs();
  for (const int64_t m : {2, 5, 509, 2039})
    for (const int64_t k : {1, 3, 61})
      for (Trans ta : {Trans::No, Trans::Yes})
        for (Trans tb : {Trans::No, Trans::Yes})
          for (const int64_t ldc : {1, 3}) {
            const int64_t lda = transposed(ta) ? m + 3 : k + 2, ldb = transposed(tb) ? k + 1 : 2;
            std::vector<float> a(static_cast<std::size_t>((transposed(ta) ? k : m) * lda));
            std::vector<float> b(static_cast<std::size_t>((transposed(tb) ? 1 : k) * ldb + k));
            for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
            for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
            auto A = [&](int64_t i, int64_t p) {
              return transposed(ta) ? a[p * lda + i] : a[i * lda + p];
            };
            auto B = [&](int64_t p) { return transposed(tb) ? b[p] : b[p * ldb]; };
            GemmProblem prob;
            std::vector<float> c(static_cast<std::size_t>(m * ldc), 0.0f);
            ASSERT_EQ(make_problem(Layout::RowMajor, ta, tb, m, 1, k, 2.0f, a.data(), lda, b.data(),
                                   ldb, 0.5f, c.data(), ldc, prob),
                      Status::Ok);
            const bool swapped = ldc == 1 && transposed(ta);
            EXPECT_EQ(prob.m, swapped ? 1 : m) << m << "x1x" << k << " ldc " << ldc;
            EXPECT_EQ(prob.n, swapped ? m : 1);
            for (auto& cfg : configs) {
              for (int64_t i = 0; i < m; ++i)
                c[static_cast<std::size_t>(i * ldc)] = static_cast<float>(i % 9);
              ASSERT_EQ(gemm(Layout::RowMajor, ta, tb, m, 1, k, 2.0f, a.data(), lda, b.data(), ldb,
                             0.5f, c.data(), ldc, *cfg.ctx),
                        Status::Ok);
              int bad = 0;
              for (int64_t i = 0; i < m; ++i) {
                float e = 0.5f * static_cast<float>(i % 9);  // halves of small integers: exact
                for (int64_t p = 0; p < k; ++p) e += 2.0f * A(i, p) * B(p);
                bad += c[static_cast<std::size_t>(i * ldc)] != e;
              }
              EXPECT_EQ(bad, 0) << m << "x1x" << k << " " << name(ta) << name(tb) << " ldc " << ldc
                                << " on " << cfg.name();
            }
          }
}

// The checker is not a tautology: a result off by a little more than the bound, a NaN, or one
// written padding or guard float is reported.
TEST(Harness, CheckerDetectsWrongResultsAndPaddingWrites) {
  auto ctx = make_context(Isa::Auto, 1);
  const int64_t m = 13, n = 9, k = 300;
  Stored a(m, k, Layout::ColMajor, m + 3), b(k, n, Layout::RowMajor, n + 1);
  Stored c0(m, n, Layout::RowMajor, n + 4, 3);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  a.fill([&](int64_t, int64_t) { return u(rng); });
  b.fill([&](int64_t, int64_t) { return u(rng); });
  c0.fill([&](int64_t, int64_t) { return u(rng); });
  const Reference ref = reference_gemm(Trans::No, Trans::No, m, n, k, 1.0f, a, b, 1.0f, c0);
  Stored c = c0;
  ASSERT_EQ(gemm(Trans::No, Trans::No, 1.0f, a.cview(), b.cview(), 1.0f, c.view(), *ctx),
            Status::Ok);
  ASSERT_EQ(check_result(c, ref), "");
  // The bound is tight enough to matter: far below the result's magnitude.
  EXPECT_LT(ref.tol(4, 5), 1e-3 * (std::fabs(ref.at(4, 5)) + 1.0));
  Stored bad = c;
  bad.at(4, 5) = static_cast<float>(ref.at(4, 5) + 2.0 * ref.tol(4, 5) + 1e-6);
  EXPECT_NE(check_result(bad, ref), "");
  bad = c;
  bad.at(12, 8) = qnan();
  EXPECT_NE(check_result(bad, ref), "");
  bad = c;
  bad.data()[bad.index(3, n)] = 0.0f;  // first padding float after row 3
  EXPECT_NE(check_result(bad, ref), "");
  bad = c;
  bad.memory().back() = 1.0f;  // trailing guard
  EXPECT_NE(check_result(bad, ref), "");
  bad = c;
  bad.memory()[Stored::kGuard + 1] = 1.0f;  // misalignment gap before the first element
  EXPECT_NE(check_result(bad, ref), "");
}

// View form with every combination of operand layouts on one shape, against the reference.
TEST(ViewApi, MixedLayoutsEveryCombination) {
  auto configs = all_configs();
  const int64_t m = 37, n = 45, k = 29;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int combo = 0; combo < 8; ++combo)
    for (Trans ta : {Trans::No, Trans::Yes})
      for (Trans tb : {Trans::No, Trans::Yes}) {
        const Layout la = combo & 1 ? Layout::ColMajor : Layout::RowMajor;
        const Layout lb = combo & 2 ? Layout::ColMajor : Layout::RowMajor;
        const Layout lc = combo & 4 ? Layout::ColMajor : Layout::RowMajor;
        Stored a = make_operand(transposed(ta) ? k : m, transposed(ta) ? m : k, la, 3, 1);
        Stored b = make_operand(transposed(tb) ? n : k, transposed(tb) ? k : n, lb, 0, 2);
        Stored c0 = make_operand(m, n, lc, 5, 3);
        a.fill([&](int64_t, int64_t) { return u(rng); });
        b.fill([&](int64_t, int64_t) { return u(rng); });
        c0.fill([&](int64_t, int64_t) { return u(rng); });
        const Reference ref = reference_gemm(ta, tb, m, n, k, 0.75f, a, b, -0.5f, c0);
        for (auto& cfg : configs) {
          Stored c = c0;
          ASSERT_EQ(gemm(ta, tb, 0.75f, a.cview(), b.cview(), -0.5f, c.view(), *cfg.ctx),
                    Status::Ok);
          EXPECT_EQ(check_result(c, ref), "")
              << "A " << name(la) << " B " << name(lb) << " C " << name(lc) << " op " << name(ta)
              << name(tb) << " on " << cfg.name();
        }
      }
}

// The C API on the default context, with ISA and threads switched through it.
TEST(CApi, SgemmMatchesReferenceOnDefaultContext) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const ac_isa_t saved_isa = ac_get_isa();
  const int saved_threads = ac_get_num_threads();
  for (Isa isa : available_isas())
    for (int t : {1, 2}) {
      ASSERT_EQ(ac_set_isa(static_cast<ac_isa_t>(isa)), AC_STATUS_OK);
      ASSERT_EQ(ac_set_num_threads(t), AC_STATUS_OK);
      ASSERT_EQ(ac_get_isa(), static_cast<ac_isa_t>(isa));
      ASSERT_EQ(ac_get_num_threads(), t);
      for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (Trans ta : {Trans::No, Trans::Yes})
          for (Trans tb : {Trans::No, Trans::Yes}) {
            const int64_t m = 70, n = 33, k = 130;
            Stored a = make_operand(transposed(ta) ? k : m, transposed(ta) ? m : k, l, 2, 0);
            Stored b = make_operand(transposed(tb) ? n : k, transposed(tb) ? k : n, l, 0, 0);
            Stored c = make_operand(m, n, l, 1, 0);
            a.fill([&](int64_t, int64_t) { return u(rng); });
            b.fill([&](int64_t, int64_t) { return u(rng); });
            c.fill([&](int64_t, int64_t) { return u(rng); });
            const Reference ref = reference_gemm(ta, tb, m, n, k, 1.5f, a, b, 0.25f, c);
            ASSERT_EQ(ac_sgemm(static_cast<ac_layout_t>(l), static_cast<ac_transpose_t>(ta),
                               static_cast<ac_transpose_t>(tb), m, n, k, 1.5f, a.data(), a.ld(),
                               b.data(), b.ld(), 0.25f, c.data(), c.ld()),
                      AC_STATUS_OK);
            EXPECT_EQ(check_result(c, ref), "")
                << name(l) << " " << name(ta) << name(tb) << " " << to_string(isa) << "/" << t;
          }
    }
  EXPECT_EQ(ac_set_isa(AC_ISA_AUTO), AC_STATUS_OK);
  EXPECT_EQ(ac_get_isa(), static_cast<ac_isa_t>(detected_hardware().best_isa()));
  EXPECT_EQ(ac_set_isa(saved_isa), AC_STATUS_OK);
  EXPECT_EQ(ac_set_num_threads(saved_threads), AC_STATUS_OK);
}

// Reference-BLAS special values: beta == 0 discards NaN/Inf in C, alpha == 0 ignores NaN/Inf in
// A and B, k == 0 scales C by beta, and beta == 1 with alpha == 0 leaves C as it was (bitwise,
// including -0.0).
TEST(Semantics, SpecialValuesOnEveryPath) {
  auto configs = all_configs();
  const float inf = std::numeric_limits<float>::infinity();
  for (auto& cfg : configs) {
    const int64_t m = 19, n = 23, k = 41;
    Stored a = make_operand(m, k, Layout::RowMajor, 0, 0);
    Stored b = make_operand(k, n, Layout::RowMajor, 0, 0);
    Stored c = make_operand(m, n, Layout::RowMajor, 0, 0);
    a.fill([](int64_t i, int64_t p) { return static_cast<float>((i + p) % 3) - 1.0f; });
    b.fill([](int64_t p, int64_t j) { return static_cast<float>((p * j) % 5) - 2.0f; });
    c.fill([&](int64_t i, int64_t) { return i % 2 ? qnan() : inf; });
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), a.ld(),
                   b.data(), b.ld(), 0.0f, c.data(), c.ld(), *cfg.ctx),
              Status::Ok);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;  // small integers: exact in float
        for (int64_t p = 0; p < k; ++p) s += static_cast<double>(a.at(i, p)) * b.at(p, j);
        ASSERT_EQ(c.at(i, j), static_cast<float>(s))
            << cfg.name() << " beta=0 at " << i << "," << j;
      }
    // alpha == 0 with NaN/Inf operands; beta scales.
    a.fill([&](int64_t i, int64_t) { return i % 2 ? qnan() : inf; });
    b.fill([&](int64_t, int64_t j) { return j % 2 ? -inf : qnan(); });
    c.fill([](int64_t i, int64_t j) { return static_cast<float>(i - j); });
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 0.0f, a.data(), a.ld(),
                   b.data(), b.ld(), 2.0f, c.data(), c.ld(), *cfg.ctx),
              Status::Ok);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        ASSERT_EQ(c.at(i, j), 2.0f * static_cast<float>(i - j)) << cfg.name() << " alpha=0";
    // alpha == 0, beta == 0: zeros, even over NaN in C.
    c.fill([](int64_t, int64_t) { return qnan(); });
    ASSERT_EQ(gemm(Layout::ColMajor, Trans::Yes, Trans::Yes, m, n, k, 0.0f, a.data(), k, b.data(),
                   n, 0.0f, c.data(), m, *cfg.ctx),
              Status::Ok);
    for (float x : c.memory()) ASSERT_TRUE(x == 0.0f || is_sentinel(x)) << cfg.name();
    // k == 0 with NULL A and B: C = beta * C.
    c.fill([](int64_t i, int64_t j) { return static_cast<float>(i * 100 + j); });
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, 0, 1.0f, nullptr, 1, nullptr, n,
                   -3.0f, c.data(), c.ld(), *cfg.ctx),
              Status::Ok);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        ASSERT_EQ(c.at(i, j), -3.0f * static_cast<float>(i * 100 + j)) << cfg.name() << " k=0";
    // alpha == 0, beta == 1: C unchanged bit for bit.
    c.fill(
        [&](int64_t i, int64_t j) { return (i + j) % 3 == 0 ? -0.0f : (i % 2 ? qnan() : 1.5f); });
    const std::vector<float> before = c.memory();
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 0.0f, a.data(), a.ld(),
                   b.data(), b.ld(), 1.0f, c.data(), c.ld(), *cfg.ctx),
              Status::Ok);
    ASSERT_EQ(std::memcmp(before.data(), c.memory().data(), before.size() * sizeof(float)), 0)
        << cfg.name();
  }
}

}  // namespace
}  // namespace adaptcore::test
