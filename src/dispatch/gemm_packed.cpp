// Prepacked weights (fp32): pack_weights picks the panel width by the model for the rows the
// caller expects and packs op(B) once; gemm_packed validates and hands the problem to the
// context's one call path (docs/PACKED.md).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "adaptcore/adaptcore.hpp"
#include "core/exception_status.hpp"
#include "core/operand_bytes.hpp"
#include "core/packed_weights.hpp"
#include "core/shape_key.hpp"
#include "core/weight_storage.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/packed_planning.hpp"
#include "dispatch/post_op_call.hpp"
#include "kernels/registry.hpp"

namespace adaptcore {
namespace {

// The rows a PackOptions without any stand for: decode (1, 8) and prefill (64, 512) alike.
constexpr int64_t kDefaultRows[] = {1, 8, 64, 512};
// The largest expected M the planner is asked about (a plan file's bound on a dimension).
constexpr int64_t kMaxHintRows = int64_t{1} << 40;

}  // namespace

Status check_pack_options(const PackOptions& o) noexcept {
  for (const int64_t m : o.m_values)
    if (m < 1 || m > kMaxHintRows) return Status::InvalidArgument;
  if (!o.m_weights.empty() && o.m_weights.size() != o.m_values.size())
    return Status::InvalidArgument;
  double total = 0.0;
  for (const double w : o.m_weights) {
    if (!std::isfinite(w) || w < 0.0) return Status::InvalidArgument;
    total += w;
  }
  if (!o.m_weights.empty() && !(total > 0.0)) return Status::InvalidArgument;
  return Status::Ok;
}

namespace {

// The key of M rows of a dense row-major A against panels of nr columns, where the context
// plans it.
ShapeKey panel_key(const detail::ContextImpl& ctx, const detail::CallConfig& cfg, int64_t m,
                   int64_t n, int64_t k, int nr, bool cold) {
  return ctx.key_for(packed_problem(m, n, k, false, k, n, nr), cfg, cold);
}

}  // namespace

void pack_weight_panels(const kernels::IsaKernels& ks, int64_t k, int64_t n, const float* b,
                        int64_t b_rs, int64_t b_cs, int nr, float* out) {
  const int64_t whole = n / nr * nr;
  // The whole panels are the packer's panels of a block k deep and `whole` wide.
  if (whole > 0) ks.pack_b(k, whole, b, b_rs, b_cs, nr, out);
  const int64_t w = n - whole;
  if (w == 0) return;
  float* tail = out + whole * k;
  const float* src = b + whole * b_cs;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < w; ++j) tail[p * w + j] = src[p * b_rs + j * b_cs];
}

bool has_tile_of_width(const kernels::IsaKernels& ks, int nr) noexcept {
  for (const kernels::TileKernels& t : ks.tiles)
    if (t.nr == nr) return true;
  return false;
}

bool can_run_packed(const detail::CallConfig& cfg, const detail::PackedWeightsImpl& w) noexcept {
  if (w.dtype == DType::F32) {
    const kernels::IsaKernels* ks = kernels::kernels_for(cfg.isa);
    return ks != nullptr && has_tile_of_width(*ks, w.nr);
  }
  return detail::ContextImpl::lowp_kernels(cfg, w.dtype) == w.lowp;
}

// Each expected M's predicted time on a width against the best width's for that M (the
// regret), as a log so that a decode step and a prefill chunk count alike, weighted by how often
// the M comes, summed; the lowest sum wins (ties: the wider tile, listed first). Weights start in
// memory unless the context says they stay cached (an inference engine's layers run one after
// the other).
int packed_panel_width(detail::ContextImpl& ctx, int64_t k, int64_t n, const PackOptions& o) {
  const auto section = ctx.reading();
  return packed_panel_width(ctx, ctx.config(), k, n, o);
}

int packed_panel_width(detail::ContextImpl& ctx, const detail::CallConfig& cfg, int64_t k,
                       int64_t n, const PackOptions& o) {
  std::vector<int> tile_widths;
  for (const kernels::TileKernels& t : ctx.kernels(cfg).tiles) tile_widths.push_back(t.nr);
  const bool cold = cfg.residency != Residency::Cached;
  return packed_panel_width(ctx, tile_widths, o, [&](int64_t m, int nr) {
    return ctx.plan_for(panel_key(ctx, cfg, m, n, k, nr, cold), cfg).predicted_us;
  });
}

