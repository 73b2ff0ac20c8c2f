// Prepacked bf16 and int8 weights (docs/PACKED.md, "bf16 and int8"): pack_weights from bf16 or
// s8 packs op(B) once into the context's low-precision kernels' panels (their packed-B layout
// over the whole depth; int8 also its column sums), the width chosen by the model as for fp32;
// gemm_packed with bf16 or u8 / s8 activations validates and hands the problem to the
// low-precision call path (post-ops, C offset, the context's run), whose packed tiles read the
// panels in place.

#include "adaptcore/adaptcore.hpp"
#include "core/exception_status.hpp"
#include "core/int_math.hpp"
#include "core/operand_bytes.hpp"
#include "core/packed_weights.hpp"
#include "core/weight_storage.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/lowp_call.hpp"
#include "dispatch/packed_planning.hpp"

namespace adaptcore {
namespace {

// The validated problem on a handle's panels, through the low-precision call path: the context
// must run the table the panels were packed for.
Status run_on_panels(const LowpProblem& prob, const PackedWeights& b, int64_t m, void* c,
                     int64_t ldc, const COffset& co, const CallOptions& options,
                     Context& ctx) noexcept {
  if (!ctx.usable()) return Status::OutOfMemory;
  const detail::PackedWeightsImpl& w = *detail::impl_of(b);
  // The handle is checked against the very configuration the call then runs on.
  detail::ContextImpl& impl = detail::impl_of(ctx);
  const auto section = impl.reading();
  const detail::CallConfig cfg = impl.config();
  if (!can_run_packed(cfg, w)) return Status::InvalidArgument;
  return detail::run_lowp(prob, CallerC{prob.kind, Layout::RowMajor, m, w.n, c, ldc}, co, options,
                          ctx, static_cast<int64_t>(w.bytes()), &cfg);
}

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
  return run_on_panels(prob, b, m, c, ldc, COffset{}, options, ctx);
}

// u8 or s8 activations on int8 weights: the zero points and C offset of gemm_u8s8s32.
template <class AType>
Status run_packed_int8(Layout layout, Trans transa, int64_t m, const AType* a, int64_t lda,
                       ZeroPoints a_zp, const PackedWeights& b, ZeroPoints b_zp, std::int32_t beta,
                       std::int32_t* c, int64_t ldc, COffset c_offset, const CallOptions& options,
                       Context& ctx) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  constexpr LowpKind kind =
      std::is_same_v<AType, std::uint8_t> ? LowpKind::U8S8S32 : LowpKind::S8S8S32;
  LowpProblem prob;
  if (const Status s =
          make_packed_lowp_problem(kind, layout, transa, m, 1.0f, a, lda, b, 0.0f, c, ldc, prob);
      s != Status::Ok)
    return s;
  if (const Status s = check_zero_points(a_zp, m, b_zp, b.n()); s != Status::Ok) return s;
  prob.ibeta = beta;
  prob.a.zp = a_zp.values, prob.a.zp_count = a_zp.count;
  prob.b.zp = b_zp.values, prob.b.zp_count = b_zp.count;
  return run_on_panels(prob, b, m, c, ldc, c_offset, options, ctx);
}

