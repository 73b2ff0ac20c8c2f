// The C API: a thin layer over the C++ one on the default context. Never throws: the C++
// calls it makes are noexcept and return statuses (default_context() included).
#include "adaptcore/adaptcore.h"

#include "adaptcore/adaptcore.hpp"

#include <new>
#include <string>

using adaptcore::Layout;
using adaptcore::Status;
using adaptcore::Trans;

extern "C" {

ac_status_t ac_sgemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                     int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                     const float* B, int64_t ldb, float beta, float* C, int64_t ldc) noexcept {
  return static_cast<ac_status_t>(adaptcore::gemm(
      static_cast<Layout>(layout), static_cast<Trans>(transa), static_cast<Trans>(transb), m, n, k,
      alpha, A, lda, B, ldb, beta, C, ldc, adaptcore::default_context()));
}

const char* ac_status_string(ac_status_t status) noexcept {
  return adaptcore::to_string(static_cast<Status>(status));
}

ac_status_t ac_set_num_threads(int threads) noexcept {
  return static_cast<ac_status_t>(adaptcore::default_context().set_threads(threads));
}

int ac_get_num_threads(void) noexcept { return adaptcore::default_context().threads(); }

ac_status_t ac_set_isa(ac_isa_t isa) noexcept {
  if (isa != AC_ISA_AUTO && isa != AC_ISA_GENERIC && isa != AC_ISA_AVX2 && isa != AC_ISA_AVX512)
    return AC_STATUS_INVALID_ARGUMENT;
  return static_cast<ac_status_t>(
      adaptcore::default_context().set_isa(static_cast<adaptcore::Isa>(isa)));
}

ac_isa_t ac_get_isa(void) noexcept { return static_cast<ac_isa_t>(adaptcore::default_context().isa()); }

ac_status_t ac_load_plan_file(const char* path) noexcept {
  if (path == nullptr) return AC_STATUS_INVALID_ARGUMENT;
  try {
    const std::string p(path);
    return static_cast<ac_status_t>(adaptcore::default_context().load_plan_file(p));
  } catch (const std::bad_alloc&) {  // the path's copy
    return AC_STATUS_OUT_OF_MEMORY;
  }
}

const char* ac_version(void) noexcept { return adaptcore::version(); }

}  // extern "C"
