// A low-precision GEMM problem (bf16 or int8) after validation and normalisation, the
// counterpart of GemmProblem: C row-major, op(A) and op(B) as element strides, a column-major C
// turned into the transposed problem. Element sizes differ per operand (bf16 2 bytes, int8 1,
// C 4 or 2), so validation works in bytes.
#pragma once

#include <cstdint>

#include "adaptcore/adaptcore.hpp"
#include "core/shape_key.hpp"

namespace adaptcore {

enum class LowpKind : std::uint8_t { Bf16F32, Bf16Bf16, U8S8S32, S8S8S32 };

inline DType dtype_of(LowpKind k) noexcept {
  return k == LowpKind::Bf16F32 || k == LowpKind::Bf16Bf16 ? DType::Bf16 : DType::U8S8;
}

// One input operand after normalisation: element (i, p) of op(A) (or (p, j) of op(B)) at
// ptr + (i * rs + p * cs) elements. For int8: `is_signed` says how its bytes are read after
// `flip` (xor 0x80, the +128 shift of an s8 A); zero points per row of the normalised A / per
// column of the normalised B (zp_count == the extent) or one for all (zp_count == 1), plus
// zp_add (128 for a flipped operand).
struct LowpSide {
  const void* ptr = nullptr;
  int64_t rs = 1, cs = 1;
  bool is_signed = false;
  bool flip = false;
  const std::int32_t* zp = nullptr;
  int64_t zp_count = 0;
  std::int32_t zp_add = 0;

  bool has_zp() const noexcept { return zp_count > 0 || zp_add != 0; }
  std::int32_t zp_at(int64_t i) const noexcept {
    const std::int32_t v = zp_count == 0 ? 0 : zp_count == 1 ? zp[0] : zp[i];
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v) +
                                     static_cast<std::uint32_t>(zp_add));
  }
};

// Words deep of a prepacked low-precision panel over depth k (`group` values a word): whole
// blocks of kLowpPanelDepthBlock words, the padding zero, so that a matrix-engine tile, which
// multiplies whole blocks (kernels::EngineTile::depth_block), reads the panels as they are and
// the vector tiles read only the words of the depth.
inline constexpr int64_t kLowpPanelDepthBlock = 16;
constexpr int64_t lowp_panel_depth(int64_t k, int64_t group) noexcept {
  return ((k + group - 1) / group + kLowpPanelDepthBlock - 1) / kLowpPanelDepthBlock *
         kLowpPanelDepthBlock;
}

struct LowpProblem {
  LowpKind kind = LowpKind::Bf16F32;
  int64_t m = 0, n = 0, k = 0;
  LowpSide a, b;
  void* c = nullptr;  // C(i, j) at c + i * ldc + j elements (fp32, bf16 or s32)
  int64_t ldc = 1;
  float alpha = 1.0f, beta = 0.0f;  // bf16
  std::int32_t ibeta = 0;           // int8: C = ... + ibeta * C (0: C not read)
  // bf16 inputs with an fp32 C only: the fused epilogue, normalised to this problem's C (the
  // caller's transposed for a column-major C), owned by the entry point (null: none).
  const struct PostOpChain* post = nullptr;
  // B prepacked (PackedWeights of bf16): b.ptr the handle's panels of b_panel_nr columns
  // (core/packed_weights.hpp), read in place by the packed register tiles, each
  // lowp_panel_depth(k, group) words deep. 0: B as stored.
  int b_panel_nr = 0;
  // Prepacked int8 B: its column sums over the whole depth (n values, as the kernels read the
  // bytes), which a zero point of A needs and no packer gathers on this path.
  const std::int32_t* b_colsum = nullptr;

  DType dtype() const noexcept { return dtype_of(kind); }
  bool bf16_out() const noexcept { return kind == LowpKind::Bf16Bf16; }
  bool a_row_unit() const noexcept { return a.rs != 1; }
  bool b_row_unit() const noexcept { return b.cs == 1; }
};

// The arguments of one public call, before validation.
struct LowpCall {
  LowpKind kind = LowpKind::Bf16F32;
  Layout layout = Layout::RowMajor;
  Trans transa = Trans::No, transb = Trans::No;
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 0;
  const void* b = nullptr;
  int64_t ldb = 0;
  void* c = nullptr;
  int64_t ldc = 0;
  float alpha = 1.0f, beta = 0.0f;
  std::int32_t ibeta = 0;
  ZeroPoints a_zp, b_zp;
};

// Checks in the order of make_problem (layout, transposes, dimensions, leading dimensions,
// size overflow, null pointers, aliasing), then the zero points (a count other than 0, 1 or the
// extent: InvalidArgument; values null with a positive count: NullPointer).
Status make_lowp_problem(const LowpCall& call, LowpProblem& out) noexcept;

// A low-precision shape without operands (explain, the command line), validated as a bf16 call
// with alpha = 0 (the normalisation is the same for every kind), then given `kind`.
Status make_shape_lowp_problem(LowpKind kind, Layout layout, Trans transa, Trans transb, int64_t m,
                               int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                               LowpProblem& out) noexcept;

// The zero points of an int8 call whose op(A) has m rows and op(B) n columns: a count other
// than 0, 1 or the extent is InvalidArgument, values null with a positive count NullPointer.
Status check_zero_points(const ZeroPoints& a_zp, int64_t m, const ZeroPoints& b_zp,
                         int64_t n) noexcept;

// The shape key of a low-precision problem (leading-dimension classes in bytes).
ShapeKey make_key(const LowpProblem& p, Isa isa, int threads) noexcept;

}  // namespace adaptcore
