// The generated suites, `random` and `full` (bench/README.md, "Suite files").
//
// Both must give the same shapes for a seed wherever they are built, so that two machines or
// two runs of a study time the same shapes. std::mt19937_64's output is fixed by the standard,
// but the std:: distributions are not (each library maps the bits its own way), and std::exp /
// std::log may differ in the last bit between maths libraries. So the draws below use only the
// generator's integers and IEEE-754 +, -, *, / (exactly rounded everywhere; this file is built
// with -ffp-contract=off so that no compiler fuses them into FMAs).
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>

#include "harness/suites.hpp"

namespace adaptcore::bench {

namespace {

constexpr int64_t kMaxSize = 8192;  // log-uniform sizes are drawn from [1, kMaxSize]

// A double uniform in [0, 1): the top 53 bits of one draw.
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// An integer uniform in [0, n). The modulo bias, below n / 2^64, is immaterial for n < 100.
std::size_t uniform_index(std::mt19937_64& rng, std::size_t n) {
  return static_cast<std::size_t>(rng() % n);
}

// ln(x) for x >= 1 from frexp (exact) and the series ln(m) = 2 atanh((m - 1) / (m + 1)).
double det_log(double x) {
  int e = 0;
  const double m = std::frexp(x, &e);      // x = m 2^e, m in [0.5, 1)
  const double s = (m - 1.0) / (m + 1.0);  // |s| <= 1/3
  const double s2 = s * s;
  double term = s;
  double sum = 0.0;
  for (int i = 1; i < 80; i += 2) {  // terms fall by 9x each: 40 are far past double precision
    const double t = term / i;
    sum = sum + t;
    term = term * s2;
  }
  const double ln2 = 0.6931471805599453094;
  const double e_ln2 = static_cast<double>(e) * ln2;
  const double two_sum = 2.0 * sum;
  return e_ln2 + two_sum;
}

// exp(x) for x >= 0: exp(x) = 2^j exp(r), r = x - j ln 2 in [0, ln 2), by its Taylor series.
double det_exp(double x) {
  const double ln2 = 0.6931471805599453094;
  const double q = x / ln2;
  const int j = static_cast<int>(q);  // x >= 0: truncation is floor
  const double j_ln2 = static_cast<double>(j) * ln2;
  const double r = x - j_ln2;
  double term = 1.0;
  double sum = 1.0;
  for (int i = 1; i < 30; ++i) {  // r < 0.7: term 30 is below 1e-35
    const double rt = term * r;
    term = rt / i;
    sum = sum + term;
  }
  return std::ldexp(sum, j);  // exact
}

// An integer log-uniform in [lo, hi]: floor of a continuous log-uniform value on [lo, hi + 1),
// so P(v) is proportional to ln((v + 1) / v), each octave equally likely.
int64_t log_uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  const double a = det_log(static_cast<double>(lo));
  const double b = det_log(static_cast<double>(hi + 1));
  const double u = uniform01(rng);
  const double width = b - a;
  const double uw = u * width;
  const double x = a + uw;
  const auto v = static_cast<int64_t>(det_exp(x));
  return v < lo ? lo : (v > hi ? hi : v);
}

// The layers of bench/suites/llm.txt (before its deduplication: each model's own layers, so
// that a model with more layers of a width weighs more). The suites test checks that these and
// the file's widths agree.
struct Layer {
  const char* tag;
  int64_t n, k;
};
constexpr std::array<Layer, 16> kLlmLayers{{
    {"llama3-8b qkv", 6144, 4096},
    {"llama3-8b o", 4096, 4096},
    {"llama3-8b gate+up", 28672, 4096},
    {"llama3-8b down", 4096, 14336},
    {"llama3-70b qkv", 10240, 8192},
    {"llama3-70b o", 8192, 8192},
    {"llama3-70b gate/up", 28672, 8192},
    {"llama3-70b down", 8192, 28672},
    {"qwen3-8b qkv", 6144, 4096},
    {"qwen3-8b o", 4096, 4096},
    {"qwen3-8b gate+up", 24576, 4096},
    {"qwen3-8b down", 4096, 12288},
    {"mixtral-8x7b expert w1/w3", 14336, 4096},
    {"mixtral-8x7b expert w2", 4096, 14336},
    {"deepseek-v2-lite expert gate/up", 1408, 2048},
    {"deepseek-v2-lite expert down", 2048, 1408},
}};

// The values of bench/suites/small.txt's grid and odd.txt's primes.
constexpr std::array<int64_t, 19> kSmallGrid{1,  2,  3,  4,  7,   8,   12,  16,  24, 31,
                                             32, 48, 64, 96, 100, 128, 192, 255, 256};
constexpr std::array<int64_t, 10> kOddSizes{1, 3, 17, 61, 127, 257, 509, 1021, 2039, 4093};

SuiteShape random_shape(std::mt19937_64& rng) {
  SuiteShape s{};
  s.m = log_uniform(rng, 1, kMaxSize);
  s.n = log_uniform(rng, 1, kMaxSize);
  s.k = log_uniform(rng, 1, kMaxSize);
  return s;
}

SuiteShape llm_shape(std::mt19937_64& rng) {
  const Layer& layer = kLlmLayers[uniform_index(rng, kLlmLayers.size())];
  SuiteShape s{};
  s.m = log_uniform(rng, 1, kMaxSize);
  s.n = layer.n;
  s.k = layer.k;
  s.tag = std::string("full llm ") + layer.tag;
  return s;
}

SuiteShape small_shape(std::mt19937_64& rng) {
  SuiteShape s{};
  s.m = kSmallGrid[uniform_index(rng, kSmallGrid.size())];
  s.n = kSmallGrid[uniform_index(rng, kSmallGrid.size())];
  s.k = kSmallGrid[uniform_index(rng, kSmallGrid.size())];
  s.tag = "full small";
  return s;
}

// As odd.txt: prime sizes, any transposes, and in 2 shapes of 5 (as in the file: 40 of its 100)
// every leading dimension padded by one of the file's rules, + 1, + 16, 4096, twice the dense.
SuiteShape odd_shape(std::mt19937_64& rng) {
  SuiteShape s{};
  s.m = kOddSizes[uniform_index(rng, kOddSizes.size())];
  s.n = kOddSizes[uniform_index(rng, kOddSizes.size())];
  s.k = kOddSizes[uniform_index(rng, kOddSizes.size())];
  s.trans_a = uniform_index(rng, 2) == 1;
  s.trans_b = uniform_index(rng, 2) == 1;
  s.tag = "full odd";
  if (uniform_index(rng, 5) < 2) {
    const std::size_t rule = uniform_index(rng, 4);
    auto pad = [rule](int64_t dense) -> int64_t {
      switch (rule) {
        case 0: return dense + 1;
        case 1: return dense + 16;
        case 2: return 4096;  // above every dense value here (at most 4093)
        default: return 2 * dense;
      }
    };
    s.lda = pad(dense_lda(s));
    s.ldb = pad(dense_ldb(s));
    s.ldc = pad(dense_ldc(s));
    s.tag += " padded";
  }
  return s;
}

}  // namespace

