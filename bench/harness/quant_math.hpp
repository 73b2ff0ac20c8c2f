// The arithmetic of the weight-quantized comparisons (`adaptcore bench --dtype w8a16|w4a16`):
// symmetric weight quantization, the per-call conversions each comparison path times
// (dequantizing weights to fp32, activations to bf16, activations to u8 with a zero point, the
// int32 -> fp32 rescale) and the accuracy of a result against the exact product of the
// dequantized weights and the fp32 activations. Plain functions, no timing, so tests pin them.
//
// Conventions: activations X are m x k row-major fp32; weights W are n x k row-major (one row
// per output channel, the usual layout of a linear layer), so C = X W^T is m x n.
#pragma once

#include <cstdint>
#include <vector>

namespace adaptcore::bench {

// Weights quantized symmetrically per output channel and group of K: for row j and group g,
// scale = max |w| / qmax over the group (qmax 127 for int8, 7 for int4) and
// q = clamp(round(w / scale), -qmax - 1, qmax); a group of zeros gets scale 0 and q 0.
struct QuantizedWeights8or4 {
  int64_t n = 0, k = 0;
  int64_t group = 0;          // K values per scale (== k: one scale per output channel)
  int bits = 8;               // 8 or 4
  std::vector<int8_t> q;      // n x k values, one per byte
  std::vector<float> scales;  // n x groups()
  // int4 only: the values as stored for the dequantizing path, two per byte (k rounded up to
  // even): low nibble = even k, high nibble = odd k, each value + 8 (0..15).
  std::vector<uint8_t> nibbles;
  int64_t groups() const { return group > 0 ? (k + group - 1) / group : 0; }
  float scale(int64_t j, int64_t p) const {
    return scales[static_cast<std::size_t>(j * groups() + p / group)];
  }
  // Bytes a GEMM must read per call: the stored values (k n bits / 8) and the scales.
  double bytes() const;
};

// Throws std::invalid_argument for bits other than 8 or 4, a non-positive group, or sizes < 1.
QuantizedWeights8or4 quantize_weights_symmetric(const float* w, int64_t n, int64_t k, int64_t group,
                                                int bits);

// Path (a): W dequantized to fp32, n x k row-major (ld k). Vectorised (AVX-512 when the CPU
// has it), as a caller who dequantizes before an fp32 GEMM would write it.
void dequantize_weights(const QuantizedWeights8or4& w, float* out);

// Path (b): fp32 -> bf16 (round to nearest even), `count` values.
void convert_to_bf16(const float* x, std::size_t count, uint16_t* out);

// Path (c): per-tensor asymmetric u8 quantization of X (count values): scale = (max - min)/255
// over the tensor with the range widened to include 0, zero_point = round(-min / scale) in
// [0, 255], q = clamp(round(x / scale) + zero_point, 0, 255). All-zero X: scale 0, q = zp = 0.
struct ActivationQuant {
  float scale = 0;
  int32_t zero_point = 0;
};
ActivationQuant quantize_activations_u8(const float* x, std::size_t count, uint8_t* out);

// Path (c)'s epilogue: c[i][j] = a_scale * w_scale[j] * acc[i][j], m x n (ld n for both).
void rescale_int32(const int32_t* acc, int64_t m, int64_t n, float a_scale, const float* w_scale,
                   float* c);

// The exact product, in fp64, of rows `rows` of X with the dequantized weights: ref[r * n + j].
std::vector<double> reference_rows(const float* x, int64_t k, const QuantizedWeights8or4& w,
                                   const std::vector<int64_t>& rows);

// Up to `count` distinct rows of an m-row output, evenly spread, first and last included.
std::vector<int64_t> reference_row_choice(int64_t m, int64_t count);

// Error of rows `rows` of C (ld n) against ref: max |c - ref| / max |ref| and the relative
// Frobenius error sqrt(sum (c - ref)^2 / sum ref^2). NaN or infinity in C gives infinities; an
// all-zero reference divides by 1 instead of 0.
struct QuantAccuracy {
  double max_rel = 0;  // relative to the largest |ref| of the checked rows
  double fro_rel = 0;
};
QuantAccuracy quant_accuracy(const float* c, int64_t n, const std::vector<int64_t>& rows,
                             const std::vector<double>& ref);

}  // namespace adaptcore::bench
