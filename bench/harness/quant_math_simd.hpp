// AVX-512 loops of quant_math.cpp (quant_math_avx512.cpp, built with -mavx512f/bw/vl/bf16);
// called only when the running CPU has the instructions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace adaptcore::bench::simd {

void dequantize_s8(const int8_t* q, int64_t count, float scale, float* out);
// `count` int4 values, two per byte (low nibble first), each stored + 8.
void dequantize_u4(const uint8_t* b, int64_t count, float scale, float* out);
void convert_bf16(const float* x, std::size_t count, uint16_t* out);  // needs AVX512-BF16
// lo and hi are updated in place (they start at 0).
void min_max(const float* x, std::size_t count, float& lo, float& hi);
void quantize_u8(const float* x, std::size_t count, float inv_scale, int32_t zero_point,
                 uint8_t* out);
void rescale_row(const int32_t* acc, int64_t n, const float* scales, float* out);

}  // namespace adaptcore::bench::simd
