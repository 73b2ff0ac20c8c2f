// ab_cold.cpp: one shape, operands cold (calls rotate over operand sets filling 256 MiB),
// through the public API of whichever build it is linked against; the library-level check of
// a shape experiments/ab/ab_suites.py flags (bench/README.md, "Before/after comparisons"). Build it
// against each tree (-DOLD_API for trees before the context-last argument order and the bf16
// type), e.g. g++ -std=c++20 -O2 -DOLD_API -IOLD/include experiments/ab/ab_cold.cpp
// OLD/build/src/libadaptcore_core.a -lcpuinfo -lpthread -ldl -o ab_cold_old
//   ADAPTCORE_NUM_THREADS=2 taskset -c 0,1 ./ab_cold_old f32|bf16|u8s8|w8a16 M N K [reps]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "adaptcore/adaptcore.hpp"
using namespace adaptcore;
#ifdef OLD_API
using bf16_t = std::uint16_t;
#else
using bf16_t = adaptcore::bf16;
#endif
int main(int argc, char** argv) {
  std::string dt = argv[1];
  long m = atol(argv[2]), n = atol(argv[3]), k = atol(argv[4]);
  int reps = argc > 5 ? atoi(argv[5]) : 400;
  size_t eb = dt == "f32" ? 4 : dt == "bf16" ? 2 : 1;
  size_t set = (m * k * 4 + k * n * eb + m * n * 4);
  size_t sets = std::clamp<size_t>((256u << 20) / set, 1, 4096);
  std::vector<std::vector<float>> A(sets, std::vector<float>(m * k, 0.5f)),
      C(sets, std::vector<float>(m * n));
  std::vector<std::vector<unsigned char>> B;
  std::vector<QuantizedWeights> W;
  if (dt == "w8a16") {
    std::vector<float> w(k * n);
    for (size_t i = 0; i < w.size(); ++i) w[i] = (i % 13) * 0.1f - 0.6f;
    for (size_t s = 0; s < sets; ++s) {
      W.emplace_back();
#ifdef OLD_API
      quantize_weights(default_context(), Layout::RowMajor, Trans::Yes, k, n, w.data(), k, {},
                       W.back());
#else
      quantize_weights(Layout::RowMajor, Trans::Yes, k, n, w.data(), k, {}, W.back());
#endif
    }
  } else {
    B.assign(sets, std::vector<unsigned char>(k * n * eb));
    for (auto& b : B)
      for (size_t i = 0; i < b.size(); ++i) b[i] = (unsigned char)((i * 37) % 61);
  }
  std::vector<double> t;
  for (int r = 0; r < reps + 20; ++r) {
    size_t s = r % sets;
    auto t0 = std::chrono::steady_clock::now();
    Status st;
    if (dt == "f32")
      st = gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, A[s].data(), k,
                (const float*)B[s].data(), n, 0.0f, C[s].data(), n);
    else if (dt == "bf16")
      st = gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f,
                     (const bf16_t*)A[s].data(), k, (const bf16_t*)B[s].data(), n, 0.0f,
                     C[s].data(), n);
    else if (dt == "u8s8")
      st = gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, m, n, k,
                        (const uint8_t*)A[s].data(), k, ZeroPoints{}, (const int8_t*)B[s].data(), n,
                        ZeroPoints{}, 0, (int32_t*)C[s].data(), n);
    else
#ifdef OLD_API
      st = gemm_quantized(default_context(), Layout::RowMajor, Trans::No, m, A[s].data(), k, W[s],
                          0.0f, C[s].data(), n);
#else
      st = gemm_quantized(Layout::RowMajor, Trans::No, m, A[s].data(), k, W[s], 0.0f, C[s].data(),
                          n);
#endif
    if (st != Status::Ok) {
      printf("status %d\n", (int)st);
      return 1;
    }
    if (r >= 20)
      t.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  printf("%s %ldx%ldx%ld median %.1f us p25 %.1f min %.1f\n", dt.c_str(), m, n, k, t[t.size() / 2],
         t[t.size() / 4], t[0]);
}
