// The weight-quantized C API: an opaque handle around QuantizedWeights, thin wrappers over the
// C++ functions on the default context.
#include <new>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"

struct ac_weights_s {
  adaptcore::QuantizedWeights w;
};

namespace {

using adaptcore::Layout;
using adaptcore::Trans;

adaptcore::WeightQuantSpec spec_of(ac_weight_format_t format, int64_t group_size) {
  adaptcore::WeightQuantSpec spec;
  spec.format = static_cast<adaptcore::WeightFormat>(format);
  spec.group_size = group_size;
  return spec;
}

template <class F>
ac_status_t make_handle(ac_weights_t* out, F&& quantize) noexcept {
  if (out == nullptr) return AC_STATUS_NULL_POINTER;
  *out = nullptr;
  try {
    auto* h = new ac_weights_s;
    const auto s = quantize(h->w);
    if (s != adaptcore::Status::Ok) {
      delete h;
      return static_cast<ac_status_t>(s);
    }
    *out = h;
    return AC_STATUS_OK;
  } catch (const std::bad_alloc&) {
    return AC_STATUS_OUT_OF_MEMORY;
  } catch (...) {
    return AC_STATUS_INTERNAL_ERROR;
  }
}

}  // namespace

extern "C" {

ac_status_t ac_quantize_weights_f32(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                    int64_t n, const float* W, int64_t ldw,
                                    ac_weight_format_t format, int64_t group_size,
                                    ac_weights_t* out) noexcept {
  return make_handle(out, [&](adaptcore::QuantizedWeights& w) {
    return adaptcore::quantize_weights(adaptcore::default_context(), static_cast<Layout>(layout),
                                       static_cast<Trans>(transw), k, n, W, ldw,
                                       spec_of(format, group_size), w);
  });
}

ac_status_t ac_quantize_weights_s8(ac_layout_t layout, ac_transpose_t transw, int64_t k,
                                   int64_t n, const int8_t* W, int64_t ldw, const float* scales,
                                   ac_weight_format_t format, int64_t group_size,
                                   ac_weights_t* out) noexcept {
  return make_handle(out, [&](adaptcore::QuantizedWeights& w) {
    return adaptcore::quantize_weights_s8(adaptcore::default_context(),
                                          static_cast<Layout>(layout), static_cast<Trans>(transw),
                                          k, n, W, ldw, scales, spec_of(format, group_size), w);
  });
}

void ac_weights_destroy(ac_weights_t weights) noexcept { delete weights; }

ac_status_t ac_gemm_wq_f32(ac_layout_t layout, ac_transpose_t transa, int64_t m, const float* A,
                           int64_t lda, ac_weights_t W, float beta, float* C, int64_t ldc,
                           ac_wq_parts_t parts) noexcept {
  if (W == nullptr) return AC_STATUS_NULL_POINTER;
  return static_cast<ac_status_t>(adaptcore::gemm_quantized(
      adaptcore::default_context(), static_cast<Layout>(layout), static_cast<Trans>(transa), m,
      A, lda, W->w, beta, C, ldc, static_cast<adaptcore::ActivationParts>(parts)));
}

ac_status_t ac_gemm_wq_bf16(ac_layout_t layout, ac_transpose_t transa, int64_t m,
                            const uint16_t* A, int64_t lda, ac_weights_t W, float beta, float* C,
                            int64_t ldc, ac_wq_parts_t parts) noexcept {
  if (W == nullptr) return AC_STATUS_NULL_POINTER;
  return static_cast<ac_status_t>(adaptcore::gemm_quantized(
      adaptcore::default_context(), static_cast<Layout>(layout), static_cast<Trans>(transa), m,
      A, lda, W->w, beta, C, ldc, static_cast<adaptcore::ActivationParts>(parts)));
}

}  // extern "C"
