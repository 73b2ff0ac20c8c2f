// The prepacked-weights C API: an opaque handle around PackedWeights, thin wrappers over the C++
// functions on the default context or on a handle's context.
#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "capi/c_context.hpp"
#include "capi/c_packed_handle.hpp"

#include <type_traits>

namespace {

using adaptcore::Context;
using adaptcore::capi::as_bf16;
using adaptcore::capi::make_handle;
using adaptcore::capi::on_context;
using adaptcore::capi::to_c;
using adaptcore::capi::to_cpp;

// B: const float* or the bf16 bit patterns as const adaptcore::bf16*.
template <class BType>
ac_status_t pack(ac_layout_t layout, ac_transpose_t transb, int64_t k, int64_t n, const BType* B,
                 int64_t ldb, const int64_t* m_values, const double* m_weights, int64_t m_count,
                 ac_packed_t* out, Context& ctx) noexcept {
  if (out == nullptr) return AC_STATUS_NULL_POINTER;
  *out = nullptr;
  if (m_count < 0) return AC_STATUS_INVALID_ARGUMENT;
  if (m_count > 0 && m_values == nullptr) return AC_STATUS_NULL_POINTER;
  return make_handle(out, [&](adaptcore::PackedWeights& w) {
    adaptcore::PackOptions options;
    if (m_count > 0) {
      options.m_values.assign(m_values, m_values + m_count);
      if (m_weights != nullptr) options.m_weights.assign(m_weights, m_weights + m_count);
    }
    return adaptcore::pack_weights(to_cpp(layout), to_cpp(transb), k, n, B, ldb, w, options, ctx);
  });
}

ac_status_t run(ac_layout_t layout, ac_transpose_t transa, int64_t m, float alpha, const float* A,
                int64_t lda, ac_packed_t B, float beta, float* C, int64_t ldc, Context& ctx,
                const ac_post_op* ops = nullptr, int op_count = 0) noexcept {
  if (B == nullptr) return AC_STATUS_NULL_POINTER;
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
  return to_c(adaptcore::gemm_packed(to_cpp(layout), to_cpp(transa), m, alpha, A, lda, B->w, beta,
                                     C, ldc, o, ctx));
}

// bf16 activations, C float* or the bf16 bit patterns as uint16_t*.
template <class CType>
ac_status_t run_bf16(ac_layout_t layout, ac_transpose_t transa, int64_t m, float alpha,
                     const uint16_t* A, int64_t lda, ac_packed_t B, float beta, CType* C,
                     int64_t ldc, const ac_post_op* ops, int op_count) noexcept {
  if (B == nullptr) return AC_STATUS_NULL_POINTER;
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
  if constexpr (std::is_same_v<CType, float>)
    return to_c(adaptcore::gemm_packed(to_cpp(layout), to_cpp(transa), m, alpha, as_bf16(A), lda,
                                       B->w, beta, C, ldc, o, adaptcore::default_context()));
  else
    return to_c(adaptcore::gemm_packed(to_cpp(layout), to_cpp(transa), m, alpha, as_bf16(A), lda,
                                       B->w, beta, as_bf16(C), ldc, o,
                                       adaptcore::default_context()));
}

// u8 or s8 activations on int8 weights.
template <class AType>
ac_status_t run_int8(ac_layout_t layout, ac_transpose_t transa, int64_t m, const AType* A,
                     int64_t lda, const int32_t* a_zp, int64_t a_zp_count, ac_packed_t B,
                     const int32_t* b_zp, int64_t b_zp_count, int32_t beta, int32_t* C, int64_t ldc,
                     ac_offset_t c_offset_kind, const int32_t* c_offset, const ac_post_op* ops,
                     int op_count) noexcept {
  if (B == nullptr) return AC_STATUS_NULL_POINTER;
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
  return to_c(adaptcore::gemm_packed(
      to_cpp(layout), to_cpp(transa), m, A, lda, adaptcore::ZeroPoints{a_zp, a_zp_count}, B->w,
      adaptcore::ZeroPoints{b_zp, b_zp_count}, beta, C, ldc,
      adaptcore::COffset{to_cpp(c_offset_kind), c_offset}, o, adaptcore::default_context()));
}

}  // namespace

