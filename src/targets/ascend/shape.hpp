// One matmul as the NPU target sees it: C[m x n] (fp32, or int32 for int8) = op(A) op(B), A and
// B in global memory (GM) in ND (row-major) layout, either operand possibly stored transposed
// and with a row pitch larger than dense.
#pragma once

#include <cstdint>
#include <string>

namespace adaptcore::ascend {

// Input element types. fp16 and bf16 accumulate in fp32; int8 in int32.
enum class InDType : std::uint8_t { Fp16, Bf16, Int8 };

inline int elem_bytes(InDType t) noexcept { return t == InDType::Int8 ? 1 : 2; }
// C0: elements of one 32-byte fractal row along k (16 for 16-bit types, 32 for int8).
inline int c0_elems(InDType t) noexcept { return 32 / elem_bytes(t); }
const char* to_string(InDType t) noexcept;
bool parse_in_dtype(const std::string& text, InDType& out) noexcept;

struct AscendShape {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false;      // A stored k x m
  bool trans_b = false;      // B stored n x k
  int64_t lda = 0, ldb = 0;  // row pitch in elements of A and B as stored; 0: dense
  InDType dtype = InDType::Fp16;

  int64_t dense_lda() const noexcept { return trans_a ? m : k; }
  int64_t dense_ldb() const noexcept { return trans_b ? k : n; }
  int64_t pitch_a() const noexcept { return lda > 0 ? lda : dense_lda(); }
  int64_t pitch_b() const noexcept { return ldb > 0 ? ldb : dense_ldb(); }
  double flops() const noexcept {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
  std::string str() const;  // "M=64 N=4096 K=4096 NT fp16"
};

// Empty when the shape is valid, else why not: sizes in [1, 2^31 - 1], pitches 0 or at least
// the dense one, operand sizes below 2^46 bytes.
std::string check_shape(const AscendShape& s);

}  // namespace adaptcore::ascend
