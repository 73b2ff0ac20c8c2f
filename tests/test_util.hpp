// Helpers shared by the core tests: stored matrices with guarded, padded buffers, a
// double-precision reference GEMM with an error bound, and the ISA / thread configurations to
// run on.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "adaptcore/hardware.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore::test {

// True in a ThreadSanitizer build (GCC defines __SANITIZE_THREAD__, Clang has __has_feature).
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

inline int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  return (end != v && *end == '\0' && x >= 0) ? x : fallback;
}

// A NaN with a payload no arithmetic produces: marks padding and guard zones.
inline float sentinel() { return std::bit_cast<float>(0x7fa5c3e1u); }
inline bool is_sentinel(float x) { return std::bit_cast<std::uint32_t>(x) == 0x7fa5c3e1u; }
inline float qnan() { return std::numeric_limits<float>::quiet_NaN(); }

// A matrix as stored (rows x cols, layout, ld) inside a buffer with guard zones before and
// after it and a chosen misalignment of its first element. Everything that is not an element
// (padding beyond the rows/cols, guards) holds the sentinel.
class Stored {
 public:
  static constexpr std::size_t kGuard = 16;

  Stored() = default;
  Stored(int64_t rows, int64_t cols, Layout layout, int64_t ld, std::size_t misalign = 0)
      : rows_(rows), cols_(cols), ld_(ld), layout_(layout), misalign_(misalign) {
    const int64_t lines = layout == Layout::RowMajor ? rows : cols;
    const std::size_t body = static_cast<std::size_t>(lines * ld);
    mem_.assign(2 * kGuard + misalign + body, sentinel());
  }

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t ld() const { return ld_; }
  Layout layout() const { return layout_; }
  float* data() { return mem_.data() + kGuard + misalign_; }
  const float* data() const { return mem_.data() + kGuard + misalign_; }
  std::size_t index(int64_t r, int64_t c) const {
    return static_cast<std::size_t>(layout_ == Layout::RowMajor ? r * ld_ + c : c * ld_ + r);
  }
  float& at(int64_t r, int64_t c) { return data()[index(r, c)]; }
  float at(int64_t r, int64_t c) const { return data()[index(r, c)]; }
  const std::vector<float>& memory() const { return mem_; }
  std::vector<float>& memory() { return mem_; }
  // Position in memory() of element (r, c).
  std::size_t mem_index(int64_t r, int64_t c) const { return kGuard + misalign_ + index(r, c); }

  template <class F>
  void fill(F&& f) {
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = 0; c < cols_; ++c) at(r, c) = f(r, c);
  }

  MatrixView<const float> cview() const { return {data(), rows_, cols_, ld_, layout_}; }
  MatrixView<float> view() { return {data(), rows_, cols_, ld_, layout_}; }

 private:
  std::vector<float> mem_;
  int64_t rows_ = 0, cols_ = 0, ld_ = 1;
  Layout layout_ = Layout::RowMajor;
  std::size_t misalign_ = 0;
};

// Bitwise equality (NaN payloads included; operator== would call NaN != NaN).
inline bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

inline bool transposed(Trans t) { return t != Trans::No; }

// op(X)(i, p) of a stored operand.
inline float op_at(const Stored& x, Trans t, int64_t i, int64_t p) {
  return transposed(t) ? x.at(p, i) : x.at(i, p);
}

// The reference result and the error bound of every element of C, in double precision:
//   ref   = alpha * sum_p op(A)(i,p) op(B)(p,j) + beta * C0(i,j)   (beta == 0: C0 not read)
//   bound = c * (k + 2) * eps * (|alpha| sum_p |op(A)(i,p)| |op(B)(p,j)| + |beta| |C0(i,j)|) + tiny
// The (k + 2) covers the k accumulations in any order (blocked, split-K) plus the alpha scaling
// and the beta update.
struct Reference {
  std::vector<double> ref, bound;
  int64_t m = 0, n = 0;
  double at(int64_t i, int64_t j) const { return ref[static_cast<std::size_t>(i * n + j)]; }
  double tol(int64_t i, int64_t j) const { return bound[static_cast<std::size_t>(i * n + j)]; }
};

inline constexpr double kBoundConstant = 2.0;
inline constexpr double kTinyAbs = 1e-30;

