/* adaptcore C API: dynamic-shape GEMM with 64-bit sizes and status codes.
 *
 * Semantics follow reference BLAS: beta == 0 means C is not read, alpha == 0 means A and B are
 * not read, m == 0 or n == 0 returns at once, k == 0 scales C by beta. Padding beyond the
 * leading dimension is never written. Errors are returned, never printed or aborted on. */
#ifndef ADAPTCORE_ADAPTCORE_H
#define ADAPTCORE_ADAPTCORE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function returns its errors as statuses: none throws (C++ callers see noexcept), none
 * aborts, none prints except where a comment says so. */
#ifdef __cplusplus
#define AC_NOEXCEPT noexcept
#else
#define AC_NOEXCEPT
#endif

#if defined(_WIN32)
#define AC_API __declspec(dllexport)
#else
#define AC_API __attribute__((visibility("default")))
#endif

/* Values match CBLAS so that CBLAS enums can be passed through unchanged. */
typedef enum { AC_ROW_MAJOR = 101, AC_COL_MAJOR = 102 } ac_layout_t;
typedef enum { AC_NO_TRANS = 111, AC_TRANS = 112, AC_CONJ_TRANS = 113 } ac_transpose_t;

typedef enum {
  AC_STATUS_OK = 0,
  AC_STATUS_INVALID_LAYOUT = 1,
  AC_STATUS_INVALID_TRANSPOSE = 2,
  AC_STATUS_INVALID_DIMENSION = 3,         /* m, n or k negative */
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
  AC_STATUS_INVALID_PLAN_FILE = 14       /* plan file unreadable, corrupt or made elsewhere */
} ac_status_t;

typedef enum { AC_ISA_AUTO = 0, AC_ISA_GENERIC = 1, AC_ISA_AVX2 = 2, AC_ISA_AVX512 = 3 } ac_isa_t;

/* C = alpha * op(A) * op(B) + beta * C, op(A) is m x k, op(B) is k x n, C is m x n. */
AC_API ac_status_t ac_sgemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                            int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                            int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                            int64_t ldc) AC_NOEXCEPT;

/* bf16 x bf16 -> fp32: C = alpha * op(A) * op(B) + beta * C, A and B bf16 (16-bit patterns),
 * fp32 accumulation. The bf16bf16bf16 variant rounds the fp32 result once to bf16 (nearest
 * even). */
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

/* int8: C = (op(A) - a_zp) * (op(B) - b_zp) + beta * C in int32 (two's complement, modulo
 * 2^32; exact whenever the true result fits in int32). Zero points: count 0 (none, pointer may
 * be NULL), 1 (whole matrix), m (per row of op(A)) for a_zp, n (per column of op(B)) for b_zp;
 * another count is AC_STATUS_INVALID_ARGUMENT. beta == 0 never reads C. */
AC_API ac_status_t ac_gemm_u8s8s32(ac_layout_t layout, ac_transpose_t transa,
                                   ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                   const uint8_t* A, int64_t lda, const int32_t* a_zp,
                                   int64_t a_zp_count, const int8_t* B, int64_t ldb,
                                   const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                   int32_t* C, int64_t ldc) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_s8s8s32(ac_layout_t layout, ac_transpose_t transa,
                                   ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                   const int8_t* A, int64_t lda, const int32_t* a_zp,
                                   int64_t a_zp_count, const int8_t* B, int64_t ldb,
                                   const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                   int32_t* C, int64_t ldc) AC_NOEXCEPT;

/* Weight-quantized GEMM (W8A16 / W4A16, docs/QUANT.md). op(W) is k x n; weights are
 * quantized once into a handle owning their packed layout, then C = op(A) * dequant(W) +
 * beta * C runs many times with any m (A fp32 or bf16, split per group of K into one or two
 * int8 parts). group_size 0: one scale per output column; else a multiple of 32 up to 256
 * (int4 requires one). Scales of the s8 form: scales[g * n + j], int8 values in [-128, 127],
 * int4 values in [-8, 7] one per byte. Every function taking a handle returns
 * AC_STATUS_NULL_POINTER for a NULL one; ac_weights_destroy(NULL) does nothing. */
typedef struct ac_weights_s* ac_weights_t;
typedef enum { AC_WEIGHTS_INT8 = 1, AC_WEIGHTS_INT4 = 2 } ac_weight_format_t;
typedef enum { AC_WQ_ONE_PART = 1, AC_WQ_TWO_PARTS = 2 } ac_wq_parts_t;

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
                                  const float* A, int64_t lda, ac_weights_t W, float beta,
                                  float* C, int64_t ldc, ac_wq_parts_t parts) AC_NOEXCEPT;
AC_API ac_status_t ac_gemm_wq_bf16(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                   const uint16_t* A, int64_t lda, ac_weights_t W, float beta,
                                   float* C, int64_t ldc, ac_wq_parts_t parts) AC_NOEXCEPT;

/* A short English description of a status code; never NULL. */
AC_API const char* ac_status_string(ac_status_t status) AC_NOEXCEPT;

/* Threads used by the default context (>= 1); values above the core count are allowed. */
AC_API ac_status_t ac_set_num_threads(int threads) AC_NOEXCEPT;
AC_API int ac_get_num_threads(void) AC_NOEXCEPT;

/* Force an ISA path in the default context (AC_ISA_AUTO restores detection). */
AC_API ac_status_t ac_set_isa(ac_isa_t isa) AC_NOEXCEPT;
AC_API ac_isa_t ac_get_isa(void) AC_NOEXCEPT;

/* Loads a plan file (`adaptcore precompile`, ADAPTCORE_PLAN_FILE) into the default context's
 * plan cache. A file that is unreadable, corrupt, or made for another library version, CPU or
 * ISA loads nothing: AC_STATUS_INVALID_PLAN_FILE, with the reason on stderr. */
AC_API ac_status_t ac_load_plan_file(const char* path) AC_NOEXCEPT;

/* Library version as "MAJOR.MINOR.PATCH". */
AC_API const char* ac_version(void) AC_NOEXCEPT;

#ifdef __cplusplus
}
#endif
#endif /* ADAPTCORE_ADAPTCORE_H */
