// adaptcore C++ API: GEMM for dynamic shapes.
//
//   C = alpha * op(A) * op(B) + beta * C
//
// Each call is classified (2D taxonomy), planned by an analytical model, cached by shape, and
// executed by ISA-specific micro-kernels on a persistent thread pool. Reference-BLAS semantics:
// beta == 0 never reads C, alpha == 0 never reads A or B, m == 0 or n == 0 returns at once,
// k == 0 scales C by beta, and padding beyond a leading dimension is never written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adaptcore/bf16.hpp"
#include "adaptcore/hardware.hpp"
#include "adaptcore/types.hpp"

namespace adaptcore {

namespace detail {
class ContextImpl;
struct InternalAccess;
}  // namespace detail

struct ContextOptions {
  int threads = 0;               // 0: ADAPTCORE_NUM_THREADS if set, else all cores
  Isa isa = Isa::Auto;           // Auto: ADAPTCORE_ISA if set, else the best level here
  std::string profile_path;      // JSON hardware profile; empty: ADAPTCORE_HW_PROFILE or detect
  bool read_environment = true;  // honour the ADAPTCORE_* variables above
  std::string plan_file;         // plan file to preload; empty: ADAPTCORE_PLAN_FILE if set
  // Where operands are expected (types.hpp); Auto: ADAPTCORE_RESIDENCY (auto, cached,
  // memory) if set, else decided per call.
  Residency residency = Residency::Auto;
};

// Everything a GEMM call needs besides its operands: thread count, hardware profile, ISA path,
// plan cache and thread pool. Thread-safe: many threads may call gemm on one context.
class Context {
 public:
  Context();
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Construction status: a bad profile file or unsupported forced ISA is reported here and the
  // context falls back to detection (so it is always usable).
  Status init_status() const noexcept;
  const std::string& init_message() const noexcept;

  Status set_threads(int threads) noexcept;
  int threads() const noexcept;

  // Runs at a level of the registry (types.hpp, Isa): its kernels and those of the levels below
  // it; UnsupportedIsa if this CPU or build lacks it. Auto restores the best level.
  Status set_isa(Isa isa) noexcept;
  Isa isa() const noexcept;  // the active level, never Auto

  // The residency the planner assumes from now on (ContextOptions::residency): a caller that
  // knows its next calls stream data (or reuse it) says so here; plans for both are cached.
  Status set_residency(Residency r) noexcept;
  Residency residency() const noexcept;

  const HardwareProfile& hardware() const noexcept;
  // Replaces the profile (and clears the plans made for the old one); the reference from
  // hardware() stays valid until then. A file's fields go over default_hardware() (the shipped
  // profile of this CPU's microarchitecture over detection); the path "detected"
  // (kDetectedProfile) takes detection alone.
  Status load_hardware_profile(const std::string& path, std::string* error = nullptr) noexcept;

  std::size_t cached_plans() const noexcept;
  void clear_plan_cache() noexcept;

  // Plan files (`adaptcore precompile`): load adds every plan of the file to the cache, or
  // nothing if the file is unreadable, corrupt, made for another library version, CPU (hardware
  // profile) or ISA path, or holds any invalid plan (InvalidPlanFile; the reason goes to
  // *error and to stderr). save writes the cached plans of the active ISA.
  Status load_plan_file(const std::string& path, std::string* error = nullptr) noexcept;
  Status save_plan_file(const std::string& path, std::string* error = nullptr) noexcept;

  // False only for the stand-in default_context() returns when memory for the real one cannot
  // be had: every call on it returns OutOfMemory.
  bool usable() const noexcept { return impl_ != nullptr; }

