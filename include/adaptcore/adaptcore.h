/* adaptcore C API: dynamic-shape GEMM with 64-bit sizes and status codes.
 *
 * Semantics follow reference BLAS: beta == 0 means C is not read, alpha == 0 means A and B are
 * not read, m == 0 or n == 0 returns at once, k == 0 scales C by beta. Padding beyond the
 * leading dimension is never written. Errors are returned, never printed or aborted on. */
#ifndef ADAPTCORE_ADAPTCORE_H
#define ADAPTCORE_ADAPTCORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function returns its errors as statuses: none throws (C++ callers see noexcept), none
 * aborts, none prints except where a comment says so.
 *
 * Each GEMM entry point exists twice: on the process-wide default context (configured by
 * ac_set_num_threads, ac_set_isa, ac_load_plan_file and the ADAPTCORE_* environment variables),
 * and as a `_ctx` variant taking an ac_context handle as its last argument, the position of
 * the C++ API's context argument. A NULL handle is AC_STATUS_NULL_POINTER. */
#ifdef __cplusplus
#define AC_NOEXCEPT noexcept
#else
#define AC_NOEXCEPT
#endif

/* C enums carry any int (a caller may pass 9 for an ac_isa_t: the functions check and answer
 * AC_STATUS_INVALID_ARGUMENT). In C++ an enum without a fixed type holds only the values its
 * enumerators' bits span, so the library (C++) gives them int: every int is then a value it may
 * read and reject. Same size and calling convention as the C declarations. */
#ifdef __cplusplus
#define AC_ENUM_INT : int
#else
#define AC_ENUM_INT
#endif

#if defined(_WIN32)
#define AC_API __declspec(dllexport)
#else
#define AC_API __attribute__((visibility("default")))
#endif

/* Values match CBLAS so that CBLAS enums can be passed through unchanged. */
typedef enum AC_ENUM_INT { AC_ROW_MAJOR = 101, AC_COL_MAJOR = 102 } ac_layout_t;
typedef enum AC_ENUM_INT { AC_NO_TRANS = 111, AC_TRANS = 112, AC_CONJ_TRANS = 113 } ac_transpose_t;

typedef enum AC_ENUM_INT {
  AC_STATUS_OK = 0,
  AC_STATUS_INVALID_LAYOUT = 1,
  AC_STATUS_INVALID_TRANSPOSE = 2,
  AC_STATUS_INVALID_DIMENSION = 3,         /* m, n or k negative (or 0 where 1 is needed) */
  AC_STATUS_INVALID_LEADING_DIMENSION = 4, /* lda, ldb or ldc too small */
  AC_STATUS_NULL_POINTER = 5,              /* an operand that must be read or written is NULL */
  AC_STATUS_SIZE_OVERFLOW = 6,             /* an operand's extent does not fit in memory */
  AC_STATUS_ALIASING = 7,                  /* C overlaps A or B */
  AC_STATUS_SHAPE_MISMATCH = 8,            /* C++ views whose shapes do not compose */
  AC_STATUS_INVALID_ARGUMENT = 9,          /* e.g. a thread count < 1 */
  AC_STATUS_UNSUPPORTED_ISA = 10,          /* forced ISA path not available on this CPU */
  AC_STATUS_INVALID_PROFILE = 11,          /* hardware profile file unreadable or malformed */
  AC_STATUS_OUT_OF_MEMORY = 12,
  AC_STATUS_INTERNAL_ERROR = 13,
  AC_STATUS_INVALID_PLAN_FILE = 14 /* plan file unreadable, corrupt or made elsewhere */
} ac_status_t;

/* The architecture levels (adaptcore::Isa): each contains the one before it. */
typedef enum AC_ENUM_INT {
  AC_ISA_AUTO = 0,
  AC_ISA_GENERIC = 1,
  AC_ISA_AVX2 = 2,
  AC_ISA_AVX512 = 3,
  AC_ISA_AVX512_VNNI = 4,
  AC_ISA_AVX512_BF16 = 5,
  AC_ISA_AMX = 6
} ac_isa_t;

/* Where the planner assumes a call's operands are (adaptcore::Residency): AUTO, a call that
 * repeats the previous call's A, B and C on its thread is cached, any other in memory; CACHED
 * and MEMORY fix it. Each has its own plans, so under AUTO a repeated call may differ from the
 * first in the last bits; CACHED or MEMORY give every call of a shape the same bits. */
