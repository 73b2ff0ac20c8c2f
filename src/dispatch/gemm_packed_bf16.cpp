// Prepacked bf16 weights (docs/PACKED.md, "bf16"): pack_weights from bf16 packs op(B) once into
// the context's bf16 kernels' panels (their packed-B layout over the whole depth), the width
// chosen by the model as for fp32; gemm_packed with bf16 activations validates and hands the
// problem to the low-precision call path (post-ops, the context's run), whose packed tiles read
// the panels in place.
#include <cstring>

#include "adaptcore/adaptcore.hpp"
#include "core/exception_status.hpp"
#include "core/int_math.hpp"
#include "core/operand_bytes.hpp"
#include "core/packed_weights.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/lowp_call.hpp"
#include "dispatch/packed_planning.hpp"

namespace adaptcore {
namespace {

template <class CType>
Status run_packed_bf16(Layout layout, Trans transa, int64_t m, float alpha, const bf16* a,
                       int64_t lda, const PackedWeights& b, float beta, CType* c, int64_t ldc,
                       const CallOptions& options, Context& ctx) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  constexpr LowpKind kind = std::is_same_v<CType, float> ? LowpKind::Bf16F32 : LowpKind::Bf16Bf16;
  LowpProblem prob;
  if (const Status s =
          make_packed_lowp_problem(kind, layout, transa, m, alpha, a, lda, b, beta, c, ldc, prob);
      s != Status::Ok)
    return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  // The panels are one table's packed layout: the context must run that table.
  const detail::PackedWeightsImpl* w = detail::impl_of(b);
  detail::ContextImpl& impl = detail::impl_of(ctx);
  if (impl.lowp_kernels(DType::Bf16, impl.kernels().isa) != w->lowp) return Status::InvalidArgument;
  return detail::run_lowp(prob, CallerC{kind, Layout::RowMajor, m, w->n, c, ldc}, COffset{},
                          options, ctx);
}

}  // namespace

Status pack_weights(Layout layout, Trans transb, int64_t k, int64_t n, const bf16* b, int64_t ldb,
                    PackedWeights& out, const PackOptions& options, Context& ctx) noexcept {
  if (!valid_layout(layout)) return Status::InvalidLayout;
  if (!valid_trans(transb)) return Status::InvalidTranspose;
  if (k < 1 || n < 1) return Status::InvalidDimension;
  if (const Status s = check_pack_options(options); s != Status::Ok) return s;
  const bool row = layout == Layout::RowMajor, tb = transb != Trans::No;
  if (ldb < min_leading_dim(row, tb, k, n)) return Status::InvalidLeadingDimension;
  const ByteOperand B = stored_operand(b, k, n, row, tb, ldb, 2);
  const int64_t len = span_bytes(B);
  if (len < 0) return Status::SizeOverflow;
  if (b == nullptr) return Status::NullPointer;
  if (!range_fits(b, len)) return Status::SizeOverflow;
  if (!ctx.usable()) return Status::OutOfMemory;
  try {
    detail::ContextImpl& impl = detail::impl_of(ctx);
    const auto section = impl.reading();
    const kernels::LowpKernels* lk = impl.lowp_kernels(DType::Bf16, impl.kernels().isa);
    if (lk == nullptr) return Status::UnsupportedIsa;
    auto w = std::make_unique<detail::PackedWeightsImpl>();
    w->k = k, w->n = n;
    w->isa = impl.kernels().isa;
    w->dtype = DType::Bf16;
    w->lowp = lk;
    std::vector<int> widths;
    for (const kernels::LowpTile& t : lk->tiles) widths.push_back(t.nr);
    const bool cold = impl.residency() != Residency::Cached;
    w->nr = packed_panel_width(impl, widths, options, [&](int64_t m, int nr) {
      const LowpProblem p = packed_lowp_problem(LowpKind::Bf16F32, m, n, k, false, k, n, nr);
      return impl.plan_for(impl.key_for(p, cold)).predicted_us;
    });
    if (w->nr == 0) return Status::InternalError;
    w->rows = ceil_div(k, int64_t{lk->group});
    w->cols = round_up(n, int64_t{w->nr});
    w->data = weight_storage(w->rows, w->cols);
    // Zeros first: the packer writes the panels' padding columns and odd depth's half-word
    // too, and whatever it leaves must be 0 (the tiles multiply every word of a panel).
    std::memset(w->data.get(), 0, w->bytes());
    // The whole of op(B) as one block: panels of nr columns (the last one padded), each
    // ceil(k / group) words deep, which is the handle's layout.
    lk->pack_b(k, n, b, B.rs, B.cs, w->nr, 0u, reinterpret_cast<std::uint32_t*>(w->data.get()),
               nullptr);
    out = detail::InternalAccess::make_packed(std::move(w));
    return Status::Ok;
  } catch (...) {
    return exception_status(nullptr);
  }
}

Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const bf16* a, int64_t lda,
                   const PackedWeights& b, float beta, float* c, int64_t ldc,
                   const CallOptions& options, Context& ctx) noexcept {
  return run_packed_bf16(layout, transa, m, alpha, a, lda, b, beta, c, ldc, options, ctx);
}

Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const bf16* a, int64_t lda,
                   const PackedWeights& b, float beta, bf16* c, int64_t ldc,
                   const CallOptions& options, Context& ctx) noexcept {
  return run_packed_bf16(layout, transa, m, alpha, a, lda, b, beta, c, ldc, options, ctx);
}

}  // namespace adaptcore
