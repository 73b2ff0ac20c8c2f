// The weight-quantized C API: an opaque handle around QuantizedWeights, thin wrappers over the
// C++ functions on the default context or on a handle's context.

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "capi/c_context.hpp"
#include "capi/c_packed_handle.hpp"

namespace {

using adaptcore::Context;
using adaptcore::capi::as_bf16;
using adaptcore::capi::make_handle;
using adaptcore::capi::on_context;
using adaptcore::capi::to_c;
using adaptcore::capi::to_cpp;

adaptcore::WeightQuantSpec spec_of(ac_weight_format_t format, int64_t group_size) {
  adaptcore::WeightQuantSpec spec;
  spec.format = to_cpp(format);
  spec.group_size = group_size;
  return spec;
}

ac_status_t quantize_f32(ac_layout_t layout, ac_transpose_t transw, int64_t k, int64_t n,
                         const float* W, int64_t ldw, ac_weight_format_t format, int64_t group_size,
                         ac_weights_t* out, Context& ctx) noexcept {
  return make_handle(out, [&](adaptcore::QuantizedWeights& w) {
    return adaptcore::quantize_weights(to_cpp(layout), to_cpp(transw), k, n, W, ldw,
                                       spec_of(format, group_size), w, ctx);
  });
}

ac_status_t quantize_s8(ac_layout_t layout, ac_transpose_t transw, int64_t k, int64_t n,
                        const int8_t* W, int64_t ldw, const float* scales,
                        ac_weight_format_t format, int64_t group_size, ac_weights_t* out,
                        Context& ctx) noexcept {
  return make_handle(out, [&](adaptcore::QuantizedWeights& w) {
    return adaptcore::quantize_weights_s8(to_cpp(layout), to_cpp(transw), k, n, W, ldw, scales,
                                          spec_of(format, group_size), w, ctx);
  });
}

// A: const float* or const adaptcore::bf16* (the C API's uint16_t bit patterns, viewed as the
// layout-compatible bf16).
template <class A>
ac_status_t wq_gemm(ac_layout_t layout, ac_transpose_t transa, int64_t m, const A* a, int64_t lda,
                    ac_weights_t W, float beta, float* C, int64_t ldc, ac_wq_parts_t parts,
                    Context& ctx) noexcept {
  if (W == nullptr) return AC_STATUS_NULL_POINTER;
  return to_c(adaptcore::gemm_quantized(to_cpp(layout), to_cpp(transa), m, a, lda, W->w, beta, C,
                                        ldc, to_cpp(parts), ctx));
}

template <class A>
ac_status_t wq_gemm_post(ac_layout_t layout, ac_transpose_t transa, int64_t m, const A* a,
                         int64_t lda, ac_weights_t W, float beta, float* C, int64_t ldc,
                         ac_wq_parts_t parts, const ac_post_op* ops, int op_count) noexcept {
  if (W == nullptr) return AC_STATUS_NULL_POINTER;
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
  return to_c(adaptcore::gemm_quantized(to_cpp(layout), to_cpp(transa), m, a, lda, W->w, beta, C,
                                        ldc, o, to_cpp(parts), adaptcore::default_context()));
}

}  // namespace

extern "C" {

ac_status_t ac_quantize_weights_f32(ac_layout_t layout, ac_transpose_t transw, int64_t k, int64_t n,
                                    const float* W, int64_t ldw, ac_weight_format_t format,
                                    int64_t group_size, ac_weights_t* out) noexcept {
  return quantize_f32(layout, transw, k, n, W, ldw, format, group_size, out,
                      adaptcore::default_context());
}

ac_status_t ac_quantize_weights_f32_ctx(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                        int64_t n, const float* W, int64_t ldw,
                                        ac_weight_format_t format, int64_t group_size,
                                        ac_weights_t* out, ac_context* ctx) noexcept {
  if (out != nullptr) *out = nullptr;
  return on_context(ctx, [&](Context& c) {
    return quantize_f32(layout, transw, k, n, W, ldw, format, group_size, out, c);
  });
}

ac_status_t ac_quantize_weights_s8(ac_layout_t layout, ac_transpose_t transw, int64_t k, int64_t n,
                                   const int8_t* W, int64_t ldw, const float* scales,
                                   ac_weight_format_t format, int64_t group_size,
                                   ac_weights_t* out) noexcept {
  return quantize_s8(layout, transw, k, n, W, ldw, scales, format, group_size, out,
                     adaptcore::default_context());
}

ac_status_t ac_quantize_weights_s8_ctx(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                       int64_t n, const int8_t* W, int64_t ldw, const float* scales,
                                       ac_weight_format_t format, int64_t group_size,
                                       ac_weights_t* out, ac_context* ctx) noexcept {
  if (out != nullptr) *out = nullptr;
  return on_context(ctx, [&](Context& c) {
    return quantize_s8(layout, transw, k, n, W, ldw, scales, format, group_size, out, c);
  });
}

void ac_weights_destroy(ac_weights_t weights) noexcept { delete weights; }

ac_status_t ac_gemm_wq_f32_post(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                const float* A, int64_t lda, ac_weights_t W, float beta, float* C,
                                int64_t ldc, ac_wq_parts_t parts, const ac_post_op* ops,
                                int op_count) noexcept {
  return wq_gemm_post(layout, transa, m, A, lda, W, beta, C, ldc, parts, ops, op_count);
}

ac_status_t ac_gemm_wq_bf16_post(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                 const uint16_t* A, int64_t lda, ac_weights_t W, float beta,
                                 float* C, int64_t ldc, ac_wq_parts_t parts, const ac_post_op* ops,
                                 int op_count) noexcept {
  return wq_gemm_post(layout, transa, m, as_bf16(A), lda, W, beta, C, ldc, parts, ops, op_count);
}

ac_status_t ac_gemm_wq_f32(ac_layout_t layout, ac_transpose_t transa, int64_t m, const float* A,
                           int64_t lda, ac_weights_t W, float beta, float* C, int64_t ldc,
                           ac_wq_parts_t parts) noexcept {
  return wq_gemm(layout, transa, m, A, lda, W, beta, C, ldc, parts, adaptcore::default_context());
}

ac_status_t ac_gemm_wq_f32_ctx(ac_layout_t layout, ac_transpose_t transa, int64_t m, const float* A,
                               int64_t lda, ac_weights_t W, float beta, float* C, int64_t ldc,
                               ac_wq_parts_t parts, ac_context* ctx) noexcept {
  return on_context(ctx, [&](Context& c) {
    return wq_gemm(layout, transa, m, A, lda, W, beta, C, ldc, parts, c);
  });
}

ac_status_t ac_gemm_wq_bf16(ac_layout_t layout, ac_transpose_t transa, int64_t m, const uint16_t* A,
                            int64_t lda, ac_weights_t W, float beta, float* C, int64_t ldc,
                            ac_wq_parts_t parts) noexcept {
  return wq_gemm(layout, transa, m, as_bf16(A), lda, W, beta, C, ldc, parts,
                 adaptcore::default_context());
}

ac_status_t ac_gemm_wq_bf16_ctx(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                                const uint16_t* A, int64_t lda, ac_weights_t W, float beta,
                                float* C, int64_t ldc, ac_wq_parts_t parts,
                                ac_context* ctx) noexcept {
  return on_context(ctx, [&](Context& c) {
    return wq_gemm(layout, transa, m, as_bf16(A), lda, W, beta, C, ldc, parts, c);
  });
}

}  // extern "C"
