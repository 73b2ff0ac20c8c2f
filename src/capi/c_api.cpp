// The C API: a thin layer over the C++ one on the default context. Never throws.
#include "adaptcore/adaptcore.h"

#include "adaptcore/adaptcore.hpp"

using adaptcore::Layout;
using adaptcore::Status;
using adaptcore::Trans;

extern "C" {

ac_status_t ac_sgemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                     int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                     const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  try {
    return static_cast<ac_status_t>(adaptcore::gemm(
        static_cast<Layout>(layout), static_cast<Trans>(transa), static_cast<Trans>(transb), m, n,
        k, alpha, A, lda, B, ldb, beta, C, ldc, adaptcore::default_context()));
  } catch (...) {
    return AC_STATUS_INTERNAL_ERROR;
  }
}

const char* ac_status_string(ac_status_t status) {
  return adaptcore::to_string(static_cast<Status>(status));
}

ac_status_t ac_set_num_threads(int threads) {
  try {
    return static_cast<ac_status_t>(adaptcore::default_context().set_threads(threads));
  } catch (...) {
    return AC_STATUS_INTERNAL_ERROR;
  }
}

int ac_get_num_threads(void) { return adaptcore::default_context().threads(); }

ac_status_t ac_set_isa(ac_isa_t isa) {
  if (isa != AC_ISA_AUTO && isa != AC_ISA_GENERIC && isa != AC_ISA_AVX2 && isa != AC_ISA_AVX512)
    return AC_STATUS_INVALID_ARGUMENT;
  return static_cast<ac_status_t>(
      adaptcore::default_context().set_isa(static_cast<adaptcore::Isa>(isa)));
}

ac_isa_t ac_get_isa(void) { return static_cast<ac_isa_t>(adaptcore::default_context().isa()); }

ac_status_t ac_load_plan_file(const char* path) {
  if (path == nullptr) return AC_STATUS_INVALID_ARGUMENT;
  try {
    return static_cast<ac_status_t>(adaptcore::default_context().load_plan_file(path));
  } catch (...) {
    return AC_STATUS_INTERNAL_ERROR;
  }
}

const char* ac_version(void) { return adaptcore::version(); }

}  // extern "C"