typedef enum AC_ENUM_INT {
  AC_RESIDENCY_AUTO = 0,
  AC_RESIDENCY_CACHED = 1,
  AC_RESIDENCY_MEMORY = 2
} ac_residency_t;

/* C = alpha * op(A) * op(B) + beta * C, op(A) is m x k, op(B) is k x n, C is m x n. */
AC_API ac_status_t ac_sgemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                            int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                            int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                            int64_t ldc) AC_NOEXCEPT;

/* ac_sgemm with this call's own residency (adaptcore::CallOptions): AUTO defers to the
 * context's setting (ac_set_residency); CACHED or MEMORY plan this call for operands in the
 * caches or in memory whatever the context says. An unknown value: AC_STATUS_INVALID_ARGUMENT. */
AC_API ac_status_t ac_sgemm_residency(ac_layout_t layout, ac_transpose_t transa,
                                      ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                      float alpha, const float* A, int64_t lda, const float* B,
                                      int64_t ldb, float beta, float* C, int64_t ldc,
                                      ac_residency_t residency) AC_NOEXCEPT;

/* bf16 x bf16 -> fp32: C = alpha * op(A) * op(B) + beta * C, A and B bf16, fp32 accumulation.
 * The bf16bf16bf16 variant rounds the fp32 result once to bf16 (nearest even). C has no bf16
 * type: bf16 values are passed as uint16_t bit patterns (the top half of an fp32), so nothing
 * but the declaration tells them from fp16 or integer data; C++ callers get a distinct type,
 * adaptcore::bf16 (adaptcore/bf16.hpp). */
AC_API ac_status_t ac_gemm_bf16bf16f32(ac_layout_t layout, ac_transpose_t transa,
                                       ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const uint16_t* A, int64_t lda,
                                       const uint16_t* B, int64_t ldb, float beta, float* C,
                                       int64_t ldc) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_bf16bf16bf16(ac_layout_t layout, ac_transpose_t transa,
                                        ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                        float alpha, const uint16_t* A, int64_t lda,
                                        const uint16_t* B, int64_t ldb, float beta, uint16_t* C,
                                        int64_t ldc) AC_NOEXCEPT;

/* int8: C = (op(A) - a_zp) * (op(B) - b_zp) + beta * C + c_offset in int32 (two's complement,
 * modulo 2^32; exact whenever the true result fits in int32). Zero points: count 0 (none,
 * pointer may be NULL), 1 (whole matrix), m (per row of op(A)) for a_zp, n (per column of
 * op(B)) for b_zp; another count is AC_STATUS_INVALID_ARGUMENT. beta == 0 never reads C. The C
 * offset: AC_OFFSET_NONE (c_offset may be NULL), AC_OFFSET_FIXED (one value),
 * AC_OFFSET_PER_ROW (m values, c_offset[i] added to row i of C) or AC_OFFSET_PER_COLUMN (n
 * values); oneDNN's offsetc 'F' / 'C' / 'R' are FIXED / PER_ROW / PER_COLUMN. There is no
 * alpha (docs/LOWP.md says why and how oneDNN's and MKL's arguments map onto these). */
typedef enum AC_ENUM_INT {
  AC_OFFSET_NONE = 0,
  AC_OFFSET_FIXED = 1,
  AC_OFFSET_PER_ROW = 2,
  AC_OFFSET_PER_COLUMN = 3
} ac_offset_t;

AC_API ac_status_t ac_gemm_u8s8s32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                   int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda,
                                   const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                                   int64_t ldb, const int32_t* b_zp, int64_t b_zp_count,
                                   int32_t beta, int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                   const int32_t* c_offset) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_s8s8s32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                   int64_t m, int64_t n, int64_t k, const int8_t* A, int64_t lda,
                                   const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                                   int64_t ldb, const int32_t* b_zp, int64_t b_zp_count,
                                   int32_t beta, int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                   const int32_t* c_offset) AC_NOEXCEPT;

/* Weight-quantized GEMM (W8A16 / W4A16, docs/QUANT.md). op(W) is k x n; weights are
 * quantized once into a handle owning their packed layout, then C = op(A) * dequant(W) +
 * beta * C runs many times with any m (A fp32 or bf16, split per group of K into one or two
 * int8 parts). group_size 0: one scale per output column; else a multiple of 32 up to 256
 * (int4 requires one). Scales of the s8 form: scales[g * n + j], int8 values in [-128, 127],
 * int4 values in [-8, 7] one per byte. Every function taking a handle returns
 * AC_STATUS_NULL_POINTER for a NULL one; ac_weights_destroy(NULL) does nothing. */
