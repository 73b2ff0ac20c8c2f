// The vendor-library baselines (bench/baselines/): every baseline that loads here computes
// row-major C = op(A) op(B) correctly for all four transpose combinations, dense and padded
// leading dimensions, odd sizes, 1 and 2 threads; a missing one is skipped with the loader's
// message; several libraries that export the same symbols work side by side in one process.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "baselines/baseline.hpp"

namespace ab = adaptcore::bench;

namespace {

// The vendor libraries and the OpenMP runtimes are not instrumented for ThreadSanitizer, which
// then reports their own synchronisation as races: nothing of adaptcore's is tested there.
#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif
#define SKIP_UNDER_TSAN() \
  if (kThreadSanitizer) GTEST_SKIP() << "vendor libraries are not instrumented for TSan"

struct Shape {
  int64_t m, n, k;
};
constexpr Shape kShapes[] = {{1, 1, 1}, {7, 13, 5}, {33, 65, 17}, {100, 3, 257}};

// Padding and never-written C hold a NaN with a payload no arithmetic produces: a library that
// reads padding, reads C (beta is 0) or writes outside C shows up as a NaN or as a changed mark.
float mark() { return std::bit_cast<float>(0x7fa5c3e1u); }
bool is_mark(float x) { return std::bit_cast<uint32_t>(x) == 0x7fa5c3e1u; }

// A row-major matrix as stored: rows x cols with row pitch ld >= cols.
struct Stored {
  int64_t rows = 0, cols = 0, ld = 0;
  std::vector<float> data;
  Stored(int64_t r, int64_t c, int64_t pitch, std::mt19937& rng, bool random)
      : rows(r), cols(c), ld(pitch), data(static_cast<std::size_t>(r * pitch), mark()) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t i = 0; i < r; ++i) {
      for (int64_t j = 0; j < c; ++j) at(i, j) = random ? dist(rng) : mark();
    }
  }
  float& at(int64_t i, int64_t j) { return data[static_cast<std::size_t>(i * ld + j)]; }
  float at(int64_t i, int64_t j) const { return data[static_cast<std::size_t>(i * ld + j)]; }
};

struct Problem {
  Shape s;
  bool ta, tb;
  Stored a, b, c;
  Problem(Shape shape, bool trans_a, bool trans_b, int64_t pad, std::mt19937& rng)
      : s(shape),
        ta(trans_a),
        tb(trans_b),
        a(ta ? s.k : s.m, ta ? s.m : s.k, (ta ? s.m : s.k) + pad, rng, true),
        b(tb ? s.n : s.k, tb ? s.k : s.n, (tb ? s.k : s.n) + pad, rng, true),
        c(s.m, s.n, s.n + pad, rng, false) {}

  ab::GemmCall call() {
    return {s.m, s.n, s.k, ta, tb, a.data.data(), a.ld, b.data.data(), b.ld, c.data.data(), c.ld};
  }
  float op_a(int64_t i, int64_t p) const { return ta ? a.at(p, i) : a.at(i, p); }
  float op_b(int64_t p, int64_t j) const { return tb ? b.at(j, p) : b.at(p, j); }
  std::string label() const {
    return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " +
           (ta ? "T" : "N") + (tb ? "T" : "N") + " ld " + std::to_string(a.ld) + "/" +
           std::to_string(b.ld) + "/" + std::to_string(c.ld);
  }

  // Every element against a double-precision dot product, with a bound on fp32 rounding for any
  // summation order; and the padding of C untouched.
  void check(const std::string& who) const {
    const double eps = std::numeric_limits<float>::epsilon();
    int failures = 0;
    for (int64_t i = 0; i < s.m && failures < 5; ++i) {
      for (int64_t j = 0; j < s.n && failures < 5; ++j) {
        double ref = 0, mag = 0;
        for (int64_t p = 0; p < s.k; ++p) {
          const double x = static_cast<double>(op_a(i, p)) * op_b(p, j);
          ref += x;
          mag += std::fabs(x);
        }
        const float got = c.at(i, j);
        const double bound = 2.0 * static_cast<double>(s.k + 2) * eps * mag + 1e-30;
        if (!(std::fabs(got - ref) <= bound)) {
          ADD_FAILURE() << who << " " << label() << ": C(" << i << "," << j << ") = " << got
                        << ", reference " << ref << " (bound " << bound << ")";
          ++failures;
        }
      }
      for (int64_t j = s.n; j < c.ld; ++j) {
        if (!is_mark(c.at(i, j))) {
          ADD_FAILURE() << who << " " << label() << ": wrote C's padding at (" << i << "," << j
                        << ")";
          ++failures;
        }
      }
    }
  }
};

// Prepares on one set of buffers and runs on another (run() must accept new pointers), then
// checks the result.
void prepare_run_check(ab::Baseline& lib, Problem& p, std::mt19937& rng, const std::string& who) {
  Problem other(p.s, p.ta, p.tb, p.a.ld - p.a.cols, rng);
  const double setup = lib.prepare(other.call());
  EXPECT_GE(setup, 0.0) << who;
  lib.run(p.call());
  p.check(who);
}

class BaselineTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BaselineTest, MatchesReferenceForAllTransposesPaddingsAndThreadCounts) {
  SKIP_UNDER_TSAN();
  const std::string name = GetParam();
  std::mt19937 rng(1234);
  for (const int threads : {1, 2}) {
    ab::LoadedBaseline loaded = ab::load_baseline(name, threads);
    if (!loaded.lib) GTEST_SKIP() << loaded.message;
    ab::Baseline& lib = *loaded.lib;
    EXPECT_EQ(lib.name(), name);
    const std::string version = lib.version();
    EXPECT_FALSE(version.empty());
    if (threads == 1) std::printf("[ version  ] %s: %s\n", name.c_str(), version.c_str());
    int unsupported = 0;
    for (const Shape& s : kShapes) {
      for (const int64_t pad : {0, 3}) {
        for (const bool ta : {false, true}) {
          for (const bool tb : {false, true}) {
            Problem p(s, ta, tb, pad, rng);
            const std::string who = name + " (" + std::to_string(threads) + " threads)";
            if (!lib.supports(p.call())) {
              // Every library runs plain NN GEMMs of these small sizes.
              EXPECT_TRUE(ta || tb) << who << " does not support " << p.label();
              ++unsupported;
              continue;
            }
            prepare_run_check(lib, p, rng, who);
          }
        }
      }
    }
    if (unsupported > 0) {
      std::printf("[   note   ] %s: %d of %d calls unsupported (%d threads)\n", name.c_str(),
                  unsupported, 4 * 2 * 4, threads);
    }
  }
}

TEST_P(BaselineTest, RunsRepeatedlyAndAcrossShapesAfterPrepare) {
  SKIP_UNDER_TSAN();
  const std::string name = GetParam();
  ab::LoadedBaseline loaded = ab::load_baseline(name, 2);
  if (!loaded.lib) GTEST_SKIP() << loaded.message;
  std::mt19937 rng(99);
  Problem small({7, 13, 5}, false, false, 0, rng);
  Problem wide({33, 65, 17}, true, false, 2, rng);
  loaded.lib->prepare(small.call());
  loaded.lib->prepare(wide.call());
  // Interleaved runs of two prepared shapes, each result checked.
  for (int round = 0; round < 3; ++round) {
    loaded.lib->run(small.call());
    loaded.lib->run(wide.call());
  }
  small.check(name);
  wide.check(name);
}

INSTANTIATE_TEST_SUITE_P(All, BaselineTest, ::testing::ValuesIn(ab::baseline_names()),
                         [](const auto& param_info) { return param_info.param; });

TEST(Baselines, NamesAreStable) {
  const std::vector<std::string> expected = {"mkl",  "onednn", "openblas",
                                             "blis", "eigen",  "libxsmm"};
  EXPECT_EQ(ab::baseline_names(), expected);
}

TEST(Baselines, UnknownNameGivesNullAndMessage) {
  const ab::LoadedBaseline loaded = ab::load_baseline("no-such-blas", 1);
  EXPECT_EQ(loaded.lib, nullptr);
  EXPECT_NE(loaded.message.find("no-such-blas"), std::string::npos) << loaded.message;
}

TEST(Baselines, NonPositiveThreadCountIsRefused) {
  const ab::LoadedBaseline loaded = ab::load_baseline("openblas", 0);
  EXPECT_EQ(loaded.lib, nullptr);
  EXPECT_FALSE(loaded.message.empty());
}

// OpenBLAS and BLIS both export cblas_sgemm and sgemm_: loaded into one process, each must run
// its own code (RTLD_LOCAL, RTLD_DEEPBIND) and give correct results, called in turn.
TEST(Baselines, OpenblasAndBlisSideBySide) {
  SKIP_UNDER_TSAN();
  ab::LoadedBaseline openblas = ab::load_baseline("openblas", 2);
  ab::LoadedBaseline blis = ab::load_baseline("blis", 2);
  if (!openblas.lib) GTEST_SKIP() << openblas.message;
  if (!blis.lib) GTEST_SKIP() << blis.message;
  EXPECT_NE(openblas.lib->version(), blis.lib->version());
  std::mt19937 rng(5);
  for (int round = 0; round < 2; ++round) {
    for (ab::Baseline* lib : {openblas.lib.get(), blis.lib.get()}) {
      Problem p({33, 65, 17}, round == 1, true, 1, rng);
      prepare_run_check(*lib, p, rng, lib->name());
    }
  }
}

// Every library that loads here, all in one process at once (several OpenMP runtimes, several
// CBLAS implementations), each called in turn on the same problem.
TEST(Baselines, AllAvailableTogetherInOneProcess) {
  SKIP_UNDER_TSAN();
  std::vector<ab::LoadedBaseline> libs;
  for (const std::string& name : ab::baseline_names()) {
    ab::LoadedBaseline l = ab::load_baseline(name, 2);
    if (l.lib) libs.push_back(std::move(l));
  }
  if (libs.size() < 2) GTEST_SKIP() << "fewer than two baselines available";
  std::mt19937 rng(11);
  for (int round = 0; round < 2; ++round) {
    for (ab::LoadedBaseline& l : libs) {
      Problem p({100, 3, 257}, true, false, 0, rng);
      ASSERT_TRUE(l.lib->supports(p.call())) << l.lib->name();
      prepare_run_check(*l.lib, p, rng, l.lib->name() + " (together)");
    }
  }
}

}  // namespace
