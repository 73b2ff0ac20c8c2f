// The low-precision C API: thin wrappers over the C++ functions on the default context.
#include "adaptcore/adaptcore.h"

#include "adaptcore/adaptcore.hpp"

using adaptcore::Layout;
using adaptcore::Trans;
using adaptcore::ZeroPoints;

extern "C" {

ac_status_t ac_gemm_bf16bf16f32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* A,
                                int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C,
                                int64_t ldc) noexcept {
  return static_cast<ac_status_t>(adaptcore::gemm_bf16(
      static_cast<Layout>(layout), static_cast<Trans>(transa), static_cast<Trans>(transb), m, n,
      k, alpha, A, lda, B, ldb, beta, C, ldc, adaptcore::default_context()));
}

ac_status_t ac_gemm_bf16bf16bf16(ac_layout_t layout, ac_transpose_t transa,
                                 ac_transpose_t transb, int64_t m, int64_t n, int64_t k,
                                 float alpha, const uint16_t* A, int64_t lda, const uint16_t* B,
                                 int64_t ldb, float beta, uint16_t* C, int64_t ldc) noexcept {
  return static_cast<ac_status_t>(adaptcore::gemm_bf16(
      static_cast<Layout>(layout), static_cast<Trans>(transa), static_cast<Trans>(transb), m, n,
      k, alpha, A, lda, B, ldb, beta, C, ldc, adaptcore::default_context()));
}

ac_status_t ac_gemm_u8s8s32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                            int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda,
                            const int32_t* a_zp, int64_t a_zp_count, const int8_t* B, int64_t ldb,
                            const int32_t* b_zp, int64_t b_zp_count, int32_t beta, int32_t* C,
                            int64_t ldc) noexcept {
  return static_cast<ac_status_t>(adaptcore::gemm_u8s8s32(
      static_cast<Layout>(layout), static_cast<Trans>(transa), static_cast<Trans>(transb), m, n,
      k, A, lda, ZeroPoints{a_zp, a_zp_count}, B, ldb, ZeroPoints{b_zp, b_zp_count}, beta, C,
      ldc, adaptcore::default_context()));
}

ac_status_t ac_gemm_s8s8s32(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                            int64_t m, int64_t n, int64_t k, const int8_t* A, int64_t lda,
                            const int32_t* a_zp, int64_t a_zp_count, const int8_t* B, int64_t ldb,
                            const int32_t* b_zp, int64_t b_zp_count, int32_t beta, int32_t* C,
                            int64_t ldc) noexcept {
  return static_cast<ac_status_t>(adaptcore::gemm_s8s8s32(
      static_cast<Layout>(layout), static_cast<Trans>(transa), static_cast<Trans>(transb), m, n,
      k, A, lda, ZeroPoints{a_zp, a_zp_count}, B, ldb, ZeroPoints{b_zp, b_zp_count}, beta, C,
      ldc, adaptcore::default_context()));
}

}  // extern "C"