typedef struct ac_weights_s* ac_weights_t;
typedef enum AC_ENUM_INT { AC_WEIGHTS_INT8 = 1, AC_WEIGHTS_INT4 = 2 } ac_weight_format_t;
typedef enum AC_ENUM_INT { AC_WQ_ONE_PART = 1, AC_WQ_TWO_PARTS = 2 } ac_wq_parts_t;

AC_API ac_status_t ac_quantize_weights_f32(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                           int64_t n, const float* W, int64_t ldw,
                                           ac_weight_format_t format, int64_t group_size,
                                           ac_weights_t* out) AC_NOEXCEPT;
AC_API ac_status_t ac_quantize_weights_s8(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                          int64_t n, const int8_t* W, int64_t ldw,
                                          const float* scales, ac_weight_format_t format,
                                          int64_t group_size, ac_weights_t* out) AC_NOEXCEPT;
AC_API void ac_weights_destroy(ac_weights_t weights) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_wq_f32(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                  const float* A, int64_t lda, ac_weights_t W, float beta, float* C,
                                  int64_t ldc, ac_wq_parts_t parts) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_wq_bf16(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                   const uint16_t* A, int64_t lda, ac_weights_t W, float beta,
                                   float* C, int64_t ldc, ac_wq_parts_t parts) AC_NOEXCEPT;

/* Fused epilogues (docs/EPILOGUES.md; adaptcore::PostOp): C = op_n(...op_1(alpha op(A) op(B)
 * + beta C)), the operations in the order given (at most AC_MAX_POST_OPS). BIAS and SCALE take n
 * values (one per column of C, in either layout), RESIDUAL a matrix R like C with its own
 * leading dimension ld; none may overlap C. SWIGLU and STORE come last only and write an output
 * of their own, out (fp32 or bf16 per out_type, in C's layout, leading dimension ld): SWIGLU
 * out(i, p) = silu(x(i, 2p)) * x(i, 2p + 1), m x n/2 (gate and up columns alternate, n even);
 * STORE out = x, m x n (e.g. a bf16 output of an fp32 GEMM). C keeps the values before them. */
typedef enum AC_ENUM_INT {
  AC_POST_BIAS = 1,
  AC_POST_SCALE = 2,
  AC_POST_RESIDUAL = 3,
  AC_POST_RELU = 4,
  AC_POST_GELU_TANH = 5,
  AC_POST_GELU_ERF = 6,
  AC_POST_SILU = 7,
  AC_POST_SWIGLU = 8,
  AC_POST_STORE = 9
} ac_post_op_kind_t;
typedef enum AC_ENUM_INT { AC_OUT_F32 = 0, AC_OUT_BF16 = 1 } ac_output_type_t;
#define AC_MAX_POST_OPS 8
typedef struct ac_post_op {
  ac_post_op_kind_t kind;
  const float* data;         /* BIAS, SCALE: n values; RESIDUAL: R; else NULL */
  int64_t ld;                /* RESIDUAL: R's leading dimension; SWIGLU, STORE: out's; else 0 */
  void* out;                 /* SWIGLU, STORE: the output (float or uint16_t bf16); else NULL */
  ac_output_type_t out_type; /* SWIGLU, STORE */
} ac_post_op;

AC_API ac_status_t ac_sgemm_post(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                                 int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                                 int64_t ldc, const ac_post_op* ops, int op_count) AC_NOEXCEPT;
/* ac_gemm_bf16bf16f32 / bf16bf16bf16 with a fused epilogue (ac_post_op) in fp32 before C is
 * stored (a bf16 C rounded once, after it). */
AC_API ac_status_t ac_gemm_bf16bf16f32_post(ac_layout_t layout, ac_transpose_t transa,
                                            ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                            float alpha, const uint16_t* A, int64_t lda,
                                            const uint16_t* B, int64_t ldb, float beta, float* C,
                                            int64_t ldc, const ac_post_op* ops,
                                            int op_count) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_bf16bf16bf16_post(ac_layout_t layout, ac_transpose_t transa,
                                             ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                             float alpha, const uint16_t* A, int64_t lda,
                                             const uint16_t* B, int64_t ldb, float beta,
                                             uint16_t* C, int64_t ldc, const ac_post_op* ops,
                                             int op_count) AC_NOEXCEPT;
