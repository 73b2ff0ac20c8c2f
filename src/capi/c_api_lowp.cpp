// The low-precision C API: thin wrappers over the C++ functions, on the default context or on
// a handle's context.
#include "adaptcore/adaptcore.h"

#include "adaptcore/adaptcore.hpp"
#include "capi/c_context.hpp"

using adaptcore::COffset;
using adaptcore::Context;
using adaptcore::Layout;
using adaptcore::OffsetKind;
using adaptcore::Trans;
using adaptcore::ZeroPoints;
using adaptcore::capi::as_bf16;
using adaptcore::capi::on_context;
using adaptcore::capi::to_c;

namespace {

// The C enum values equal OffsetKind's; an undeclared one stays undeclared and the C++ call
// rejects it.
COffset c_offset_of(ac_offset_t kind, const int32_t* values) noexcept {
  return COffset{static_cast<OffsetKind>(kind), values};
}

// C: float* or bf16*.
template <class C>
ac_status_t bf16_gemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                      int64_t n, int64_t k, float alpha, const uint16_t* A, int64_t lda,
                      const uint16_t* B, int64_t ldb, float beta, C* c, int64_t ldc,
                      Context& ctx) noexcept {
  return to_c(adaptcore::gemm_bf16(static_cast<Layout>(layout), static_cast<Trans>(transa),
                                   static_cast<Trans>(transb), m, n, k, alpha, as_bf16(A), lda,
                                   as_bf16(B), ldb, beta, c, ldc, ctx));
}

// gemm_u8s8s32 or gemm_s8s8s32 (the overload with a C offset), by the type of A.
template <class AType>
using Int8Gemm = adaptcore::Status (*)(Layout, Trans, Trans, int64_t, int64_t, int64_t,
                                       const AType*, int64_t, ZeroPoints, const int8_t*, int64_t,
                                       ZeroPoints, int32_t, int32_t*, int64_t, COffset,
                                       Context&) noexcept;

template <class AType>
ac_status_t int8_gemm(Int8Gemm<AType> gemm, ac_layout_t layout, ac_transpose_t transa,
                      ac_transpose_t transb, int64_t m, int64_t n, int64_t k, const AType* A,
                      int64_t lda, const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                      int64_t ldb, const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                      int32_t* C, int64_t ldc, ac_offset_t c_offset_kind, const int32_t* c_offset,
                      Context& ctx) noexcept {
  return to_c(gemm(static_cast<Layout>(layout), static_cast<Trans>(transa),
                   static_cast<Trans>(transb), m, n, k, A, lda, ZeroPoints{a_zp, a_zp_count}, B,
                   ldb, ZeroPoints{b_zp, b_zp_count}, beta, C, ldc,
                   c_offset_of(c_offset_kind, c_offset), ctx));
}

}  // namespace

extern "C" {

ac_status_t ac_gemm_bf16bf16f32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* A,
                                int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C,
                                int64_t ldc) noexcept {
  return bf16_gemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                   adaptcore::default_context());
}

ac_status_t ac_gemm_bf16bf16f32_ctx(ac_layout_t layout, ac_transpose_t transa,
                                    ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                    float alpha, const uint16_t* A, int64_t lda, const uint16_t* B,
                                    int64_t ldb, float beta, float* C, int64_t ldc,
                                    ac_context* ctx) noexcept {
  return on_context(ctx, [&](Context& c) {
    return bf16_gemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, c);
  });
}

ac_status_t ac_gemm_bf16bf16bf16(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* A,
                                 int64_t lda, const uint16_t* B, int64_t ldb, float beta,
                                 uint16_t* C, int64_t ldc) noexcept {
  return bf16_gemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, as_bf16(C), ldc,
                   adaptcore::default_context());
}

ac_status_t ac_gemm_bf16bf16bf16_ctx(ac_layout_t layout, ac_transpose_t transa,
                                     ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                     float alpha, const uint16_t* A, int64_t lda, const uint16_t* B,
                                     int64_t ldb, float beta, uint16_t* C, int64_t ldc,
                                     ac_context* ctx) noexcept {
  return on_context(ctx, [&](Context& c) {
    return bf16_gemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, as_bf16(C), ldc,
                     c);
  });
}

ac_status_t ac_gemm_u8s8s32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                            int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda,
                            const int32_t* a_zp, int64_t a_zp_count, const int8_t* B, int64_t ldb,
                            const int32_t* b_zp, int64_t b_zp_count, int32_t beta, int32_t* C,
                            int64_t ldc, ac_offset_t c_offset_kind,
                            const int32_t* c_offset) noexcept {
  return int8_gemm<uint8_t>(adaptcore::gemm_u8s8s32, layout, transa, transb, m, n, k, A, lda, a_zp,
                            a_zp_count, B, ldb, b_zp, b_zp_count, beta, C, ldc, c_offset_kind,
                            c_offset, adaptcore::default_context());
}

ac_status_t ac_gemm_u8s8s32_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda,
                                const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                                int64_t ldb, const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                const int32_t* c_offset, ac_context* ctx) noexcept {
  return on_context(ctx, [&](Context& c) {
    return int8_gemm<uint8_t>(adaptcore::gemm_u8s8s32, layout, transa, transb, m, n, k, A, lda,
                              a_zp, a_zp_count, B, ldb, b_zp, b_zp_count, beta, C, ldc,
                              c_offset_kind, c_offset, c);
  });
}

ac_status_t ac_gemm_s8s8s32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                            int64_t m, int64_t n, int64_t k, const int8_t* A, int64_t lda,
                            const int32_t* a_zp, int64_t a_zp_count, const int8_t* B, int64_t ldb,
                            const int32_t* b_zp, int64_t b_zp_count, int32_t beta, int32_t* C,
                            int64_t ldc, ac_offset_t c_offset_kind,
                            const int32_t* c_offset) noexcept {
  return int8_gemm<int8_t>(adaptcore::gemm_s8s8s32, layout, transa, transb, m, n, k, A, lda, a_zp,
                           a_zp_count, B, ldb, b_zp, b_zp_count, beta, C, ldc, c_offset_kind,
                           c_offset, adaptcore::default_context());
}

ac_status_t ac_gemm_s8s8s32_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                int64_t m, int64_t n, int64_t k, const int8_t* A, int64_t lda,
                                const int32_t* a_zp, int64_t a_zp_count, const int8_t* B,
                                int64_t ldb, const int32_t* b_zp, int64_t b_zp_count, int32_t beta,
                                int32_t* C, int64_t ldc, ac_offset_t c_offset_kind,
                                const int32_t* c_offset, ac_context* ctx) noexcept {
  return on_context(ctx, [&](Context& c) {
    return int8_gemm<int8_t>(adaptcore::gemm_s8s8s32, layout, transa, transb, m, n, k, A, lda, a_zp,
                             a_zp_count, B, ldb, b_zp, b_zp_count, beta, C, ldc, c_offset_kind,
                             c_offset, c);
  });
}

}  // extern "C"
