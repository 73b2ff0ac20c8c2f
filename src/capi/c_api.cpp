// The C API: a thin layer over the C++ one, on the default context or on a handle's context.
// Never throws: the C++ calls it makes are noexcept and return statuses (default_context()
// included).
#include "adaptcore/adaptcore.h"

#include <new>
#include <string>

#include "adaptcore/adaptcore.hpp"
#include "capi/c_context.hpp"

using adaptcore::Context;
using adaptcore::Status;
using adaptcore::capi::to_c;
using adaptcore::capi::to_cpp;

namespace {

ac_status_t sgemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                  int64_t n, int64_t k, float alpha, const float* A, int64_t lda, const float* B,
                  int64_t ldb, float beta, float* C, int64_t ldc, Context& ctx) noexcept {
  return to_c(adaptcore::gemm(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, alpha, A,
                              lda, B, ldb, beta, C, ldc, ctx));
}

ac_status_t sgemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                  int64_t n, int64_t k, float alpha, const float* A, int64_t lda, const float* B,
                  int64_t ldb, float beta, float* C, int64_t ldc, ac_residency_t residency,
                  Context& ctx) noexcept {
  adaptcore::CallOptions options;
  options.residency = static_cast<adaptcore::Residency>(residency);  // checked by gemm
  return to_c(adaptcore::gemm(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, alpha, A,
                              lda, B, ldb, beta, C, ldc, options, ctx));
}

// The C post-op list as the C++ one (the kinds have the same values; gemm checks them).
adaptcore::CallOptions post_options(const ac_post_op* ops, int count,
                                    adaptcore::PostOp (&out)[adaptcore::kMaxPostOps]) noexcept {
  adaptcore::CallOptions o;
  o.post_op_count = count;
  if (ops == nullptr || count < 0 || count > adaptcore::kMaxPostOps) {
    o.post_ops = ops == nullptr ? nullptr : out;  // gemm reports the count or the null list
    return o;
  }
  for (int i = 0; i < count; ++i)
    out[i] =
        adaptcore::PostOp{static_cast<adaptcore::PostOpKind>(ops[i].kind), ops[i].data, ops[i].ld,
                          ops[i].out, static_cast<adaptcore::OutputType>(ops[i].out_type)};
  o.post_ops = out;
  return o;
}

ac_status_t sgemm_post(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                       int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                       const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                       const ac_post_op* ops, int op_count, Context& ctx) noexcept {
  adaptcore::PostOp list[adaptcore::kMaxPostOps];
  const adaptcore::CallOptions o = post_options(ops, op_count, list);
  return to_c(adaptcore::gemm(to_cpp(layout), to_cpp(transa), to_cpp(transb), m, n, k, alpha, A,
                              lda, B, ldb, beta, C, ldc, o, ctx));
}

}  // namespace

namespace adaptcore::capi {
CallOptions post_call_options(const ac_post_op* ops, int count,
                              PostOp (&out)[kMaxPostOps]) noexcept {
  return post_options(ops, count, out);
}
}  // namespace adaptcore::capi

extern "C" {

ac_status_t ac_sgemm_post(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                          int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                          const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                          const ac_post_op* ops, int op_count) noexcept {
  return sgemm_post(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ops,
                    op_count, adaptcore::default_context());
}

ac_status_t ac_sgemm_post_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                              int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                              int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                              int64_t ldc, const ac_post_op* ops, int op_count,
                              ac_context* ctx) noexcept {
  return adaptcore::capi::on_context(ctx, [&](Context& c) {
    return sgemm_post(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ops,
                      op_count, c);
  });
}

ac_status_t ac_sgemm(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb, int64_t m,
                     int64_t n, int64_t k, float alpha, const float* A, int64_t lda, const float* B,
                     int64_t ldb, float beta, float* C, int64_t ldc) noexcept {
  return sgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
               adaptcore::default_context());
}

ac_status_t ac_sgemm_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                         int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                         const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                         ac_context* ctx) noexcept {
  return adaptcore::capi::on_context(ctx, [&](Context& c) {
    return sgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, c);
  });
}

ac_status_t ac_sgemm_residency(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                               int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                               int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                               int64_t ldc, ac_residency_t residency) noexcept {
  return sgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, residency,
               adaptcore::default_context());
}

ac_status_t ac_sgemm_residency_ctx(ac_layout_t layout, ac_transpose_t transa, ac_transpose_t transb,
                                   int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                                   int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                                   int64_t ldc, ac_residency_t residency,
                                   ac_context* ctx) noexcept {
  return adaptcore::capi::on_context(ctx, [&](Context& c) {
    return sgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, residency,
                 c);
  });
}

const char* ac_status_string(ac_status_t status) noexcept {
  return adaptcore::to_string(static_cast<Status>(status));
}

ac_status_t ac_set_num_threads(int threads) noexcept {
  return to_c(adaptcore::default_context().set_threads(threads));
}

int ac_get_num_threads(void) noexcept { return adaptcore::default_context().threads(); }

ac_status_t ac_set_isa(ac_isa_t isa) noexcept {
  if (!adaptcore::capi::valid_isa(isa)) return AC_STATUS_INVALID_ARGUMENT;
  return to_c(adaptcore::default_context().set_isa(static_cast<adaptcore::Isa>(isa)));
}

ac_isa_t ac_get_isa(void) noexcept {
  return static_cast<ac_isa_t>(adaptcore::default_context().isa());
}

ac_status_t ac_set_residency(ac_residency_t residency) noexcept {
  return to_c(
      adaptcore::default_context().set_residency(static_cast<adaptcore::Residency>(residency)));
}

ac_status_t ac_load_plan_file(const char* path) noexcept {
  if (path == nullptr) return AC_STATUS_INVALID_ARGUMENT;
  try {
    const std::string p(path);
    return to_c(adaptcore::default_context().load_plan_file(p));
  } catch (const std::bad_alloc&) {  // the path's copy
    return AC_STATUS_OUT_OF_MEMORY;
  }
}

const char* ac_version(void) noexcept { return adaptcore::version(); }

}  // extern "C"
