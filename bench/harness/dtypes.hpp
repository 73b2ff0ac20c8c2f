// The element types `adaptcore bench --dtype` grades: fp32 (the default), the low-precision GEMMs
// (bf16, u8s8, s8s8) against their vendor equivalents, and the weight-quantized comparisons
// (w8a16, w4a16) against the paths a user would otherwise take (bench/README.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace adaptcore::bench {

enum class BenchDtype { F32, Bf16, U8S8, S8S8, W8A16, W4A16 };

const char* to_string(BenchDtype d) noexcept;
// Accepts the names to_string gives ("f32", "bf16", "u8s8", "s8s8", "w8a16", "w4a16").
bool parse_dtype(std::string_view name, BenchDtype& out) noexcept;
std::vector<std::string> dtype_names();

inline bool is_weight_quantized(BenchDtype d) {
  return d == BenchDtype::W8A16 || d == BenchDtype::W4A16;
}

// Bytes per stored element of A, B and C: what the hardware limit counts as the least traffic.
// The weight-quantized types count fp32 activations, int8 or int4 weights (scales are
// negligible: one fp32 per output channel or group of K) and an fp32 output.
struct ElementBytes {
  double a = 4, b = 4, c = 4;
};
ElementBytes element_bytes(BenchDtype d) noexcept;

// The unit of a record's rate: "GFLOP/s" for the floating-point types and the weight-quantized
// ones (2 m n k over the time), "GOP/s" for the integer GEMMs.
const char* rate_unit(BenchDtype d) noexcept;

}  // namespace adaptcore::bench