/* int8 GEMMs with post-ops over the int32 result (C offset included) in fp32; the list must end
 * in AC_POST_STORE or AC_POST_SWIGLU (C keeps the int32 values). */
AC_API ac_status_t ac_gemm_u8s8s32_post(ac_layout_t layout, ac_transpose_t transa,
                                        ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                        const uint8_t* A, int64_t lda, const int32_t* a_zp,
                                        int64_t a_zp_count, const int8_t* B, int64_t ldb,
                                        const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                        int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                        const int32_t* c_offset, const ac_post_op* ops,
                                        int op_count) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_s8s8s32_post(ac_layout_t layout, ac_transpose_t transa,
                                        ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                        const int8_t* A, int64_t lda, const int32_t* a_zp,
                                        int64_t a_zp_count, const int8_t* B, int64_t ldb,
                                        const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                        int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                        const int32_t* c_offset, const ac_post_op* ops,
                                        int op_count) AC_NOEXCEPT;
/* Weight-quantized GEMM with a fused epilogue (ac_post_op). */
AC_API ac_status_t ac_gemm_wq_f32_post(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                       const float* A, int64_t lda, ac_weights_t W, float beta,
                                       float* C, int64_t ldc, ac_wq_parts_t parts,
                                       const ac_post_op* ops, int op_count) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_wq_bf16_post(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                        const uint16_t* A, int64_t lda, ac_weights_t W, float beta,
                                        float* C, int64_t ldc, ac_wq_parts_t parts,
                                        const ac_post_op* ops, int op_count) AC_NOEXCEPT;

/* Prepacked fp32 weights (docs/PACKED.md). op(B), k x n, is packed once into the register
 * tiles' panel layout for the context's ISA path, the panel width chosen by the model for the
 * rows the caller expects (m_values, m_count of them, each with weight m_weights[i], or equal
 * weights when m_weights is NULL; m_count 0: decode and prefill alike). Then
 * C = alpha * op(A) * op(B) + beta * C runs with any m, A and C row-major (AC_ROW_MAJOR only).
 * The handle holds exactly k * n floats; every function taking one returns
 * AC_STATUS_NULL_POINTER for NULL; ac_packed_destroy(NULL) does nothing. */
typedef struct ac_packed_s* ac_packed_t;

AC_API ac_status_t ac_pack_weights(ac_layout_t layout, ac_transpose_t transb, int64_t k, int64_t n,
                                   const float* B, int64_t ldb, const int64_t* m_values,
                                   const double* m_weights, int64_t m_count,
                                   ac_packed_t* out) AC_NOEXCEPT;
AC_API void ac_packed_destroy(ac_packed_t packed) AC_NOEXCEPT;
/* The panel width (columns) of a handle, 0 for NULL. */
AC_API int ac_packed_panel_cols(ac_packed_t packed) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_packed(ac_layout_t layout, ac_transpose_t transa, int64_t m, float alpha,
                                  const float* A, int64_t lda, ac_packed_t B, float beta, float* C,
                                  int64_t ldc) AC_NOEXCEPT;
/* bf16 weights (adaptcore::pack_weights from bf16; docs/PACKED.md, "bf16"): packed once for the
 * bf16 kernels, then C = alpha * op(A) * op(B) + beta * C with bf16 A and an fp32 or bf16 C
 * (rounded once), post-ops as ac_sgemm_post (ops may be NULL with op_count 0). An fp32 call on a
 * bf16 handle, or a bf16 call on an fp32 one, is AC_STATUS_INVALID_ARGUMENT. */
AC_API ac_status_t ac_pack_weights_bf16(ac_layout_t layout, ac_transpose_t transb, int64_t k,
                                        int64_t n, const uint16_t* B, int64_t ldb,
                                        const int64_t* m_values, const double* m_weights,
                                        int64_t m_count, ac_packed_t* out) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_packed_bf16bf16f32(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                              float alpha, const uint16_t* A, int64_t lda,
                                              ac_packed_t B, float beta, float* C, int64_t ldc,
                                              const ac_post_op* ops, int op_count) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_packed_bf16bf16bf16(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                               float alpha, const uint16_t* A, int64_t lda,
                                               ac_packed_t B, float beta, uint16_t* C, int64_t ldc,
                                               const ac_post_op* ops, int op_count) AC_NOEXCEPT;