 private:
  friend struct detail::InternalAccess;
  struct Unusable {};
  explicit Context(Unusable) noexcept;
  friend Context& default_context() noexcept;
  std::unique_ptr<detail::ContextImpl> impl_;
};

// The process-wide context used by the C API and by calls without an explicit context. Made on
// first use, never destroyed (usable from atexit handlers and static destructors), never
// throws: if it cannot be made, a stand-in answers every call with OutOfMemory, and a later
// call tries again. Construction errors of its configuration are in init_status().
Context& default_context() noexcept;

// Every entry point below takes its context as the last argument, defaulting to this one.

Status gemm(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
            const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
            int64_t ldc, Context& ctx = default_context()) noexcept;

// The same with settings of this call only (CallOptions: where its operands are). An invalid
// CallOptions::residency is InvalidArgument.
Status gemm(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
            const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
            int64_t ldc, const CallOptions& options, Context& ctx = default_context()) noexcept;

// View form: each operand carries its own layout, so mixed layouts are allowed. A and B are
// given as stored; transa/transb apply op(). Shapes must compose: op(A) is C.rows x k,
// op(B) is k x C.cols.
Status gemm(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c,
            Context& ctx = default_context()) noexcept;
Status gemm(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c, const CallOptions& options,
            Context& ctx = default_context()) noexcept;

// ---- Low-precision GEMM (bf16 and int8). Same validation, statuses and layout rules as gemm.
// C = alpha * op(A) * op(B) + beta * C with A, B bf16 (adaptcore/bf16.hpp) and fp32
// accumulation. C is fp32, or bf16 (the fp32 result rounded once, to nearest even). On
// AVX512-BF16 CPUs the products run on vdpbf16ps, which treats bf16 subnormals as zero and
// flushes subnormal sums to zero. Buffers of bf16 bit patterns held as uint16_t (the C API's
// type) are passed with reinterpret_cast<const bf16*>; bf16 is layout-compatible with uint16_t.
Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                 float alpha, const bf16* a, int64_t lda, const bf16* b, int64_t ldb, float beta,
                 float* c, int64_t ldc, Context& ctx = default_context()) noexcept;
Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                 float alpha, const bf16* a, int64_t lda, const bf16* b, int64_t ldb, float beta,
                 bf16* c, int64_t ldc, Context& ctx = default_context()) noexcept;
// With CallOptions (residency, and the fused post-ops of docs/EPILOGUES.md, applied to each
// finished panel of C in fp32: a bf16 C is rounded once, after them). Checks as gemm_bf16, then
// the post-op list as gemm checks it.
Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                 float alpha, const bf16* a, int64_t lda, const bf16* b, int64_t ldb, float beta,
                 float* c, int64_t ldc, const CallOptions& options,
                 Context& ctx = default_context()) noexcept;
Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                 float alpha, const bf16* a, int64_t lda, const bf16* b, int64_t ldb, float beta,
                 bf16* c, int64_t ldc, const CallOptions& options,
                 Context& ctx = default_context()) noexcept;

// Zero points of an int8 operand: count 0 (none; values may be null), 1 (one for the whole
// matrix), or one per row of op(A) (count m) / per column of op(B) (count n).
struct ZeroPoints {
  const std::int32_t* values = nullptr;
  int64_t count = 0;
};

// An offset added to every element of an int32 result (oneDNN's and MKL's C offset): none, one
// value for all of C, one per row of C (m values, values[i] added to row i) or one per column
// of C (n values). Rows and columns are those of the m x n C of the call, in either layout.
// oneDNN offsetc 'F' / 'C' / 'R' and MKL CblasFixOffset / CblasColOffset / CblasRowOffset are
// Fixed / PerRow / PerColumn (docs/LOWP.md, "Mapping from oneDNN and MKL").
enum class OffsetKind : int { None = 0, Fixed = 1, PerRow = 2, PerColumn = 3 };
struct COffset {
  OffsetKind kind = OffsetKind::None;
  const std::int32_t* values = nullptr;  // 1, m or n values; may be null for None
};

