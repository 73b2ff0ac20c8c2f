// Vocabulary types of the adaptcore C++ API: layouts, transposes, status codes, ISA paths and
// matrix views. Enum values equal the C API's (and CBLAS's) so they convert by value.
#pragma once

#include <cstdint>
#include <string_view>

namespace adaptcore {

enum class Layout : int { RowMajor = 101, ColMajor = 102 };
enum class Trans : int { No = 111, Yes = 112, ConjYes = 113 };

enum class Status : int {
  Ok = 0,
  InvalidLayout = 1,
  InvalidTranspose = 2,
  InvalidDimension = 3,
  InvalidLeadingDimension = 4,
  NullPointer = 5,
  SizeOverflow = 6,
  Aliasing = 7,
  ShapeMismatch = 8,
  InvalidArgument = 9,
  UnsupportedIsa = 10,
  InvalidProfile = 11,
  OutOfMemory = 12,
  InternalError = 13,
  InvalidPlanFile = 14,
};

// Most threads a context runs (ContextOptions::threads, set_threads, ADAPTCORE_NUM_THREADS,
// and the cores a hardware profile may claim).
inline constexpr int kMaxThreads = 1024;

// The architecture levels of the kernel registry, one lattice (docs/ARCHITECTURE.md,
// "Architecture registry"): each level contains the one below it and adds kernels or
// instructions, generic < avx2 < avx512 < avx512_vnni < avx512_bf16 < amx (the tile unit: its
// bf16 and int8 tables add the engine's tile beside the AVX-512 ones). A context runs one level
// (Context::isa); its fp32, bf16, int8 and weight-quantized kernels are the highest ones at or
// below it. Auto means "the best level the CPU and the build have". The values are stable (plan
// files store them); a new level takes a new value.
enum class Isa : int {
  Auto = 0,
  Generic = 1,
  Avx2 = 2,
  Avx512 = 3,
  Avx512Vnni = 4,
  Avx512Bf16 = 5,
  Amx = 6
};

// Where a call's operands are when it starts, which the planner plans for:
//   Auto    decided per call: a call with the same A, B and C as the previous call on its thread
//           (a hot loop, a benchmark) finds them in the caches as far as they fit; any other
//           call finds them in memory (the weights of one layer after the other, fresh buffers)
//   Cached  always in the caches as far as they fit
//   Memory  always in memory (DRAM)
enum class Residency : int { Auto = 0, Cached = 1, Memory = 2 };

// Fused epilogues (docs/EPILOGUES.md): operations applied to C after the product, in the order
// given, while each finished block of C is still in the cores' caches:
//   C = op_n( ... op_1(alpha * op(A) * op(B) + beta * C))
// "Column" means a column of C as the caller stores it (an output channel), in either layout.
//   Bias      C(i, j) += data[j]                  (n values)
//   Scale     C(i, j) *= data[j]                  (n values: per-output-channel scale)
//   Residual  C(i, j) += R(i, j)                  (R m x n in the call's layout, leading
//                                                  dimension ld >= its rows' or columns' extent)
//   Relu      max(x, 0)
//   GeluTanh  0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
//   GeluErf   0.5 x (1 + erf(x / sqrt(2)))
//   Silu      x / (1 + exp(-x))
// and, as the last operation of a list only (an output of its own; C keeps the values the
// operations before it produced):
//   SwiGlu    out(i, p) = silu(x(i, 2p)) * x(i, 2p + 1): gate and up projections computed by one
//             GEMM over weights whose columns alternate gate, up (n even); out is m x n/2
//   Store     out(i, j) = x(i, j): the result in another type (a bf16 output of an fp32 GEMM)
//             or place
// out is in the call's layout with leading dimension ld, of type out_type (fp32 or bf16,
// rounded to nearest even).
// The vectors, R and out must not overlap C, and out none of them nor the call's A and B
// (Aliasing). Activations are
// computed in fp32: relative error below 2e-6 wherever |f(x)| >= 1e-3, below 2e-5 in the far
// negative tails of GELU and SiLU (docs/EPILOGUES.md, "Accuracy").
enum class PostOpKind : int {
  Bias = 1,
  Scale = 2,
  Residual = 3,
  Relu = 4,
  GeluTanh = 5,
  GeluErf = 6,
  Silu = 7,
  SwiGlu = 8,
  Store = 9
};
// The element type of a SwiGlu or Store output.
enum class OutputType : int { F32 = 0, Bf16 = 1 };
struct PostOp {
  PostOpKind kind = PostOpKind::Relu;
  const float* data = nullptr;  // Bias, Scale: n values; Residual: the matrix R; else unused
  int64_t ld = 0;               // Residual: R's leading dimension; SwiGlu, Store: out's
  void* out = nullptr;          // SwiGlu, Store: the output (float or bf16 per out_type)
  OutputType out_type = OutputType::F32;  // SwiGlu, Store
};
// The most post-ops one call takes.
inline constexpr int kMaxPostOps = 8;

// Settings of one call, beside those of its context.
struct CallOptions {
  // Where this call's operands are: Auto defers to the context (Context::residency(), and
  // under its Auto, whether they are the previous call's); Cached or Memory plan this call
  // for that regime whatever the context says (a layer whose weights the caller knows are in
  // the L3, or a first touch of fresh buffers). Each regime has its own cached plans.
  Residency residency = Residency::Auto;
  // Fused epilogue: post_op_count operations (0..kMaxPostOps) at post_ops, applied in order
  // (PostOpKind). Every GEMM type's overload with CallOptions takes one (gemm, gemm_packed,
  // gemm_bf16, the int8 GEMMs (ending in an output), gemm_quantized, gemm_grouped); an invalid
  // list is InvalidArgument (count, kind, output type or place), ShapeMismatch (SwiGlu, odd
  // n), NullPointer (a missing vector, matrix or output), InvalidLeadingDimension or Aliasing.
  const PostOp* post_ops = nullptr;
  int post_op_count = 0;
};

const char* to_string(Status s) noexcept;
const char* to_string(Isa isa) noexcept;
// Parses a level's name: "auto", "generic", "avx2", "avx512", "avx512_vnni", "avx512_bf16"
// (case-insensitive; '-' for '_'); false if no level has it. A known level this CPU or build
// lacks parses (setting it is then UnsupportedIsa).
bool parse_isa(std::string_view text, Isa& out) noexcept;

// A dense matrix as stored in memory: rows x cols elements, ld elements between consecutive
// rows (RowMajor) or columns (ColMajor).
template <class T>
struct MatrixView {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  Layout layout = Layout::RowMajor;
};

template <class T>
constexpr MatrixView<T> row_major(T* data, int64_t rows, int64_t cols, int64_t ld = -1) noexcept {
  return {data, rows, cols, ld < 0 ? cols : ld, Layout::RowMajor};
}
template <class T>
constexpr MatrixView<T> col_major(T* data, int64_t rows, int64_t cols, int64_t ld = -1) noexcept {
  return {data, rows, cols, ld < 0 ? rows : ld, Layout::ColMajor};
}

}  // namespace adaptcore