/* int8 weights (s8): packed once for the int8 kernels with their column sums, then
 * C = (op(A) - a_zp)(B - b_zp) + beta C [+ c_offset] in int32 with u8 (or s8) A, zero points and
 * C offsets as ac_gemm_u8s8s32, post-ops as ac_gemm_u8s8s32_post (ops may be NULL). */
AC_API ac_status_t ac_pack_weights_s8(ac_layout_t layout, ac_transpose_t transb, int64_t k,
                                      int64_t n, const int8_t* B, int64_t ldb,
                                      const int64_t* m_values, const double* m_weights,
                                      int64_t m_count, ac_packed_t* out) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_packed_u8s8s32(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                          const uint8_t* A, int64_t lda, const int32_t* a_zp,
                                          int64_t a_zp_count, ac_packed_t B, const int32_t* b_zp,
                                          int64_t b_zp_count, int32_t beta, int32_t* C, int64_t ldc,
                                          ac_offset_t c_offset_kind, const int32_t* c_offset,
                                          const ac_post_op* ops, int op_count) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_packed_s8s8s32(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                          const int8_t* A, int64_t lda, const int32_t* a_zp,
                                          int64_t a_zp_count, ac_packed_t B, const int32_t* b_zp,
                                          int64_t b_zp_count, int32_t beta, int32_t* C, int64_t ldc,
                                          ac_offset_t c_offset_kind, const int32_t* c_offset,
                                          const ac_post_op* ops, int op_count) AC_NOEXCEPT;
/* ac_gemm_packed with a fused epilogue (ac_post_op). */
AC_API ac_status_t ac_gemm_packed_post(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                       float alpha, const float* A, int64_t lda, ac_packed_t B,
                                       float beta, float* C, int64_t ldc, const ac_post_op* ops,
                                       int op_count) AC_NOEXCEPT;

/* Grouped GEMM for Mixture-of-Experts over prepacked fp32 or bf16 weights, or weight-quantized
 * ones (docs/GROUPED.md; the C++ adaptcore::GroupedGemm says every field's meaning and the
 * checks). E experts of equal k and n,
 * expert e on expert_rows[e] routed rows (routed rows in expert order, R in all); routed row r
 * reads A's row gather[r] (row r when gather is NULL) and its result goes to C's row r, or with
 * a scatter is added into C's row scatter[r] times scatter_weights[r] (C = beta C + the sums,
 * over all c_rows rows). weights[e] may be NULL for an expert without rows. */
typedef struct ac_grouped_gemm {
  int64_t experts;
  const int64_t* expert_rows;
  const ac_packed_t* weights;
  int64_t k, n;
  const float* A;
  int64_t lda, a_rows;
  const int64_t* gather;
  float* C;
  int64_t ldc, c_rows;
  const int64_t* scatter;
  const float* scatter_weights;
  float alpha, beta;
  /* Weight-quantized experts instead of `weights` (exactly one of the two non-NULL), the
   * activations split into `parts` parts; alpha must be 1. */
  const ac_weights_t* quantized_weights;
  ac_wq_parts_t parts;
  /* bf16 experts (handles of ac_pack_weights_bf16): the bf16 activations instead of A (A NULL);
   * C stays fp32. Zero-initialise the struct so that fp32 calls leave it NULL. */
  const uint16_t* A_bf16;
} ac_grouped_gemm;

/* Runs a grouped call with an optional fused epilogue over each routed row's result (ops may be
 * NULL when op_count is 0); AC_STATUS_NULL_POINTER for a NULL call. */
AC_API ac_status_t ac_gemm_grouped(const ac_grouped_gemm* call, const ac_post_op* ops,
                                   int op_count) AC_NOEXCEPT;

/* A short English description of a status code; never NULL. */
AC_API const char* ac_status_string(ac_status_t status) AC_NOEXCEPT;

/* Threads used by the default context (>= 1); values above the core count are allowed. */
AC_API ac_status_t ac_set_num_threads(int threads) AC_NOEXCEPT;
AC_API int ac_get_num_threads(void) AC_NOEXCEPT;

/* Run the default context at a level (ac_isa_t; AC_ISA_AUTO restores the best one). */
AC_API ac_status_t ac_set_isa(ac_isa_t isa) AC_NOEXCEPT;
AC_API ac_isa_t ac_get_isa(void) AC_NOEXCEPT;