// bf16 or s8 weights (dtype Bf16 or U8S8) into the table's panels.
Status pack_lowp(DType dtype, Layout layout, Trans transb, int64_t k, int64_t n, const void* b,
                 int64_t ldb, PackedWeights& out, const PackOptions& options,
                 Context& ctx) noexcept {
  const bool int8 = dtype == DType::U8S8;
  ByteOperand B{};
  if (const Status s = check_pack_args(layout, transb, k, n, b, ldb, int8 ? 1 : 2, options, B);
      s != Status::Ok)
    return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  try {
    detail::ContextImpl& impl = detail::impl_of(ctx);
    const auto section = impl.reading();
    const detail::CallConfig cfg = impl.config();
    const kernels::LowpKernels* lk = detail::ContextImpl::lowp_kernels(cfg, dtype);
    if (lk == nullptr) return Status::UnsupportedIsa;
    auto w = std::make_unique<detail::PackedWeightsImpl>();
    w->k = k, w->n = n;
    w->isa = cfg.isa;
    w->dtype = dtype;
    w->lowp = lk;
    w->nr = packed_lowp_panel_width(impl, cfg, dtype, k, n, options);
    if (w->nr == 0) return Status::InternalError;
    w->rows = lowp_panel_depth(k, lk->group);
    w->cols = round_up(n, int64_t{w->nr});
    // Zeros first: the packer writes the panels' padding columns and odd depth's half-word
    // too, and whatever it leaves must be 0 (the tiles multiply every word of a panel).
    w->data = weight_array<float>(
        static_cast<std::size_t>(w->rows) * static_cast<std::size_t>(w->cols), true);
    // Panel by panel (the last one padded): the packer writes ceil(k / group) words of each,
    // the handle's padding rows below them stay zero.
    // int8: s8 bytes (kSigned), and the column sums a zero point of A needs, gathered by the
    // packer as it does per depth block.
    if (int8) w->colsum.assign(static_cast<std::size_t>(w->cols), 0);
    auto* words = reinterpret_cast<std::uint32_t*>(w->data.get());
    const auto* bytes = static_cast<const unsigned char*>(b);
    for (int64_t j = 0; j < n; j += w->nr)
      lk->pack_b(k, std::min<int64_t>(w->nr, n - j), bytes + j * B.cs * B.eb, B.rs, B.cs, w->nr,
                 int8 ? kernels::kSigned : 0u, words + j * w->rows,
                 int8 ? w->colsum.data() + j : nullptr);
    out = detail::InternalAccess::make_packed(std::move(w));
    return Status::Ok;
  } catch (...) {
    return exception_status(nullptr);
  }
}

}  // namespace

int packed_lowp_panel_width(detail::ContextImpl& ctx, DType dtype, int64_t k, int64_t n,
                            const PackOptions& options) {
  const auto section = ctx.reading();
  return packed_lowp_panel_width(ctx, ctx.config(), dtype, k, n, options);
}

int packed_lowp_panel_width(detail::ContextImpl& ctx, const detail::CallConfig& cfg, DType dtype,
                            int64_t k, int64_t n, const PackOptions& options) {
  const kernels::LowpKernels* lk = detail::ContextImpl::lowp_kernels(cfg, dtype);
  if (lk == nullptr) return 0;
  std::vector<int> widths;
  for (const kernels::LowpTile& t : lk->tiles) widths.push_back(t.nr);
  const bool cold = cfg.residency != Residency::Cached;
  const LowpKind kind = dtype == DType::U8S8 ? LowpKind::U8S8S32 : LowpKind::Bf16F32;
  return packed_panel_width(ctx, widths, options, [&](int64_t m, int nr) {
    const LowpProblem p = packed_lowp_problem(kind, m, n, k, false, k, n, nr);
    return ctx.plan_for(ctx.key_for(p, cfg, cold), cfg).predicted_us;
  });
}

Status pack_weights(Layout layout, Trans transb, int64_t k, int64_t n, const bf16* b, int64_t ldb,
                    PackedWeights& out, const PackOptions& options, Context& ctx) noexcept {
  return pack_lowp(DType::Bf16, layout, transb, k, n, b, ldb, out, options, ctx);
}

Status pack_weights(Layout layout, Trans transb, int64_t k, int64_t n, const std::int8_t* b,
                    int64_t ldb, PackedWeights& out, const PackOptions& options,
                    Context& ctx) noexcept {
  return pack_lowp(DType::U8S8, layout, transb, k, n, b, ldb, out, options, ctx);
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

Status gemm_packed(Layout layout, Trans transa, int64_t m, const std::uint8_t* a, int64_t lda,
                   ZeroPoints a_zp, const PackedWeights& b, ZeroPoints b_zp, std::int32_t beta,
                   std::int32_t* c, int64_t ldc, COffset c_offset, const CallOptions& options,
                   Context& ctx) noexcept {
  return run_packed_int8(layout, transa, m, a, lda, a_zp, b, b_zp, beta, c, ldc, c_offset, options,
                         ctx);
}

Status gemm_packed(Layout layout, Trans transa, int64_t m, const std::int8_t* a, int64_t lda,
                   ZeroPoints a_zp, const PackedWeights& b, ZeroPoints b_zp, std::int32_t beta,
                   std::int32_t* c, int64_t ldc, COffset c_offset, const CallOptions& options,
                   Context& ctx) noexcept {
  return run_packed_int8(layout, transa, m, a, lda, a_zp, b, b_zp, beta, c, ldc, c_offset, options,
                         ctx);
}

}  // namespace adaptcore
