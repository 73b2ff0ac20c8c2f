// A one-row call streaming B from DRAM (C = A * B, A 1 x K, B K x N row-major, beta 0) through
// the library, in turns with the same accesses written as one plain loop: eight rows of B, 64
// columns a step, C loaded and stored per block of rows (the access order of the library's
// decode plan, `6x64 directA directB kc=8`). The calls rotate over copies of B filling --pool-mib,
// so every call reads DRAM. The loop is the rate this core reaches with those accesses; the
// library's share of it is what its instructions between the loads cost (docs/MODEL.md,
// "One-row sweeps"). AVX-512 only (the loop's vectors); elsewhere it says so and stops.
//
//   adaptcore_bench_one_row_stream --n N --k K [--pool-mib P] [--rounds R]
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "adaptcore/hardware.hpp"

namespace {

// C(1 x n) = A(1 x k) * B(k x n): eight rows of B a block, 64 columns a step (n a multiple of
// 64, k of 8).
__attribute__((target("avx512f"))) void plain_loop(const float* a, const float* b, float* c,
                                                   int64_t k, int64_t n) {
  for (int64_t p = 0; p < k; p += 8) {
    const float* bp = b + p * n;
    __m512 x[8];
    for (int r = 0; r < 8; ++r) x[r] = _mm512_set1_ps(a[p + r]);
    for (int64_t j = 0; j < n; j += 64) {
      __m512 c0 = p == 0 ? _mm512_setzero_ps() : _mm512_loadu_ps(c + j);
      __m512 c1 = p == 0 ? _mm512_setzero_ps() : _mm512_loadu_ps(c + j + 16);
      __m512 c2 = p == 0 ? _mm512_setzero_ps() : _mm512_loadu_ps(c + j + 32);
      __m512 c3 = p == 0 ? _mm512_setzero_ps() : _mm512_loadu_ps(c + j + 48);
      for (int r = 0; r < 8; ++r) {
        const float* row = bp + r * n + j;
        c0 = _mm512_fmadd_ps(x[r], _mm512_loadu_ps(row), c0);
        c1 = _mm512_fmadd_ps(x[r], _mm512_loadu_ps(row + 16), c1);
        c2 = _mm512_fmadd_ps(x[r], _mm512_loadu_ps(row + 32), c2);
        c3 = _mm512_fmadd_ps(x[r], _mm512_loadu_ps(row + 48), c3);
      }
      _mm512_storeu_ps(c + j, c0);
      _mm512_storeu_ps(c + j + 16, c1);
      _mm512_storeu_ps(c + j + 32, c2);
      _mm512_storeu_ps(c + j + 48, c3);
    }
  }
}

int64_t arg(int argc, char** argv, const std::string& name, int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::atoll(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = arg(argc, argv, "--n", 14336), k = arg(argc, argv, "--k", 4096);
  const int64_t pool_mib = arg(argc, argv, "--pool-mib", 512);
  const int rounds = static_cast<int>(arg(argc, argv, "--rounds", 9));
  if (n <= 0 || k <= 0 || n % 64 != 0 || k % 8 != 0 || rounds < 1 || pool_mib < 0) {
    std::fprintf(stderr,
                 "usage: adaptcore_bench_one_row_stream --n N (a multiple of 64) --k K (of 8) "
                 "[--pool-mib P] [--rounds R]\n");
    return 2;
  }
  if (!adaptcore::detected_hardware().supports(adaptcore::Isa::Avx512)) {
    std::printf("needs AVX-512 (the plain loop's vectors)\n");
    return 0;
  }
  const int64_t b_bytes = n * k * 4;
  const int64_t copies = std::max<int64_t>(2, (pool_mib << 20) / b_bytes);
  std::vector<std::vector<float>> bs(static_cast<std::size_t>(copies));
  for (int64_t i = 0; i < copies; ++i) {
    bs[static_cast<std::size_t>(i)].resize(static_cast<std::size_t>(n * k));
    for (int64_t e = 0; e < n * k; ++e)
      bs[static_cast<std::size_t>(i)][static_cast<std::size_t>(e)] = static_cast<float>(e % 7 - 3);
  }
  std::vector<float> a(static_cast<std::size_t>(k), 0.5f), c(static_cast<std::size_t>(n));
  std::vector<double> lib_us, loop_us;
  int64_t next = 0;
  auto time = [&](auto&& call) {
    const float* b = bs[static_cast<std::size_t>(next++ % copies)].data();
    const auto t0 = std::chrono::steady_clock::now();
    call(b);
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
        .count();
  };
  auto lib = [&](const float* b) {
    if (ac_sgemm_residency(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 1, n, k, 1.0f, a.data(), k, b,
                           n, 0.0f, c.data(), n, AC_RESIDENCY_MEMORY) != AC_STATUS_OK)
      std::abort();
  };
  auto loop = [&](const float* b) { plain_loop(a.data(), b, c.data(), k, n); };
  time(lib), time(loop);  // warm-up: the plan, the pages
  for (int r = 0; r < rounds; ++r) lib_us.push_back(time(lib)), loop_us.push_back(time(loop));
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double l = median(lib_us), p = median(loop_us);
  std::printf("1 x %lld x %lld, B %.0f MiB x %lld copies, %d rounds in turns (medians)\n",
              static_cast<long long>(n), static_cast<long long>(k),
              static_cast<double>(b_bytes) / (1 << 20), static_cast<long long>(copies), rounds);
  std::printf("adaptcore   %10.1f us  %6.1f GB/s\n", l, static_cast<double>(b_bytes) / l * 1e-3);
  std::printf("plain loop  %10.1f us  %6.1f GB/s\n", p, static_cast<double>(b_bytes) / p * 1e-3);
  std::printf("adaptcore / loop time %.3f\n", l / p);
  return 0;
}