// C = (op(A) - a_zp) * (op(B) - b_zp) + beta * C [+ c_offset] in 32-bit integers, A u8 (or
// s8), B s8. Zero points are applied by compensation (row sums of A, column sums of B), never
// by shifting the inputs. Arithmetic is two's complement modulo 2^32 like the vpdpbusd
// instruction: the result is exact whenever the true value fits in int32, which always holds
// for K <= 65793 without zero points (|a b| <= 255 * 128) and K <= 33025 with any u8/s8 zero
// points. beta == 0 never reads C. There is no alpha: a scale on an int32 result would need a
// rounding rule, and the caller's own requantization scale absorbs it with one rounding
// (docs/LOWP.md). The C offset is added in a pass over C after the product (exact, modulo
// 2^32); an invalid kind is InvalidArgument, null values with a kind other than None
// NullPointer.
Status gemm_u8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::uint8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc,
                    Context& ctx = default_context()) noexcept;
Status gemm_u8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::uint8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc,
                    COffset c_offset, Context& ctx = default_context()) noexcept;
// With CallOptions: residency, and post-ops (docs/EPILOGUES.md) over the int32 result (plus the
// C offset) converted to fp32, e.g. Scale (dequantization), Bias, an activation. The list must
// end in Store or SwiGlu (InvalidArgument otherwise): the fp32 or bf16 results go to that
// output, C keeps the int32 values.
Status gemm_u8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::uint8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc,
                    COffset c_offset, const CallOptions& options,
                    Context& ctx = default_context()) noexcept;
// s8 x s8: runs as (A + 128) x B with a zero point of A raised by 128 (the compensation trick).
Status gemm_s8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::int8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc,
                    Context& ctx = default_context()) noexcept;
Status gemm_s8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::int8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc,
                    COffset c_offset, Context& ctx = default_context()) noexcept;
Status gemm_s8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::int8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc,
                    COffset c_offset, const CallOptions& options,
                    Context& ctx = default_context()) noexcept;

// ---- Weight-quantized GEMM (W8A16 / W4A16, docs/QUANT.md).
//
// Weights are quantized once into a QuantizedWeights handle (int8, or int4 two per byte, with
// fp32 scales per output column or per group of K), packed for the dot-product kernels. Each
// call splits every fp32 (or bf16) activation row, per group of K, into int8 parts: a coarse
// part quantized against the group's maximum and, in two-part mode, a fine part quantizing the
// residual with a 256x smaller scale. The parts meet the weights on int8 dot-product units
// with exact int32 accumulation; the epilogue combines them with their scales. Two parts carry
// about 16 bits of activation precision; one part is W8A8 with dynamic activation quantization.

enum class WeightFormat : int { Int8 = 1, Int4 = 2 };
enum class ActivationParts : int { One = 1, Two = 2 };

struct WeightQuantSpec {
  WeightFormat format = WeightFormat::Int8;
  // 0: one scale per output column (the group is the whole of K); else one scale per column
  // and per group of this many consecutive k (a positive multiple of 32, at most 256; the last
  // group may be shorter). int4 requires a group size.
  int64_t group_size = 0;
};

namespace detail {
struct QuantizedWeightsImpl;
}

// Owns the packed weights and their scales. Move-only; a default-constructed or moved-from
// handle is empty (valid() false) and every call taking it returns NullPointer.
class QuantizedWeights {
 public:
  QuantizedWeights() noexcept;
  ~QuantizedWeights();
  QuantizedWeights(QuantizedWeights&& other) noexcept;
  QuantizedWeights& operator=(QuantizedWeights&& other) noexcept;
  QuantizedWeights(const QuantizedWeights&) = delete;
  QuantizedWeights& operator=(const QuantizedWeights&) = delete;

  bool valid() const noexcept { return impl_ != nullptr; }
  int64_t k() const noexcept;  // depth (rows of op(W)); 0 when empty
  int64_t n() const noexcept;  // output columns; 0 when empty
  WeightFormat format() const noexcept;
  int64_t group_size() const noexcept;        // 0: per column
  std::size_t packed_bytes() const noexcept;  // packed weight bytes a call streams

 private:
  friend struct detail::InternalAccess;
  // Takes ownership (the quantize functions make handles through detail::InternalAccess).
  explicit QuantizedWeights(std::unique_ptr<detail::QuantizedWeightsImpl> impl) noexcept;
  std::unique_ptr<detail::QuantizedWeightsImpl> impl_;
};