inline Reference reference_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, float alpha,
                                const Stored& a, const Stored& b, float beta, const Stored& c0) {
  Reference r;
  r.m = m, r.n = n;
  const auto mn = static_cast<std::size_t>(m * n);
  r.ref.assign(mn, 0.0);
  r.bound.assign(mn, 0.0);
  if (m == 0 || n == 0) return r;
  if (alpha != 0.0f && k > 0) {
    // op(B) densely, row-major, and its absolute values; then a row-oriented loop nest.
    std::vector<double> bd(static_cast<std::size_t>(k * n)), bab(bd.size());
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) {
        const double v = op_at(b, tb, p, j);
        bd[static_cast<std::size_t>(p * n + j)] = v;
        bab[static_cast<std::size_t>(p * n + j)] = std::fabs(v);
      }
    for (int64_t i = 0; i < m; ++i) {
      double* rr = r.ref.data() + i * n;
      double* rb = r.bound.data() + i * n;
      for (int64_t p = 0; p < k; ++p) {
        const double av = op_at(a, ta, i, p);
        const double aa = std::fabs(av);
        const double* brow = bd.data() + p * n;
        const double* barow = bab.data() + p * n;
        for (int64_t j = 0; j < n; ++j) {
          rr[j] += av * brow[j];
          rb[j] += aa * barow[j];
        }
      }
    }
    const double al = alpha, aal = std::fabs(al);
    for (std::size_t x = 0; x < mn; ++x) {
      r.ref[x] *= al;
      r.bound[x] *= aal;
    }
  }
  if (beta != 0.0f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double cv = c0.at(i, j);
        r.ref[static_cast<std::size_t>(i * n + j)] += static_cast<double>(beta) * cv;
        r.bound[static_cast<std::size_t>(i * n + j)] += std::fabs(static_cast<double>(beta) * cv);
      }
  }
  const double scale = kBoundConstant * static_cast<double>(k + 2) *
                       static_cast<double>(std::numeric_limits<float>::epsilon());
  for (auto& x : r.bound) x = x * scale + kTinyAbs;
  return r;
}

// Checks C against the reference and its padding and guards against the sentinel. Returns an
// empty string when all is well, else a description of the first problems.
inline std::string check_result(const Stored& c, const Reference& r) {
  std::ostringstream os;
  int bad = 0;
  const int64_t m = c.rows(), n = c.cols();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double got = c.at(i, j);
      const double err = std::fabs(got - r.at(i, j));
      if (!(err <= r.tol(i, j))) {  // also catches NaN
        if (bad < 3)
          os << " C(" << i << "," << j << ")=" << got << " ref=" << r.at(i, j) << " err=" << err
             << " bound=" << r.tol(i, j) << ";";
        ++bad;
      }
    }
  // Everything that is not an element must still hold the sentinel.
  std::vector<char> is_elem(c.memory().size(), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) is_elem[c.mem_index(i, j)] = 1;
  int64_t clobbered = 0, first = -1;
  for (std::size_t x = 0; x < is_elem.size(); ++x)
    if (!is_elem[x] && !is_sentinel(c.memory()[x])) {
      if (first < 0) first = static_cast<int64_t>(x);
      ++clobbered;
    }
  if (bad > 0) os << " [" << bad << " wrong elements]";
  if (clobbered > 0)
    os << " [" << clobbered << " padding/guard floats of C written, first at buffer offset "
       << first << " (elements start at " << c.mem_index(0, 0) << ", ld " << c.ld() << ")]";
  return os.str();
}

// The registry levels to run contexts at: each level this build and CPU run whose fp32 kernels
// are its own, except that the highest of them gives way to the best level where that one runs
// the same fp32 kernels (the level a default context takes, whose low-precision tables the
// others lack), so every fp32 table runs once and the default level always does.
inline std::vector<Isa> available_isas() {
  std::vector<Isa> out;
  for (const Isa isa : kernels::built_levels())
    if (detected_hardware().supports(isa) && kernels::kernels_for(isa)->isa == isa)
      out.push_back(isa);
  const Isa best = detected_hardware().best_isa();
  if (!out.empty() && kernels::kernels_for(best) == kernels::kernels_for(out.back()))
    out.back() = best;
  return out;
}

struct Config {
  Isa isa;
  int threads;
  std::unique_ptr<Context> ctx;
  std::string name() const {
    return std::string(to_string(isa)) + "/" + std::to_string(threads) + "t";
  }
};

inline std::unique_ptr<Context> make_context(Isa isa, int threads) {
  ContextOptions o;
  o.isa = isa;
  o.threads = threads;
  o.read_environment = false;
  return std::make_unique<Context>(o);
}

// Every available ISA with 1 and 2 threads, plus the best ISA with 3 threads (uneven grids).
inline std::vector<Config> all_configs() {
  std::vector<Config> out;
  const auto isas = available_isas();
  for (Isa isa : isas)
    for (int t : {1, 2}) out.push_back({isa, t, make_context(isa, t)});
  if (!isas.empty()) out.push_back({isas.back(), 3, make_context(isas.back(), 3)});
  return out;
}

inline const char* name(Layout l) { return l == Layout::RowMajor ? "row" : "col"; }
inline const char* name(Trans t) { return t == Trans::No ? "N" : (t == Trans::Yes ? "T" : "C"); }

}  // namespace adaptcore::test