extern "C" {

ac_status_t ac_pack_weights_s8(ac_layout_t layout, ac_transpose_t transb, int64_t k, int64_t n,
                               const int8_t* B, int64_t ldb, const int64_t* m_values,
                               const double* m_weights, int64_t m_count,
                               ac_packed_t* out) noexcept {
  return pack(layout, transb, k, n, B, ldb, m_values, m_weights, m_count, out,
              adaptcore::default_context());
}

ac_status_t ac_gemm_packed_u8s8s32(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                   const uint8_t* A, int64_t lda, const int32_t* a_zp,
                                   int64_t a_zp_count, ac_packed_t B, const int32_t* b_zp,
                                   int64_t b_zp_count, int32_t beta, int32_t* C, int64_t ldc,
                                   ac_offset_t c_offset_kind, const int32_t* c_offset,
                                   const ac_post_op* ops, int op_count) noexcept {
  return run_int8(layout, transa, m, A, lda, a_zp, a_zp_count, B, b_zp, b_zp_count, beta, C, ldc,
                  c_offset_kind, c_offset, ops, op_count);
}

ac_status_t ac_gemm_packed_s8s8s32(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                   const int8_t* A, int64_t lda, const int32_t* a_zp,
                                   int64_t a_zp_count, ac_packed_t B, const int32_t* b_zp,
                                   int64_t b_zp_count, int32_t beta, int32_t* C, int64_t ldc,
                                   ac_offset_t c_offset_kind, const int32_t* c_offset,
                                   const ac_post_op* ops, int op_count) noexcept {
  return run_int8(layout, transa, m, A, lda, a_zp, a_zp_count, B, b_zp, b_zp_count, beta, C, ldc,
                  c_offset_kind, c_offset, ops, op_count);
}

ac_status_t ac_pack_weights_bf16(ac_layout_t layout, ac_transpose_t transb, int64_t k, int64_t n,
                                 const uint16_t* B, int64_t ldb, const int64_t* m_values,
                                 const double* m_weights, int64_t m_count,
                                 ac_packed_t* out) noexcept {
  return pack(layout, transb, k, n, as_bf16(B), ldb, m_values, m_weights, m_count, out,
              adaptcore::default_context());
}

ac_status_t ac_gemm_packed_bf16bf16f32(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                       float alpha, const uint16_t* A, int64_t lda, ac_packed_t B,
                                       float beta, float* C, int64_t ldc, const ac_post_op* ops,
                                       int op_count) noexcept {
  return run_bf16(layout, transa, m, alpha, A, lda, B, beta, C, ldc, ops, op_count);
}

ac_status_t ac_gemm_packed_bf16bf16bf16(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                        float alpha, const uint16_t* A, int64_t lda, ac_packed_t B,
                                        float beta, uint16_t* C, int64_t ldc, const ac_post_op* ops,
                                        int op_count) noexcept {
  return run_bf16(layout, transa, m, alpha, A, lda, B, beta, C, ldc, ops, op_count);
}

ac_status_t ac_pack_weights(ac_layout_t layout, ac_transpose_t transb, int64_t k, int64_t n,
                            const float* B, int64_t ldb, const int64_t* m_values,
                            const double* m_weights, int64_t m_count, ac_packed_t* out) noexcept {
  return pack(layout, transb, k, n, B, ldb, m_values, m_weights, m_count, out,
              adaptcore::default_context());
}

ac_status_t ac_pack_weights_ctx(ac_layout_t layout, ac_transpose_t transb, int64_t k, int64_t n,
                                const float* B, int64_t ldb, const int64_t* m_values,
                                const double* m_weights, int64_t m_count, ac_packed_t* out,
                                ac_context* ctx) noexcept {
  if (out != nullptr) *out = nullptr;
  return on_context(ctx, [&](Context& c) {
    return pack(layout, transb, k, n, B, ldb, m_values, m_weights, m_count, out, c);
  });
}

void ac_packed_destroy(ac_packed_t packed) noexcept { delete packed; }

ac_status_t ac_gemm_packed_post(ac_layout_t layout, ac_transpose_t transa, int64_t m, float alpha,
                                const float* A, int64_t lda, ac_packed_t B, float beta, float* C,
                                int64_t ldc, const ac_post_op* ops, int op_count) noexcept {
  return run(layout, transa, m, alpha, A, lda, B, beta, C, ldc, adaptcore::default_context(), ops,
             op_count);
}

int ac_packed_panel_cols(ac_packed_t packed) noexcept {
  return packed == nullptr ? 0 : packed->w.panel_cols();
}

ac_status_t ac_gemm_packed(ac_layout_t layout, ac_transpose_t transa, int64_t m, float alpha,
                           const float* A, int64_t lda, ac_packed_t B, float beta, float* C,
                           int64_t ldc) noexcept {
  return run(layout, transa, m, alpha, A, lda, B, beta, C, ldc, adaptcore::default_context());
}

ac_status_t ac_gemm_packed_ctx(ac_layout_t layout, ac_transpose_t transa, int64_t m, float alpha,
                               const float* A, int64_t lda, ac_packed_t B, float beta, float* C,
                               int64_t ldc, ac_context* ctx) noexcept {
  return on_context(
      ctx, [&](Context& c) { return run(layout, transa, m, alpha, A, lda, B, beta, C, ldc, c); });
}

}  // extern "C"