// op(W) is k x n (the layer's input depth x output columns); W is read with `layout` and
// `transw` like B of gemm. Symmetric quantization: scale = max|w| / 127 (int8) or / 7 (int4)
// per column or per (group, column); an all-zero column or group gets scale 0. Non-finite
// weights: InvalidArgument. On success `out` holds the new handle (its old one is released).
// The handle does not depend on the context (any context may run it); the context argument
// keeps the calling convention of every entry point.
Status quantize_weights(Layout layout, Trans transw, int64_t k, int64_t n, const float* w,
                        int64_t ldw, WeightQuantSpec spec, QuantizedWeights& out,
                        Context& ctx = default_context()) noexcept;
// From already-quantized integers (what checkpoints ship): op(W) k x n of int8 values in
// [-128, 127] (Int8) or [-8, 7] (Int4, one value per byte; others: InvalidArgument), and
// fp32 scales, scales[g * n + j] for group g of column j (ceil(k / group_size) groups, or one
// per column when group_size is 0). Scales must be finite.
Status quantize_weights_s8(Layout layout, Trans transw, int64_t k, int64_t n, const std::int8_t* w,
                           int64_t ldw, const float* scales, WeightQuantSpec spec,
                           QuantizedWeights& out, Context& ctx = default_context()) noexcept;

// C = op(A) * dequant(W) + beta * C, op(A) m x k fp32 (or bf16), C m x n fp32, both in
// `layout`. beta == 0 never reads C. m == 0 returns at once. A non-finite activation makes
// every output of its row NaN (the row's parts cannot represent it). Error bound:
// docs/QUANT.md.
Status gemm_quantized(Layout layout, Trans transa, int64_t m, const float* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      ActivationParts parts = ActivationParts::Two,
                      Context& ctx = default_context()) noexcept;
Status gemm_quantized(Layout layout, Trans transa, int64_t m, const bf16* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      ActivationParts parts = ActivationParts::Two,
                      Context& ctx = default_context()) noexcept;
// With CallOptions: residency, and the fused post-ops of docs/EPILOGUES.md applied to each
// finished row block of C (checked as gemm checks them).
Status gemm_quantized(Layout layout, Trans transa, int64_t m, const float* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      const CallOptions& options, ActivationParts parts = ActivationParts::Two,
                      Context& ctx = default_context()) noexcept;
Status gemm_quantized(Layout layout, Trans transa, int64_t m, const bf16* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      const CallOptions& options, ActivationParts parts = ActivationParts::Two,
                      Context& ctx = default_context()) noexcept;

// ---- Prepacked weights (fp32, docs/PACKED.md).
//
// An inference engine's weights are constant: pack them once into the register tiles' panel
// layout, then call gemm_packed with any number of rows. op(B) (k x n) is stored as full-depth
// panels of nr columns (the last panel only as wide as the columns left, so the handle holds
// exactly k * n floats plus 64-byte alignment); every plan for every M reads the panels in place,
// depth block by depth block, without packing B again. The panel width nr is the layout the
// planner picks for the rows the caller expects (PackOptions), by the model's predicted time
// summed over them.

struct PackOptions {
  // The row counts (M) the caller expects, and how often each comes (weights; empty: all
  // equal). Empty: M = 1, 8, 64 and 512 alike (decode and prefill). Values must be >= 1.
  std::vector<int64_t> m_values;
  std::vector<double> m_weights;
};

namespace detail {
struct PackedWeightsImpl;
}

// Owns fp32 weights packed for the context's ISA path. Move-only; a default-constructed or
// moved-from handle is empty (valid() false) and every call taking it returns NullPointer.
class PackedWeights {
 public:
  PackedWeights() noexcept;
  ~PackedWeights();
  PackedWeights(PackedWeights&& other) noexcept;
  PackedWeights& operator=(PackedWeights&& other) noexcept;
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;