int packed_panel_width(detail::ContextImpl& ctx, std::span<const int> tile_widths,
                       const PackOptions& o, const std::function<double(int64_t, int)>& predict) {
  (void)ctx;
  std::vector<int64_t> rows(o.m_values);
  std::vector<double> weights(o.m_weights);
  if (rows.empty()) rows.assign(std::begin(kDefaultRows), std::end(kDefaultRows));
  if (weights.empty()) weights.assign(rows.size(), 1.0);
  constexpr double kNone = std::numeric_limits<double>::infinity();
  // times[w][i]: the best plan's predicted time for rows[i] on width widths[w].
  std::vector<int> widths;
  std::vector<std::vector<double>> times;
  for (const int nr : tile_widths) {
    if (nr > 255 || std::find(widths.begin(), widths.end(), nr) != widths.end()) continue;
    // Every width has register-tile plans on its panels (candidates_blocked.cpp), so each key
    // is planned once, through the cache the calls will find the plans in.
    std::vector<double> row(rows.size(), kNone);
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (weights[i] > 0.0) row[i] = predict(rows[i], nr);
    widths.push_back(nr);
    times.push_back(std::move(row));
  }
  int best_nr = 0;
  double best = kNone;
  for (std::size_t w = 0; w < widths.size(); ++w) {
    double score = 0.0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (weights[i] <= 0.0) continue;
      double fastest = kNone;
      for (const auto& other : times) fastest = std::min(fastest, other[i]);
      score += weights[i] * std::log(times[w][i] / fastest);
    }
    if (score < best) best = score, best_nr = widths[w];
  }
  return best_nr;
}

namespace {

Status run_packed(Layout layout, Trans transa, int64_t m, float alpha, const float* a, int64_t lda,
                  const PackedWeights& b, float beta, float* c, int64_t ldc,
                  const CallOptions& options, Context& ctx) noexcept {
  GemmProblem prob;
  const Status s = make_packed_problem(layout, transa, m, alpha, a, lda, b, beta, c, ldc, prob);
  if (s != Status::Ok) return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  detail::ContextImpl& impl = detail::impl_of(ctx);
  // The handle is checked against the very configuration the call then runs on.
  const auto section = impl.reading();
  const detail::CallConfig cfg = impl.config();
  if (!can_run_packed(cfg, *detail::impl_of(b))) return Status::InvalidArgument;
  if (options.post_op_count != 0)
    return detail::run_with_post_ops(prob, Layout::RowMajor, m, prob.n, c, ldc, options, ctx, &cfg);
  return impl.run(prob, cfg, nullptr, options.residency);
}

}  // namespace

Status check_pack_args(Layout layout, Trans transb, int64_t k, int64_t n, const void* b,
                       int64_t ldb, int64_t eb, const PackOptions& options,
                       ByteOperand& out) noexcept {
  if (!valid_layout(layout)) return Status::InvalidLayout;
  if (!valid_trans(transb)) return Status::InvalidTranspose;
  if (k < 1 || n < 1) return Status::InvalidDimension;
  if (const Status s = check_pack_options(options); s != Status::Ok) return s;
  const bool row = layout == Layout::RowMajor, tb = transb != Trans::No;
  if (ldb < min_leading_dim(row, tb, k, n)) return Status::InvalidLeadingDimension;
  out = stored_operand(b, k, n, row, tb, ldb, eb);
  const int64_t len = span_bytes(out);
  if (len < 0) return Status::SizeOverflow;
  if (b == nullptr) return Status::NullPointer;
  if (!range_fits(b, len)) return Status::SizeOverflow;
  return Status::Ok;
}

Status pack_weights(Layout layout, Trans transb, int64_t k, int64_t n, const float* b, int64_t ldb,
                    PackedWeights& out, const PackOptions& options, Context& ctx) noexcept {
  ByteOperand B{};
  if (const Status s = check_pack_args(layout, transb, k, n, b, ldb, 4, options, B);
      s != Status::Ok)
    return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  try {
    detail::ContextImpl& impl = detail::impl_of(ctx);
    const auto section = impl.reading();
    const detail::CallConfig cfg = impl.config();
    const kernels::IsaKernels& ks = impl.kernels(cfg);
    auto w = std::make_unique<detail::PackedWeightsImpl>();
    w->k = k, w->n = n;
    w->isa = cfg.isa;
    w->nr = packed_panel_width(impl, cfg, k, n, options);
    if (w->nr == 0) return Status::InternalError;
    w->rows = k, w->cols = n;
    w->data = weight_array<float>(static_cast<std::size_t>(k) * static_cast<std::size_t>(n), false);
    pack_weight_panels(ks, k, n, b, B.rs, B.cs, w->nr, w->data.get());
    out = detail::InternalAccess::make_packed(std::move(w));
    return Status::Ok;
  } catch (...) {
    return exception_status(nullptr);
  }
}

Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const float* a, int64_t lda,
                   const PackedWeights& b, float beta, float* c, int64_t ldc,
                   Context& ctx) noexcept {
  return run_packed(layout, transa, m, alpha, a, lda, b, beta, c, ldc, CallOptions{}, ctx);
}

Status gemm_packed(Layout layout, Trans transa, int64_t m, float alpha, const float* a, int64_t lda,
                   const PackedWeights& b, float beta, float* c, int64_t ldc,
                   const CallOptions& options, Context& ctx) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  return run_packed(layout, transa, m, alpha, a, lda, b, beta, c, ldc, options, ctx);
}

}  // namespace adaptcore
