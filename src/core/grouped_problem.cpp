#include "core/grouped_problem.hpp"

#include "core/internal_access.hpp"
#include "core/operand_bytes.hpp"

#include <type_traits>

namespace adaptcore {
namespace {

// Every index within [0, rows).
bool indices_within(const int64_t* idx, int64_t count, int64_t rows) noexcept {
  for (int64_t i = 0; i < count; ++i)
    if (idx[i] < 0 || idx[i] >= rows) return false;
  return true;
}

}  // namespace

int64_t GroupedProblem::panel_cols(int64_t e) const noexcept {
  return quantized() ? kWqNr : weights[static_cast<std::size_t>(e)]->nr;
}

Status make_grouped_problem(const GroupedGemm& g, const CallOptions& options,
                            GroupedProblem& out) noexcept {
  if (g.experts < 0 || g.k < 1 || g.n < 1) return Status::InvalidDimension;
  if (g.experts > 0 && g.expert_rows == nullptr) return Status::NullPointer;
  try {
    out = GroupedProblem{};
    out.first_row.assign(static_cast<std::size_t>(g.experts) + 1, 0);
    int64_t routed = 0;
    for (int64_t e = 0; e < g.experts; ++e) {
      const int64_t m = g.expert_rows[e];
      if (m < 0 || __builtin_add_overflow(routed, m, &routed)) return Status::InvalidDimension;
      out.first_row[static_cast<std::size_t>(e) + 1] = routed;
    }
    const bool scatter = g.scatter != nullptr;
    const bool writes_c = routed > 0 || (scatter && g.c_rows > 0);
    const bool quantized = g.quantized_weights != nullptr;
    const bool half = g.a_bf16 != nullptr;
    if (half && (g.a != nullptr || quantized)) return Status::InvalidArgument;
    if (routed > 0 && ((g.a == nullptr && !half) || (g.weights == nullptr && !quantized)))
      return Status::NullPointer;
    if (writes_c && g.c == nullptr) return Status::NullPointer;
    if (quantized && g.weights != nullptr) return Status::InvalidArgument;
    if (quantized &&
        (g.alpha != 1.0f || (g.parts != ActivationParts::One && g.parts != ActivationParts::Two)))
      return Status::InvalidArgument;
    out.parts = static_cast<int>(g.parts);
    if (quantized)
      out.qweights.assign(static_cast<std::size_t>(g.experts), nullptr);
    else
      out.weights.assign(static_cast<std::size_t>(g.experts), nullptr);
    // Each expert with rows: its handle's state, of the call's k and n.
    auto take = [&](int64_t e, const auto* handle, auto& into) {
      const auto* w = handle != nullptr ? detail::impl_of(*handle) : nullptr;
      if (w == nullptr) return Status::NullPointer;
      if (w->k != g.k || w->n != g.n) return Status::ShapeMismatch;
      if constexpr (std::is_same_v<std::decay_t<decltype(*w)>, detail::PackedWeightsImpl>)
        if (w->dtype != (half ? DType::Bf16 : DType::F32)) return Status::InvalidArgument;
      into[static_cast<std::size_t>(e)] = w;
      return Status::Ok;
    };
    for (int64_t e = 0; e < g.experts; ++e) {
      if (g.expert_rows[e] == 0) continue;
      const Status s = quantized ? take(e, g.quantized_weights[e], out.qweights)
                                 : take(e, g.weights[e], out.weights);
      if (s != Status::Ok) return s;
    }
    if ((routed > 0 && g.lda < g.k) || (writes_c && g.ldc < g.n))
      return Status::InvalidLeadingDimension;
    if (g.a_rows < 0 || g.c_rows < 0) return Status::InvalidDimension;
    // A or C with fewer rows than the experts route: the shapes do not compose.
    if (g.gather == nullptr && g.a_rows < routed) return Status::ShapeMismatch;
    if (!scatter && g.c_rows < routed) return Status::ShapeMismatch;
    if (!scatter && g.scatter_weights != nullptr) return Status::InvalidArgument;
    if (g.gather != nullptr && !indices_within(g.gather, routed, g.a_rows))
      return Status::InvalidArgument;
    if (scatter && !indices_within(g.scatter, routed, g.c_rows)) return Status::InvalidArgument;
    // The rows the call reads of A and writes of C.
    const int64_t a_used = g.gather != nullptr ? g.a_rows : routed;
    const int64_t c_used = scatter ? g.c_rows : routed;
    const void* a_ptr = half ? static_cast<const void*>(g.a_bf16) : g.a;
    const ByteOperand A =
        stored_operand(a_ptr, routed > 0 ? a_used : 0, g.k, true, false, g.lda, half ? 2 : 4);
    const ByteOperand C = stored_operand(g.c, writes_c ? c_used : 0, g.n, true, false, g.ldc, 4);
    const int64_t a_len = span_bytes(A), c_len = span_bytes(C);
    if (a_len < 0 || c_len < 0 || !range_fits(a_ptr, a_len) || !range_fits(g.c, c_len))
      return Status::SizeOverflow;
    if (overlaps(C, c_len, A, a_len)) return Status::Aliasing;
    // A and every expert's weights: what C, and an output post-op, must not overlap.
    std::vector<ByteOperand> reads{A};
    for (const detail::PackedWeightsImpl* w : out.weights)
      if (w != nullptr) {
        const auto len = static_cast<int64_t>(w->bytes());
        reads.push_back(ByteOperand{w->data.get(), 1, len, len, 1, 1});
      }
    for (const detail::QuantizedWeightsImpl* w : out.qweights)
      if (w != nullptr) {
        const auto len = static_cast<int64_t>(w->packed_size());
        reads.push_back(ByteOperand{w->packed.get(), 1, len, len, 1, 1});
      }
    for (std::size_t i = 1; i < reads.size(); ++i)
      if (overlaps(C, c_len, reads[i], span_bytes(reads[i]))) return Status::Aliasing;
    // The epilogue runs over the routed rows' results (R x n): in C without a scatter, in the
    // call's own buffer with one.
    const ByteOperand post_c = scatter ? ByteOperand{nullptr, 0, 0, 0, 0, 4} : C;
    if (const Status s = make_post_op_chain(options, Layout::RowMajor, routed, g.n, post_c, false,
                                            out.post, reads);
        s != Status::Ok)
      return s;
    // An output operation writes the routed rows' own results; a scatter combines them first.
    if (scatter && out.post.has_output()) return Status::InvalidArgument;
    if (scatter && routed > 0)
      for (int i = 0; i < out.post.count; ++i) {  // a residual must not be C itself
        const PostOpChain::Op& op = out.post.ops[static_cast<std::size_t>(i)];
        if (op.kind != PostOpKind::Residual) continue;
        const ByteOperand R{op.data, routed, g.n, op.rs, op.cs, 4};
        if (overlaps(C, c_len, R, span_bytes(R))) return Status::Aliasing;
      }
    out.experts = g.experts, out.k = g.k, out.n = g.n, out.routed = routed;
    out.a = g.a, out.lda = g.lda, out.gather = g.gather;
    out.bf16_experts = half, out.a_bf16 = g.a_bf16;
    out.c = g.c, out.ldc = g.ldc, out.c_rows = g.c_rows;
    out.scatter = g.scatter, out.scatter_weights = g.scatter_weights;
    out.alpha = g.alpha, out.beta = g.beta;
    return Status::Ok;
  } catch (...) {
    return Status::OutOfMemory;
  }
}

}  // namespace adaptcore