  bool valid() const noexcept { return impl_ != nullptr; }
  int64_t k() const noexcept;       // depth (rows of op(B)); 0 when empty
  int64_t n() const noexcept;       // output columns; 0 when empty
  int panel_cols() const noexcept;  // nr, the columns of a panel; 0 when empty
  Isa isa() const noexcept;         // the level of the context that packed them
  // Bytes of the panels: fp32 k * n * 4; bf16 ceil(k / 2) * round_up(n, panel_cols()) * 4 (on
  // CPUs without AVX512-BF16, whose bf16 path runs the fp32 kernels: k * round_up(n, nr) * 4);
  // aligned to 64.
  std::size_t packed_bytes() const noexcept;
  bool holds_bf16() const noexcept;  // bf16 weights (pack_weights from bf16), for gemm_packed
                                     // with bf16 activations
  bool holds_int8() const noexcept;  // s8 weights (pack_weights from int8), for gemm_packed
                                     // with u8 or s8 activations

 private:
  friend struct detail::InternalAccess;
  explicit PackedWeights(std::unique_ptr<detail::PackedWeightsImpl> impl) noexcept;
  std::unique_ptr<detail::PackedWeightsImpl> impl_;
};

// Packs op(B), k x n (B read with `layout` and `transb` as gemm reads it), for the context's ISA
// path and thread count. On success `out` holds the new handle (its old one is released).
// Checks: layout, transpose, dimensions (k, n >= 1), options (InvalidArgument: an M below 1,
// weights of another count, a negative or non-finite weight), leading dimension, size
// overflow, null pointer.
Status pack_weights(Layout layout, Trans transb, int64_t k, int64_t n, const float* b, int64_t ldb,
                    PackedWeights& out, const PackOptions& options = {},
                    Context& ctx = default_context()) noexcept;
// bf16 weights, packed for the context's bf16 kernels (docs/PACKED.md, "bf16"): the panels of
// the dot-product tiles (pairs of depth values in 32-bit words, every panel nr words wide: the
// last padded with zeros to a whole panel). The same checks.
Status pack_weights(Layout layout, Trans transb, int64_t k, int64_t n, const bf16* b, int64_t ldb,
                    PackedWeights& out, const PackOptions& options = {},
                    Context& ctx = default_context()) noexcept;
// s8 weights, packed for the context's int8 kernels (four depth values a word), with their
// column sums over the whole depth (for a zero point of A). The same checks.
Status pack_weights(Layout layout, Trans transb, int64_t k, int64_t n, const std::int8_t* b,
                    int64_t ldb, PackedWeights& out, const PackOptions& options = {},
                    Context& ctx = default_context()) noexcept;

// C = alpha * op(A) * op(B) + beta * C with op(B) the packed weights: op(A) m x k, C m x n,
// both row-major (Layout::RowMajor; a column-major call is InvalidLayout). Any m >= 0 (0
// returns at once), any thread count. A context of another ISA path than the handle's runs it
// when its kernels have a tile nr wide, else InvalidArgument. Same statuses and BLAS rules as
// gemm (beta == 0 never reads C; alpha == 0 never reads A or the weights).
Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const float* a, int64_t lda,
                   const PackedWeights& b, float beta, float* c, int64_t ldc,
                   Context& ctx = default_context()) noexcept;
Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const float* a, int64_t lda,
                   const PackedWeights& b, float beta, float* c, int64_t ldc,
                   const CallOptions& options, Context& ctx = default_context()) noexcept;
// bf16 activations on bf16 weights (holds_bf16()), fp32 accumulation, an fp32 or bf16 C (rounded
// once), as gemm_bf16 computes them; the same statuses (a handle of the other type:
// InvalidArgument, as an fp32 call on a bf16 handle). A context whose bf16 kernels differ from
// the handle's (another ISA path, or native against converted) is InvalidArgument.
Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const bf16* a, int64_t lda,
                   const PackedWeights& b, float beta, float* c, int64_t ldc,
                   const CallOptions& options = {}, Context& ctx = default_context()) noexcept;
Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const bf16* a, int64_t lda,
                   const PackedWeights& b, float beta, bf16* c, int64_t ldc,
                   const CallOptions& options = {}, Context& ctx = default_context()) noexcept;
