// Vector traits for AVX-512F: 16 fp32 lanes, masks in k-registers (masked loads never fault).
#pragma once
#include <immintrin.h>

struct VecAvx512 {
  using reg = __m512;
  static constexpr int W = 16;
  static __mmask16 mask(int n) {
    return n >= W ? static_cast<__mmask16>(0xFFFF)
                  : (n <= 0 ? static_cast<__mmask16>(0)
                            : static_cast<__mmask16>((1u << static_cast<unsigned>(n)) - 1u));
  }
  static reg zero() { return _mm512_setzero_ps(); }
  static reg load(const float* p) { return _mm512_loadu_ps(p); }
  static reg load_n(const float* p, int n) { return _mm512_maskz_loadu_ps(mask(n), p); }
  static void store(float* p, reg r) { _mm512_storeu_ps(p, r); }
  static void store_n(float* p, reg r, int n) { _mm512_mask_storeu_ps(p, mask(n), r); }
  static reg bcast(const float* p) { return _mm512_set1_ps(*p); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  static reg set1(float x) { return _mm512_set1_ps(x); }
  static float hsum(reg r) { return _mm512_reduce_add_ps(r); }
};
