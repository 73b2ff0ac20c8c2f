// Vector traits for AVX-512F: 16 lanes, masks in k-registers (masked loads never fault).
// VecAvx512 holds fp32 (the fp32 kernels, and the bf16 kernels' accumulators); VecAvx512I32
// holds int32 with wrapping arithmetic (the int8 kernels' accumulators and C).
// In an unnamed namespace: each unit that includes it compiles its own copy with its flags.
#pragma once
#include <immintrin.h>

#include <cmath>
#include <cstdint>

namespace {

struct VecAvx512 {
  using reg = __m512;
  using elem = float;
  static constexpr int W = 16;
  static __mmask16 mask(int n) {
    return n >= W ? static_cast<__mmask16>(0xFFFF)
                  : (n <= 0 ? static_cast<__mmask16>(0)
                            : static_cast<__mmask16>((1u << static_cast<unsigned>(n)) - 1u));
  }
  static reg zero() { return _mm512_setzero_ps(); }
  static reg load(const float* p) { return _mm512_loadu_ps(p); }
  static reg load_n(const float* p, int n) { return _mm512_maskz_loadu_ps(mask(n), p); }
  // The first n lanes as a value computed once, outside a loop that loads under it.
  using lanes = __mmask16;
  static lanes first(int n) { return mask(n); }
  static reg load_lanes(const float* p, lanes m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float* p, reg r) { _mm512_storeu_ps(p, r); }
  static void store_n(float* p, reg r, int n) { _mm512_mask_storeu_ps(p, mask(n), r); }
  // A non-temporal store of a whole line (p 64-byte aligned).
  static void stream(float* p, reg r) { _mm512_stream_ps(p, r); }
  static reg bcast(const float* p) { return _mm512_set1_ps(*p); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  static reg set1(float x) { return _mm512_set1_ps(x); }
  static float hsum(reg r) { return _mm512_reduce_add_ps(r); }
  // Scalar fused multiply-add (one rounding, vfmadd with -mfma).
  static float fma1(float a, float b, float c) { return std::fma(a, b, c); }
};

// Half-width fp32 vectors (ymm, AVX-512VL: 32 registers and k-masks as for zmm) for the
// narrow tiles of the AVX-512 table: where C has at most 8 columns a 16-lane vector wastes
// half its lanes, and cores that split a 512-bit FMA in two (Zen 4) issue two 256-bit FMAs a
// cycle, so the narrow tile doubles the rate (HardwareProfile::fma_per_cycle_256).
struct VecAvx512Half {
  using reg = __m256;
  using elem = float;
  static constexpr int W = 8;
  static __mmask8 mask(int n) {
    return n >= W ? static_cast<__mmask8>(0xFF)
                  : (n <= 0 ? static_cast<__mmask8>(0)
                            : static_cast<__mmask8>((1u << static_cast<unsigned>(n)) - 1u));
  }
  static reg zero() { return _mm256_setzero_ps(); }
  static reg load(const float* p) { return _mm256_loadu_ps(p); }
  static reg load_n(const float* p, int n) { return _mm256_maskz_loadu_ps(mask(n), p); }
  using lanes = __mmask8;
  static lanes first(int n) { return mask(n); }
  static reg load_lanes(const float* p, lanes m) { return _mm256_maskz_loadu_ps(m, p); }
  static void store(float* p, reg r) { _mm256_storeu_ps(p, r); }
  static void store_n(float* p, reg r, int n) { _mm256_mask_storeu_ps(p, mask(n), r); }
  static reg bcast(const float* p) { return _mm256_set1_ps(*p); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
  static reg set1(float x) { return _mm256_set1_ps(x); }
  static float fma1(float a, float b, float c) { return std::fma(a, b, c); }
};

struct VecAvx512I32 {
  using reg = __m512i;
  using elem = std::int32_t;
  static constexpr int W = 16;
  static reg zero() { return _mm512_setzero_si512(); }
  static reg load(const elem* p) { return _mm512_loadu_si512(p); }
  static reg load_n(const elem* p, int n) {
    return _mm512_maskz_loadu_epi32(VecAvx512::mask(n), p);
  }
  static void store(elem* p, reg r) { _mm512_storeu_si512(p, r); }
  static void store_n(elem* p, reg r, int n) { _mm512_mask_storeu_epi32(p, VecAvx512::mask(n), r); }
  static reg add(reg a, reg b) { return _mm512_add_epi32(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mullo_epi32(a, b); }  // the low 32 bits
  static reg set1(elem x) { return _mm512_set1_epi32(x); }
  static elem hsum(reg r) { return _mm512_reduce_add_epi32(r); }
};

// The values of an operand along k read a vector at a time with a k-mask (dot_tile.hpp
// loaders): `first(n)`, the mask of the first n of them, is computed for every step. (The
// register type is the loader's own: a vector type loses its attributes as a template
// argument.)
template <class Elem, class Mask, int Values>
struct MaskedValues {
  using elem = Elem;
  using mask = Mask;
  static constexpr int kValues = Values;
  static constexpr bool kMaskedSteps = true;
  static mask first(int64_t n) {
    return n >= Values ? static_cast<mask>(~mask{0}) : static_cast<mask>((mask{1} << n) - 1u);
  }
};

}  // namespace