// u8 (or s8) activations on int8 weights (holds_int8()): C = (op(A) - a_zp) (B - b_zp) + beta C
// [+ c_offset] in int32, as gemm_u8s8s32 / gemm_s8s8s32 compute it, with their checks and
// post-op rules (a list must end in an output).
Status gemm_packed(Layout layout, Trans transa, int64_t m, const std::uint8_t* a, int64_t lda,
                   ZeroPoints a_zp, const PackedWeights& b, ZeroPoints b_zp, std::int32_t beta,
                   std::int32_t* c, int64_t ldc, COffset c_offset = {},
                   const CallOptions& options = {}, Context& ctx = default_context()) noexcept;
Status gemm_packed(Layout layout, Trans transa, int64_t m, const std::int8_t* a, int64_t lda,
                   ZeroPoints a_zp, const PackedWeights& b, ZeroPoints b_zp, std::int32_t beta,
                   std::int32_t* c, int64_t ldc, COffset c_offset = {},
                   const CallOptions& options = {}, Context& ctx = default_context()) noexcept;

// ---- Grouped GEMM for Mixture-of-Experts (prepacked fp32 or bf16 weights, or weight-quantized,
// docs/GROUPED.md).
//
// One call runs E experts of the same k and n, expert e on M_e routed rows (zero allowed).
// Routed rows are numbered in expert order (expert 0's M_0 rows first), R = sum M_e in all.
// Routed row r of expert e reads A's row gather[r] (or row r without a gather) and produces
// y_r = op-list(alpha * A_row * W_e) (post-ops: per-column vectors shared by the experts, a
// residual matrix indexed by routed row; a SwiGlu or Store output, R rows indexed by routed row,
// only without a scatter: InvalidArgument with one). Without a scatter, y_r goes to C's row r
// (C[r] = y_r + beta * C[r] before the post-ops, as gemm does). With a scatter, C's rows are
// tokens: C[t] = beta * C[t] + sum over r with scatter[r] = t of weight[r] * y_r, summed in
// routed-row order (the top-k combine; deterministic whatever the threads), and every one of
// C's c_rows rows gets its beta * C[t].
//
// The planner prices every (expert, column chunk) unit with the model, splits hot experts over
// column chunks and balances predicted time across the cores (explain_grouped shows it).
struct GroupedGemm {
  int64_t experts = 0;                            // E >= 0
  const int64_t* expert_rows = nullptr;           // M_e, E values >= 0
  const PackedWeights* const* weights = nullptr;  // E handles of equal k and n (null: M_e == 0)
  int64_t k = 0, n = 0;                           // the handles' depth and columns (checked)
  const float* a = nullptr;                       // row-major, a_rows x k
  int64_t lda = 0;
  int64_t a_rows = 0;               // rows of A: the gather's range, else >= R
  const int64_t* gather = nullptr;  // R rows of A, or null
  float* c = nullptr;               // row-major, c_rows x n
  int64_t ldc = 0;
  int64_t c_rows = 0;                      // rows of C: the scatter's range, else >= R
  const int64_t* scatter = nullptr;        // R rows of C, or null
  const float* scatter_weights = nullptr;  // R routing weights (scatter only; null: all 1)
  float alpha = 1.0f, beta = 0.0f;
  // Weight-quantized experts (W8A16, W4A16; docs/QUANT.md): handles of quantize_weights instead
  // of `weights` (exactly one of the two is given), the activations split into `parts` int8
  // parts as gemm_quantized does; alpha must be 1 (gemm_quantized has none).
  const QuantizedWeights* const* quantized_weights = nullptr;
  ActivationParts parts = ActivationParts::Two;
  // bf16 experts (`weights` holding bf16, PackedWeights::holds_bf16): the activations are bf16,
  // given here instead of `a` (same lda, a_rows and gather); C stays fp32 (a Store post-op gives
  // a bf16 copy). Every handle of a call is of one type (InvalidArgument otherwise, and for bf16
  // handles with `a`, or fp32 ones with `a_bf16`).
  const bf16* a_bf16 = nullptr;
};

