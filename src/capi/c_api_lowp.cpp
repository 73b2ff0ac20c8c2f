// The low-precision C API: thin wrappers over the C++ functions, on the default context or on
// a handle's context.
#include "adaptcore/adaptcore.h"

#include "adaptcore/adaptcore.hpp"
#include "capi/c_context.hpp"

#include <type_traits>

using adaptcore::COffset;
using adaptcore::Context;
using adaptcore::ZeroPoints;
using adaptcore::capi::as_bf16;
using adaptcore::capi::on_context;
using adaptcore::capi::to_c;
using adaptcore::capi::to_cpp;

namespace {

// C as the C++ API takes it: fp32, or bf16 from the C API's uint16_t bit patterns.
float* c_matrix(float* c) noexcept { return c; }
adaptcore::bf16* c_matrix(std::uint16_t* c) noexcept { return as_bf16(c); }

// C: float* or uint16_t* (bf16).
template <class C>
ac_status_t bf16_gemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                      int64_t n, int64_t k, float alpha, const uint16_t* A, int64_t lda,
                      const uint16_t* B, int64_t ldb, float beta, C* c, int64_t ldc,
                      Context& ctx) noexcept {
  return to_c(adaptcore::gemm_bf16(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, alpha,
                                   as_bf16(A), lda, as_bf16(B), ldb, beta, c_matrix(c), ldc, ctx));
}

// gemm_u8s8s32 or gemm_s8s8s32 (the overload with a C offset), by the type of A.
template <class AType>
using Int8Gemm = adaptcore::Status (*)(adaptcore::Layout, adaptcore::Trans, adaptcore::Trans,
                                       int64_t, int64_t, int64_t, const AType*, int64_t, ZeroPoints,
                                       const int8_t*, int64_t, ZeroPoints, int32_t, int32_t*,
                                       int64_t, COffset, Context&) noexcept;

template <class AType>
ac_status_t int8_gemm(Int8Gemm<AType> gemm, ac_layout_t layout, ac_transpose_t transa,
                      ac_transpose_t transb, int64_t m, int64_t n, int64_t k, const AType* A,
                      int64_t lda, const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                      int64_t ldb, const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                      int32_t* C, int64_t ldc, ac_offset_t c_offset_kind, const int32_t* c_offset,
                      Context& ctx) noexcept {
  return to_c(gemm(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, A, lda,
                   ZeroPoints{a_zp, a_zp_count}, B, ldb, ZeroPoints{b_zp, b_zp_count}, beta, C, ldc,
                   COffset{to_cpp(c_offset_kind), c_offset}, ctx));
}

// The int8 GEMMs with post-ops (the C++ overload of A's type), on the default context.
template <class AType>
ac_status_t int8_post(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                      int64_t n, int64_t k, const AType* A, int64_t lda, const int32_t* a_zp,
                      int64_t a_zp_count, const int8_t* B, int64_t ldb, const int32_t* b_zp,
                      int64_t b_zp_count, int32_t beta, int32_t* C, int64_t ldc,
                      ac_offset_t c_offset_kind, const int32_t* c_offset, const ac_post_op* ops,
                      int op_count) noexcept {
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
  const ZeroPoints za{a_zp, a_zp_count}, zb{b_zp, b_zp_count};
  const COffset co{to_cpp(c_offset_kind), c_offset};
  if constexpr (std::is_same_v<AType, uint8_t>)
    return to_c(adaptcore::gemm_u8s8s32(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, A,
                                        lda, za, B, ldb, zb, beta, C, ldc, co, o,
                                        adaptcore::default_context()));
  else
    return to_c(adaptcore::gemm_s8s8s32(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, A,
                                        lda, za, B, ldb, zb, beta, C, ldc, co, o,
                                        adaptcore::default_context()));
}

}  // namespace

// The entry points of one family differ only in a type: the bf16 ones in C's (fp32 or bf16),
// the int8 ones in A's (u8 or s8, with the C++ function of that type). Each macro defines one
// member of its family on the default context and, as name_ctx, on a handle's context.
#define AC_DEFINE_BF16_GEMM(name, CType)                                                         \
  ac_status_t name(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,  \
                   int64_t n, int64_t k, float alpha, const uint16_t* A, int64_t lda,            \
                   const uint16_t* B, int64_t ldb, float beta, CType* C, int64_t ldc) noexcept { \
    return bf16_gemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,       \
                     adaptcore::default_context());                                              \
  }                                                                                              \
  ac_status_t name##_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,       \
                         int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* A,        \
                         int64_t lda, const uint16_t* B, int64_t ldb, float beta, CType* C,      \
                         int64_t ldc, ac_context* ctx) noexcept {                                \
    return on_context(ctx, [&](Context& c) {                                                     \
      return bf16_gemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, c); \
    });                                                                                          \
  }