/* The residency the default context plans for (an unknown value: AC_STATUS_INVALID_ARGUMENT). */
AC_API ac_status_t ac_set_residency(ac_residency_t residency) AC_NOEXCEPT;

/* Loads a plan file (`adaptcore precompile`, ADAPTCORE_PLAN_FILE) into the default context's
 * plan cache. A file that is unreadable, corrupt, or made for another library version, CPU or
 * ISA loads nothing: AC_STATUS_INVALID_PLAN_FILE, with the reason on stderr. */
AC_API ac_status_t ac_load_plan_file(const char* path) AC_NOEXCEPT;

/* Library version as "MAJOR.MINOR.PATCH". */
AC_API const char* ac_version(void) AC_NOEXCEPT;

/* ---- Contexts: what adaptcore::Context is to the C++ API. A context owns its thread count,
 * hardware profile, ISA path, plan cache and worker threads; many threads may call GEMMs on
 * one context at once. Every function taking a context returns AC_STATUS_NULL_POINTER for a
 * NULL one; ac_context_destroy(NULL) does nothing. */
typedef struct ac_context ac_context;

/* adaptcore::ContextOptions. ac_context_options_init fills in the defaults (those of a NULL
 * options pointer); a zeroed struct differs only in read_environment = 0. */
typedef struct {
  int threads;              /* 0: ADAPTCORE_NUM_THREADS if read and set, else all cores */
  ac_isa_t isa;             /* AC_ISA_AUTO: ADAPTCORE_ISA if read and set, else the best */
  const char* profile_path; /* JSON hardware profile; NULL or "": ADAPTCORE_HW_PROFILE or
                               detection */
  const char* plan_file;    /* plan file to preload; NULL or "": ADAPTCORE_PLAN_FILE if read */
  int read_environment;     /* nonzero: honour the ADAPTCORE_* variables above */
} ac_context_options;

AC_API void ac_context_options_init(ac_context_options* options) AC_NOEXCEPT;

/* Makes a context (*out, NULL on failure). A negative thread count or an unknown ISA value is
 * AC_STATUS_INVALID_ARGUMENT; out of memory AC_STATUS_OUT_OF_MEMORY. Configuration that cannot
 * be honoured (an unreadable profile or plan file, an ISA the CPU lacks, a bad environment
 * variable) still makes a usable context that falls back to detection, and is reported by
 * ac_context_init_status, as in C++. */
AC_API ac_status_t ac_context_create(const ac_context_options* options,
                                     ac_context** out) AC_NOEXCEPT;
/* Frees the context; no call may be running on it. */
AC_API void ac_context_destroy(ac_context* ctx) AC_NOEXCEPT;

/* The construction status (AC_STATUS_OK when every option was honoured) and, when message is
 * not NULL, a description of what was not ("" if nothing), valid until the context is
 * destroyed. */
AC_API ac_status_t ac_context_init_status(const ac_context* ctx, const char** message) AC_NOEXCEPT;

AC_API ac_status_t ac_context_set_num_threads(ac_context* ctx, int threads) AC_NOEXCEPT;
AC_API ac_status_t ac_context_get_num_threads(const ac_context* ctx, int* threads) AC_NOEXCEPT;
/* AC_ISA_AUTO restores the best level; get reports the active level, never AC_ISA_AUTO. */
AC_API ac_status_t ac_context_set_isa(ac_context* ctx, ac_isa_t isa) AC_NOEXCEPT;
AC_API ac_status_t ac_context_get_isa(const ac_context* ctx, ac_isa_t* isa) AC_NOEXCEPT;
AC_API ac_status_t ac_context_set_residency(ac_context* ctx, ac_residency_t residency) AC_NOEXCEPT;
AC_API ac_status_t ac_context_get_residency(const ac_context* ctx,
                                            ac_residency_t* residency) AC_NOEXCEPT;

/* File operations. A NULL path is AC_STATUS_INVALID_ARGUMENT (as for ac_load_plan_file). On
 * failure the reason is copied into error (at most error_size - 1 characters and a NUL) when
 * error is not NULL and error_size > 0; on success error holds "". Replacing the hardware
 * profile clears the plan cache; its fields go over the shipped profile of the CPU's
 * microarchitecture, and the path "detected" takes detection alone. Loading a plan file adds all of
 * its plans or none (the reason also goes to stderr); saving writes the cached plans of the active
 * ISA path. */
