// Public explain(): the planner's reasoning for one shape, as `adaptcore explain` shows it, for
// programs (the Python package's explain() returns it as a dict).
#include "adaptcore/adaptcore.hpp"
#include "core/exception_status.hpp"
#include "core/lowp_problem.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/planning.hpp"

namespace adaptcore {

namespace {

// The shape's key on this context, validated as the call would be (without operands).
Status key_of(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
              int64_t lda, int64_t ldb, int64_t ldc, GemmType type, bool cold,
              const detail::ContextImpl& impl, const detail::CallConfig& cfg, ShapeKey& key,
              std::string& kernels) noexcept {
  const auto tight = [&](int64_t rows, int64_t cols) {
    return layout == Layout::ColMajor ? std::max<int64_t>(rows, 1) : std::max<int64_t>(cols, 1);
  };
  const bool ta = transa != Trans::No, tb = transb != Trans::No;
  if (lda == 0) lda = ta ? tight(k, m) : tight(m, k);
  if (ldb == 0) ldb = tb ? tight(n, k) : tight(k, n);
  if (ldc == 0) ldc = tight(m, n);
  if (type == GemmType::F32) {
    GemmProblem prob;
    const Status s = make_shape_problem(layout, transa, transb, m, n, k, lda, ldb, ldc, prob);
    if (s != Status::Ok) return s;
    key = impl.key_for(prob, cfg, cold);
    // The level that registers the fp32 table the key's level runs.
    kernels = std::string(to_string(impl.kernels(cfg).isa)) + "-fp32";
    return Status::Ok;
  }
  if (type != GemmType::Bf16 && type != GemmType::Int8) return Status::InvalidArgument;
  LowpProblem prob;
  const Status s =
      make_shape_lowp_problem(type == GemmType::Int8 ? LowpKind::U8S8S32 : LowpKind::Bf16F32,
                              layout, transa, transb, m, n, k, lda, ldb, ldc, prob);
  if (s != Status::Ok) return s;
  key = impl.key_for(prob, cfg, cold);
  const kernels::LowpKernels* table = detail::ContextImpl::lowp_kernels(cfg, key.dtype);
  if (table == nullptr) return Status::UnsupportedIsa;
  kernels = table->name;
  return Status::Ok;
}

}  // namespace

Status explain(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
               int64_t lda, int64_t ldb, int64_t ldc, GemmType type, PlanExplanation& out,
               const CallOptions& options, Context& ctx) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  if (!ctx.usable()) return Status::OutOfMemory;
  detail::ContextImpl& impl = detail::impl_of(ctx);
  try {
    out = PlanExplanation{};
    const auto section = impl.reading();  // the profile stays while the key and plans are read
    // One snapshot of the configuration: the key, the kernels' name, the candidates and the
    // cached plan all of one profile and path.
    const detail::CallConfig cfg = impl.config();
    const bool cold = options.residency != Residency::Cached;
    ShapeKey key;
    std::string kernels;
    const Status s =
        key_of(layout, transa, transb, m, n, k, lda, ldb, ldc, type, cold, impl, cfg, key, kernels);
    if (s != Status::Ok) return s;
    out.isa = key.isa;
    out.threads = key.threads;
    out.cold = cold;
    out.kernels = kernels;
    if (m == 0 || n == 0 || k == 0) return Status::Ok;
    const Explanation e = explain_key(key, *cfg.hw);
    out.shape_class = to_string(e.cls);
    out.capacity = to_string(e.cls.capacity);
    out.parallelism = to_string(e.cls.parallel);
    out.candidates.reserve(e.candidates.size());
    for (const auto& c : e.candidates) {
      PlanCandidate pc;
      pc.plan = describe(c.plan);
      pc.predicted_us = c.cost.total_us;
      pc.compute_us = c.cost.compute_us;
      pc.memory_us = c.cost.memory_us;
      pc.pack_us = c.cost.pack_us;
      pc.sync_us = c.cost.sync_us;
      pc.bound = c.cost.bound;
      out.candidates.push_back(std::move(pc));
    }
    // The plan calls run is the cache's (planned now if missing): the model's choice, unless a
    // plan file brought another one, which is then listed last.
    const Plan cached = impl.plan_for(key, cfg);
    const std::string cached_text = describe(cached);
    out.chosen = out.candidates.size();
    for (std::size_t i = 0; i < out.candidates.size(); ++i)
      if (out.candidates[i].plan == cached_text) {
        out.chosen = i;
        break;
      }
    if (out.chosen == out.candidates.size()) {
      PlanCandidate pc;
      pc.plan = cached_text;
      pc.predicted_us = cached.predicted_us;
      pc.bound = "cached";
      out.candidates.push_back(std::move(pc));
    }
    return Status::Ok;
  } catch (...) {
    out = PlanExplanation{};
    return exception_status(nullptr);
  }
}

}  // namespace adaptcore
