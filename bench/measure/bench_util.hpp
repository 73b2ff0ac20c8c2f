// Small helpers shared by the command line and the benchmarks: aligned buffers, a fast
// deterministic fill, wall-clock timing and order statistics.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace adaptcore::measure {

struct FreeDeleter {
  void operator()(float* p) const noexcept { std::free(p); }
};
using FloatBuffer = std::unique_ptr<float[], FreeDeleter>;

// 64-byte aligned, uninitialised; at least one element so the pointer is never null.
inline FloatBuffer make_buffer(std::size_t count) {
  // More than the address space: refused, not wrapped to a small buffer.
  if (count > (SIZE_MAX - 63) / sizeof(float)) throw std::bad_alloc();
  const std::size_t bytes = (std::max<std::size_t>(count, 1) * sizeof(float) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return FloatBuffer(static_cast<float*>(p));
}

// Uniform values in [-1, 1) from a splitmix64 stream: deterministic per seed and fast enough to
// fill gigabytes.
inline void fill_uniform(float* p, std::size_t count, std::uint64_t seed) {
  std::uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (std::size_t i = 0; i < count; ++i) {
    s += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    p[i] = static_cast<float>(static_cast<double>(z >> 40) * (2.0 / 16777216.0) - 1.0);
  }
}

// Operand sets a shape's timed calls rotate over so that each call finds its operands in
// memory: enough to total pool_bytes, at least two and at most 4096 (below 16 KiB a set, a
// 64 MiB pool's sets then fit the caches anyway); one where pool_bytes is 0 (warm operands).
// Never one set for a cold call: a set as large as the pool was read again by every call, and
// on a host whose caches hold more than it reports (a guest's L3 on two dies) it came from
// cache: 1 x 4096 x 4096 at two threads ran at 2.1x its DRAM limit. The benchmark and the
// model's validation use this one rule, so that "cold" means the same in both.
inline std::size_t pool_sets(double set_bytes, double pool_bytes) {
  if (pool_bytes <= 0) return 1;
  return static_cast<std::size_t>(std::clamp(std::ceil(pool_bytes / set_bytes), 2.0, 4096.0));
}

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds taken by one call of f.
template <class F>
double time_once(F&& f) {
  const double t0 = now_seconds();
  f();
  return now_seconds() - t0;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 != 0 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

inline double minimum(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

// Repetitions that fill about `target_s` seconds given one call's estimated time.
inline int reps_for(double est_s, double target_s, int min_reps, int max_reps) {
  const double r = est_s > 0 ? target_s / est_s : static_cast<double>(max_reps);
  return static_cast<int>(
      std::clamp(r, static_cast<double>(min_reps), static_cast<double>(max_reps)));
}

inline double gemm_gflops(int64_t m, int64_t n, int64_t k, double seconds) {
  return seconds > 0 ? 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                           static_cast<double>(k) / seconds * 1e-9
                     : 0.0;
}

}  // namespace adaptcore::measure