AC_API ac_status_t ac_context_load_hardware_profile(ac_context* ctx, const char* path, char* error,
                                                    size_t error_size) AC_NOEXCEPT;
AC_API ac_status_t ac_context_load_plan_file(ac_context* ctx, const char* path, char* error,
                                             size_t error_size) AC_NOEXCEPT;
AC_API ac_status_t ac_context_save_plan_file(ac_context* ctx, const char* path, char* error,
                                             size_t error_size) AC_NOEXCEPT;
AC_API ac_status_t ac_context_cached_plans(const ac_context* ctx, size_t* count) AC_NOEXCEPT;
AC_API ac_status_t ac_context_clear_plan_cache(ac_context* ctx) AC_NOEXCEPT;

/* The GEMM entry points on a given context: the arguments of the function without `_ctx`,
 * then the context. */
AC_API ac_status_t ac_sgemm_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                                int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                                int64_t ldc, ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_sgemm_residency_ctx(ac_layout_t layout, ac_transpose_t transa,
                                          ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                          float alpha, const float* A, int64_t lda, const float* B,
                                          int64_t ldb, float beta, float* C, int64_t ldc,
                                          ac_residency_t residency, ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_bf16bf16f32_ctx(ac_layout_t layout, ac_transpose_t transa,
                                           ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                           float alpha, const uint16_t* A, int64_t lda,
                                           const uint16_t* B, int64_t ldb, float beta, float* C,
                                           int64_t ldc, ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_bf16bf16bf16_ctx(ac_layout_t layout, ac_transpose_t transa,
                                            ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                            float alpha, const uint16_t* A, int64_t lda,
                                            const uint16_t* B, int64_t ldb, float beta, uint16_t* C,
                                            int64_t ldc, ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_u8s8s32_ctx(ac_layout_t layout, ac_transpose_t transa,
                                       ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                       const uint8_t* A, int64_t lda, const int32_t* a_zp,
                                       int64_t a_zp_count, const int8_t* B, int64_t ldb,
                                       const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                       int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                       const int32_t* c_offset, ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_s8s8s32_ctx(ac_layout_t layout, ac_transpose_t transa,
                                       ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                       const int8_t* A, int64_t lda, const int32_t* a_zp,
                                       int64_t a_zp_count, const int8_t* B, int64_t ldb,
                                       const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                       int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                       const int32_t* c_offset, ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_quantize_weights_f32_ctx(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                               int64_t n, const float* W, int64_t ldw,
                                               ac_weight_format_t format, int64_t group_size,
                                               ac_weights_t* out, ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_quantize_weights_s8_ctx(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                              int64_t n, const int8_t* W, int64_t ldw,
                                              const float* scales, ac_weight_format_t format,
                                              int64_t group_size, ac_weights_t* out,
                                              ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_wq_f32_ctx(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                      const float* A, int64_t lda, ac_weights_t W, float beta,
                                      float* C, int64_t ldc, ac_wq_parts_t parts,
                                      ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_wq_bf16_ctx(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                       const uint16_t* A, int64_t lda, ac_weights_t W, float beta,
                                       float* C, int64_t ldc, ac_wq_parts_t parts,
                                       ac_context* ctx) AC_NOEXCEPT;

AC_API ac_status_t ac_sgemm_post_ctx(ac_layout_t layout, ac_transpose_t transa,
                                     ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                     float alpha, const float* A, int64_t lda, const float* B,
                                     int64_t ldb, float beta, float* C, int64_t ldc,
                                     const ac_post_op* ops, int op_count,
                                     ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_pack_weights_ctx(ac_layout_t layout, ac_transpose_t transb, int64_t k,
                                       int64_t n, const float* B, int64_t ldb,
                                       const int64_t* m_values, const double* m_weights,
                                       int64_t m_count, ac_packed_t* out,
                                       ac_context* ctx) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_packed_ctx(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                      float alpha, const float* A, int64_t lda, ac_packed_t B,
                                      float beta, float* C, int64_t ldc,
                                      ac_context* ctx) AC_NOEXCEPT;

AC_API ac_status_t ac_gemm_grouped_ctx(const ac_grouped_gemm* call, const ac_post_op* ops,
                                       int op_count, ac_context* ctx) AC_NOEXCEPT;

#ifdef __cplusplus
}
#endif
#endif /* ADAPTCORE_ADAPTCORE_H */