#define AC_DEFINE_INT8_GEMM(name, AType, cpp_gemm)                                                 \
  ac_status_t name(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,    \
                   int64_t n, int64_t k, const AType* A, int64_t lda, const int32_t* a_zp,         \
                   int64_t a_zp_count, const int8_t* B, int64_t ldb, const int32_t* b_zp,          \
                   int64_t b_zp_count, int32_t beta, int32_t* C, int64_t ldc,                      \
                   ac_offset_t c_offset_kind, const int32_t* c_offset) noexcept {                  \
    return int8_gemm<AType>(cpp_gemm, layout, transa, transb, m, n, k, A, lda, a_zp, a_zp_count,   \
                            B, ldb, b_zp, b_zp_count, beta, C, ldc, c_offset_kind, c_offset,       \
                            adaptcore::default_context());                                         \
  }                                                                                                \
  ac_status_t name##_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,         \
                         int64_t m, int64_t n, int64_t k, const AType* A, int64_t lda,             \
                         const int32_t* a_zp, int64_t a_zp_count, const int8_t* B, int64_t ldb,    \
                         const int32_t* b_zp, int64_t b_zp_count, int32_t beta, int32_t* C,        \
                         int64_t ldc, ac_offset_t c_offset_kind, const int32_t* c_offset,          \
                         ac_context* ctx) noexcept {                                               \
    return on_context(ctx, [&](Context& c) {                                                       \
      return int8_gemm<AType>(cpp_gemm, layout, transa, transb, m, n, k, A, lda, a_zp, a_zp_count, \
                              B, ldb, b_zp, b_zp_count, beta, C, ldc, c_offset_kind, c_offset, c); \
    });                                                                                            \
  }

extern "C" {

AC_DEFINE_BF16_GEMM(ac_gemm_bf16bf16f32, float)

ac_status_t ac_gemm_bf16bf16f32_post(ac_layout_t layout, ac_transpose_t transa,
                                     ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                     float alpha, const uint16_t* A, int64_t lda, const uint16_t* B,
                                     int64_t ldb, float beta, float* C, int64_t ldc,
                                     const ac_post_op* ops, int op_count) noexcept {
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
  return to_c(adaptcore::gemm_bf16(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, alpha,
                                   as_bf16(A), lda, as_bf16(B), ldb, beta, C, ldc, o,
                                   adaptcore::default_context()));
}
ac_status_t ac_gemm_bf16bf16bf16_post(ac_layout_t layout, ac_transpose_t transa,
                                      ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                      float alpha, const uint16_t* A, int64_t lda,
                                      const uint16_t* B, int64_t ldb, float beta, uint16_t* C,
                                      int64_t ldc, const ac_post_op* ops, int op_count) noexcept {
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
  return to_c(adaptcore::gemm_bf16(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, alpha,
                                   as_bf16(A), lda, as_bf16(B), ldb, beta, as_bf16(C), ldc, o,
                                   adaptcore::default_context()));
}
ac_status_t ac_gemm_u8s8s32_post(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda,
                                 const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                                 int64_t ldb, const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                 int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                 const int32_t* c_offset, const ac_post_op* ops,
                                 int op_count) noexcept {
  return int8_post(layout, transa, transb, m, n, k, A, lda, a_zp, a_zp_count, B, ldb, b_zp,
                   b_zp_count, beta, C, ldc, c_offset_kind, c_offset, ops, op_count);
}
ac_status_t ac_gemm_s8s8s32_post(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, const int8_t* A, int64_t lda,
                                 const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                                 int64_t ldb, const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                 int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                 const int32_t* c_offset, const ac_post_op* ops,
                                 int op_count) noexcept {
  return int8_post(layout, transa, transb, m, n, k, A, lda, a_zp, a_zp_count, B, ldb, b_zp,
                   b_zp_count, beta, C, ldc, c_offset_kind, c_offset, ops, op_count);
}
AC_DEFINE_BF16_GEMM(ac_gemm_bf16bf16bf16, uint16_t)
AC_DEFINE_INT8_GEMM(ac_gemm_u8s8s32, uint8_t, adaptcore::gemm_u8s8s32)
AC_DEFINE_INT8_GEMM(ac_gemm_s8s8s32, int8_t, adaptcore::gemm_s8s8s32)

}  // extern "C"

#undef AC_DEFINE_BF16_GEMM
#undef AC_DEFINE_INT8_GEMM
