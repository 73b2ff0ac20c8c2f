// The grouped-GEMM C API: the C call structure turned into adaptcore::GroupedGemm (the handles'
// PackedWeights pointers gathered into an array) on the default context or a handle's.
#include <vector>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "capi/c_context.hpp"
#include "capi/c_packed_handle.hpp"

namespace {

using adaptcore::Context;
using adaptcore::capi::on_context;
using adaptcore::capi::to_c;

// The C++ handles behind an array of C handles of either kind (null entries stay null); empty
// for a null array.
template <class CHandle>
std::vector<const decltype(CHandle::w)*> cpp_handles(CHandle* const* handles, int64_t count) {
  std::vector<const decltype(CHandle::w)*> out;
  if (handles == nullptr || count <= 0) return out;
  out.reserve(static_cast<std::size_t>(count));
  for (int64_t e = 0; e < count; ++e)
    out.push_back(handles[e] != nullptr ? &handles[e]->w : nullptr);
  return out;
}

ac_status_t run(const ac_grouped_gemm* call, const ac_post_op* ops, int op_count,
                Context& ctx) noexcept {
  if (call == nullptr) return AC_STATUS_NULL_POINTER;
  try {
    const auto packed = cpp_handles(call->weights, call->experts);
    const auto quantized = cpp_handles(call->quantized_weights, call->experts);
    adaptcore::GroupedGemm g;
    g.quantized_weights = call->quantized_weights != nullptr ? quantized.data() : nullptr;
    g.parts = static_cast<adaptcore::ActivationParts>(call->parts);
    g.experts = call->experts;
    g.expert_rows = call->expert_rows;
    g.weights = call->weights != nullptr ? packed.data() : nullptr;
    g.k = call->k, g.n = call->n;
    g.a = call->A, g.lda = call->lda, g.a_rows = call->a_rows, g.gather = call->gather;
    g.c = call->C, g.ldc = call->ldc, g.c_rows = call->c_rows;
    g.scatter = call->scatter, g.scatter_weights = call->scatter_weights;
    g.alpha = call->alpha, g.beta = call->beta;
    g.a_bf16 = adaptcore::capi::as_bf16(call->A_bf16);
    adaptcore::PostOp list[adaptcore::kMaxPostOps];
    const adaptcore::CallOptions o = adaptcore::capi::post_call_options(ops, op_count, list);
    return to_c(adaptcore::gemm_grouped(g, o, ctx));
  } catch (...) {
    return AC_STATUS_OUT_OF_MEMORY;
  }
}

}  // namespace

extern "C" {

ac_status_t ac_gemm_grouped(const ac_grouped_gemm* call, const ac_post_op* ops,
                            int op_count) noexcept {
  return run(call, ops, op_count, adaptcore::default_context());
}

ac_status_t ac_gemm_grouped_ctx(const ac_grouped_gemm* call, const ac_post_op* ops, int op_count,
                                ac_context* ctx) noexcept {
  return on_context(ctx, [&](Context& c) { return run(call, ops, op_count, c); });
}

}  // extern "C"