std::vector<SuiteShape> random_suite(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<SuiteShape> shapes;
  shapes.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    shapes.push_back(random_shape(rng));
    shapes.back().tag = "random";
  }
  return shapes;
}

// The mix is fixed by the shape's index, not drawn, so every prefix of the suite holds the same
// proportions (a run cut short is still representative): of every 20 shapes, 8 are llm-like
// (40%: a model layer's N and K with M log-uniform), 6 random (30%), 3 small (15%), 3 odd (15%).
std::vector<SuiteShape> full_suite(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<SuiteShape> shapes;
  shapes.reserve(kFullSuiteSize);
  for (std::size_t i = 0; i < kFullSuiteSize; ++i) {
    const std::size_t slot = i % 20;
    if (slot < 8) {
      shapes.push_back(llm_shape(rng));
    } else if (slot < 14) {
      shapes.push_back(random_shape(rng));
      shapes.back().tag = "full random";
    } else if (slot < 17) {
      shapes.push_back(small_shape(rng));
    } else {
      shapes.push_back(odd_shape(rng));
    }
  }
  return shapes;
}

std::vector<SuiteShape> sample_shapes(const std::vector<SuiteShape>& shapes, std::size_t count,
                                      std::uint64_t seed) {
  if (count >= shapes.size()) return shapes;
  // A partial Fisher-Yates shuffle of the indices with the project's own index draw (the
  // standard distributions may differ between library implementations), then suite order.
  std::mt19937_64 rng(seed ^ 0x5a3b1e5c0ffee123ULL);
  std::vector<std::size_t> index(shapes.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
  for (std::size_t i = 0; i < count; ++i)
    std::swap(index[i], index[i + uniform_index(rng, index.size() - i)]);
  index.resize(count);
  std::sort(index.begin(), index.end());
  std::vector<SuiteShape> out;
  out.reserve(count);
  for (std::size_t i : index) out.push_back(shapes[i]);
  return out;
}

}  // namespace adaptcore::bench
