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

ac_status_t run(const ac_grouped_gemm* call, const ac_post_op* ops, int op_count,
                Context& ctx) noexcept {
  if (call == nullptr) return AC_STATUS_NULL_POINTER;
  try {
    std::vector<const adaptcore::PackedWeights*> handles;
    if (call->experts > 0 && call->weights != nullptr) {
      handles.resize(static_cast<std::size_t>(call->experts), nullptr);
      for (int64_t e = 0; e < call->experts; ++e)
        if (call->weights[e] != nullptr)
          handles[static_cast<std::size_t>(e)] = &call->weights[e]->w;
    }
    std::vector<const adaptcore::QuantizedWeights*> quantized;
    if (call->experts > 0 && call->quantized_weights != nullptr) {
      quantized.resize(static_cast<std::size_t>(call->experts), nullptr);
      for (int64_t e = 0; e < call->experts; ++e)
        if (call->quantized_weights[e] != nullptr)
          quantized[static_cast<std::size_t>(e)] = &call->quantized_weights[e]->w;
    }
    adaptcore::GroupedGemm g;
    g.quantized_weights = call->quantized_weights != nullptr ? quantized.data() : nullptr;
    g.parts = static_cast<adaptcore::ActivationParts>(call->parts);
    g.experts = call->experts;
    g.expert_rows = call->expert_rows;
    g.weights = call->weights != nullptr ? handles.data() : nullptr;
    g.k = call->k, g.n = call->n;
    g.a = call->A, g.lda = call->lda, g.a_rows = call->a_rows, g.gather = call->gather;
    g.c = call->C, g.ldc = call->ldc, g.c_rows = call->c_rows;
    g.scatter = call->scatter, g.scatter_weights = call->scatter_weights;
    g.alpha = call->alpha, g.beta = call->beta;
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
