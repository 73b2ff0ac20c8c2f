// Vector traits for AVX2 + FMA3: 8 fp32 lanes; tails use vmaskmovps (masked lanes never fault).
// In an unnamed namespace: each unit that includes it compiles its own copy with its flags.
#pragma once
#include <immintrin.h>

#include <cmath>

namespace {

struct VecAvx2 {
  using reg = __m256;
  using elem = float;
  static constexpr int W = 8;
  static __m256i mask(int n) {
    alignas(32) static constexpr int kBits[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                  0,  0,  0,  0,  0,  0,  0,  0};
    const int c = n < 0 ? 0 : (n > W ? W : n);
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kBits + (W - c)));
  }
  static reg zero() { return _mm256_setzero_ps(); }
  static reg load(const float* p) { return _mm256_loadu_ps(p); }
  static reg load_n(const float* p, int n) {
    return n >= W ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask(n));
  }
  // The first n lanes as a value computed once, outside a loop that loads under it.
  using lanes = __m256i;
  static lanes first(int n) { return mask(n); }
  static reg load_lanes(const float* p, lanes m) { return _mm256_maskload_ps(p, m); }
  static void store(float* p, reg r) { _mm256_storeu_ps(p, r); }
  // The first n lanes, as a 16-, 8- and 4-byte store for the bits of n: AMD's cores before
  // Zen 4 microcode vmaskmovps stores (a 6x16 tile storing 15 columns took 90 ns a call against
  // 38 for 16 on a Zen 3 core, kc = 1), and the tails of every plan's last column tile store
  // through here. Only the n lanes are written, as vmaskmovps would.
  static void store_n(float* p, reg r, int n) {
    if (n >= W) {
      _mm256_storeu_ps(p, r);
      return;
    }
    if (n <= 0) return;
    __m128 part = _mm256_castps256_ps128(r);
    if (n & 4) {
      _mm_storeu_ps(p, part);
      part = _mm256_extractf128_ps(r, 1);
      p += 4;
    }
    if (n & 2) {
      _mm_storel_pi(reinterpret_cast<__m64*>(p), part);
      part = _mm_movehl_ps(part, part);
      p += 2;
    }
    if (n & 1) _mm_store_ss(p, part);
  }
  // A non-temporal store of half a line (p 32-byte aligned).
  static void stream(float* p, reg r) { _mm256_stream_ps(p, r); }
  static reg bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
  static reg set1(float x) { return _mm256_set1_ps(x); }
  static float hsum(reg r) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  // Scalar fused multiply-add (one rounding, vfmadd with -mfma).
  static float fma1(float a, float b, float c) { return std::fma(a, b, c); }
};

}  // namespace
