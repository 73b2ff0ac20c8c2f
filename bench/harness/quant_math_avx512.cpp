// AVX-512 loops of the weight-quantized comparison paths: what a caller who dequantizes or
// converts before calling a GEMM would run (16 lanes a step, masked tails).
// GCC 12's AVX-512 headers start several intrinsics from an undefined register (`__Y = __Y`),
// which -Wuninitialized reports once they are inlined here (GCC bug 105593, fixed in 12.3).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>

#include "harness/quant_math_simd.hpp"

namespace adaptcore::bench::simd {

namespace {
__mmask16 tail_mask(int64_t left) {
  return left >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1);
}
}  // namespace

void dequantize_s8(const int8_t* q, int64_t count, float scale, float* out) {
  const __m512 s = _mm512_set1_ps(scale);
  for (int64_t p = 0; p < count; p += 16) {
    const __mmask16 m = tail_mask(count - p);
    const __m128i bytes = _mm_maskz_loadu_epi8(m, q + p);
    const __m512 v = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes));
    _mm512_mask_storeu_ps(out + p, m, _mm512_mul_ps(v, s));
  }
}

void dequantize_u4(const uint8_t* b, int64_t count, float scale, float* out) {
  const __m512 s = _mm512_set1_ps(scale);
  const __m512i eight = _mm512_set1_epi32(8);
  const __m128i low4 = _mm_set1_epi8(0x0F);
  for (int64_t p = 0; p < count; p += 16) {  // 16 values = 8 bytes
    const __mmask16 m = tail_mask(count - p);
    const int64_t nbytes = (std::min<int64_t>(16, count - p) + 1) / 2;
    const __m128i raw = _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << nbytes) - 1), b + p / 2);
    const __m128i lo = _mm_and_si128(raw, low4);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(raw, 4), low4);
    const __m128i both = _mm_unpacklo_epi8(lo, hi);  // value 2i = low nibble of byte i
    const __m512i v = _mm512_sub_epi32(_mm512_cvtepu8_epi32(both), eight);
    _mm512_mask_storeu_ps(out + p, m, _mm512_mul_ps(_mm512_cvtepi32_ps(v), s));
  }
}

void convert_bf16(const float* x, std::size_t count, uint16_t* out) {
  for (std::size_t i = 0; i < count; i += 16) {
    const __mmask16 m = tail_mask(static_cast<int64_t>(count - i));
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __m256bh h = _mm512_cvtneps_pbh(v);
    _mm256_mask_storeu_epi16(out + i, m, reinterpret_cast<const __m256i&>(h));
  }
}

void min_max(const float* x, std::size_t count, float& lo, float& hi) {
  __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (std::size_t i = 0; i < count; i += 16) {
    const __mmask16 m = tail_mask(static_cast<int64_t>(count - i));
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);  // masked lanes read 0, inside the range
    vlo = _mm512_min_ps(vlo, v);
    vhi = _mm512_max_ps(vhi, v);
  }
  lo = _mm512_reduce_min_ps(vlo);
  hi = _mm512_reduce_max_ps(vhi);
}

void quantize_u8(const float* x, std::size_t count, float inv_scale, int32_t zero_point,
                 uint8_t* out) {
  const __m512 inv = _mm512_set1_ps(inv_scale);
  const __m512i zp = _mm512_set1_epi32(zero_point);
  const __m512i zero = _mm512_setzero_si512();
  for (std::size_t i = 0; i < count; i += 16) {
    const __mmask16 m = tail_mask(static_cast<int64_t>(count - i));
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    // Round to nearest even (the default MXCSR mode), add the zero point, clamp to [0, 255].
    const __m512i q =
        _mm512_max_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(v, inv)), zp), zero);
    _mm_mask_storeu_epi8(out + i, m, _mm512_cvtusepi32_epi8(q));
  }
}

void rescale_row(const int32_t* acc, int64_t n, const float* scales, float* out) {
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 m = tail_mask(n - j);
    const __m512 a = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(m, acc + j));
    _mm512_mask_storeu_ps(out + j, m, _mm512_mul_ps(a, _mm512_maskz_loadu_ps(m, scales + j)));
  }
}

}  // namespace adaptcore::bench::simd