// The schedule of a grouped call: its units (an expert's rows over a chunk of its columns, on
// one core, in the order that core runs them), each core's predicted time, and after a
// gemm_grouped asked for it, each core's measured time of the product phase.
struct GroupedSchedule {
  struct Unit {
    int64_t expert = 0, rows = 0, col0 = 0, cols = 0;
    int core = 0;
    double predicted_us = 0.0;
    std::string plan;  // the unit's plan, as explain prints it
  };
  std::vector<Unit> units;
  std::vector<double> core_predicted_us;
  std::vector<double> core_measured_us;  // gemm_grouped with a schedule to fill; else empty
  int threads = 1;
};

// Checks (in this order): experts and counts (InvalidDimension: negative, or R overflowing),
// null pointers (NullPointer: counts, A, C, the handle of an expert with rows or an empty one),
// handles (both kinds given, quantized with alpha other than 1 or unknown parts:
// InvalidArgument; k or n other than the call's: ShapeMismatch; a panel width the context's
// kernels cannot read: InvalidArgument), leading
// dimensions, row ranges (a_rows / c_rows below R without gather / scatter: ShapeMismatch;
// an index outside its range: InvalidArgument), size overflow, C overlapping A or a handle
// (Aliasing), then the post-op list as gemm checks it (residual: R rows).
Status gemm_grouped(const GroupedGemm& call, const CallOptions& options = {},
                    Context& ctx = default_context(), GroupedSchedule* schedule = nullptr) noexcept;
// The schedule gemm_grouped would run for this call, without running it (same checks).
Status explain_grouped(const GroupedGemm& call, GroupedSchedule& out,
                       Context& ctx = default_context()) noexcept;

// ---- What the planner decides for a shape, without running it (`adaptcore explain` in code).

// The element types a plain GEMM call has (gemm, gemm_bf16, gemm_u8s8s32 / gemm_s8s8s32).
enum class GemmType : int { F32 = 0, Bf16 = 1, Int8 = 2 };

struct PlanCandidate {
  std::string plan;  // one line, e.g. "avx512 14x32 packA packB mc=336 nc=2048 kc=256 ..."
  // The model's prediction and its terms (docs/MODEL.md), microseconds.
  double predicted_us = 0.0, compute_us = 0.0, memory_us = 0.0, pack_us = 0.0, sync_us = 0.0;
  std::string bound;  // the dominant term: "compute", "memory", "pack" or "sync"
};

struct PlanExplanation {
  std::string shape_class;  // "capacity x parallelism", e.g. "L2 x many-tiles"
  std::string capacity, parallelism;
  std::string kernels;  // the kernel table, e.g. "avx512-fp32", "avx512-bf16"
  Isa isa = Isa::Auto;
  int threads = 1;
  bool cold = false;  // planned for operands in memory (else in the caches as far as they fit)
  // In the planner's order; a plan a plan file brought (Context::load_plan_file) that the model
  // would not pick comes last, its bound "cached" and only predicted_us set.
  std::vector<PlanCandidate> candidates;
  std::size_t chosen = 0;  // index of the plan a call of this shape runs (the cache's)
};

// The planner's reasoning for C = op(A) op(B) of this shape and type on `ctx`: its taxonomy
// class, every candidate with the model's predicted cost, and the chosen plan (the one a call of
// the same shape runs; it is cached). Leading dimensions as the call would pass them (0: the
// tightest). The call's residency decides the regime: Memory or Auto plan for operands in
// memory (a first call), Cached for operands in the caches. m, n or k of 0 is not planned (the
// call only scales C): Ok with no candidates. Checks as gemm (InvalidArgument for an unknown
// type or residency).
Status explain(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
               int64_t lda, int64_t ldb, int64_t ldc, GemmType type, PlanExplanation& out,
               const CallOptions& options = {}, Context& ctx = default_context()) noexcept;

const char* version() noexcept;

}  // namespace adaptcore
