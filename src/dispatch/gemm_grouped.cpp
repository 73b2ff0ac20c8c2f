// Grouped GEMM for Mixture-of-Experts (docs/GROUPED.md): validates the call, prices every
// (expert, column chunk) unit with the model (each a one-core plan over the expert's panels,
// through the plan cache), schedules the units across the cores (planner/grouped_scheduler)
// and hands the schedule to the grouped executor.
#include <algorithm>

#include "adaptcore/adaptcore.hpp"
#include "core/exception_status.hpp"
#include "core/grouped_problem.hpp"
#include "core/shape_key.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/packed_planning.hpp"
#include "exec/executor_grouped.hpp"
#include "planner/grouped_scheduler.hpp"

namespace adaptcore {
namespace {

// A grouped call's units with their plans, and the placement's predicted core times.
struct GroupedSetup {
  GroupedProblem g;
  std::vector<GroupedWork> units;
  std::vector<double> core_us;
  int cores = 1;
};

// Expert weights are read from memory unless the call or the context says they stay cached:
// a step's experts together exceed the L3 in every Mixture-of-Experts model.
bool weights_cold(const detail::CallConfig& cfg, Residency call) noexcept {
  const Residency r = call != Residency::Auto ? call : cfg.residency;
  return r != Residency::Cached;
}

// cfg: the call's snapshot of the context's configuration (the executor runs on the same).
Status prepare(const GroupedGemm& call, const CallOptions& options, detail::ContextImpl& ctx,
               const detail::CallConfig& cfg, GroupedSetup& out) {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  if (const Status s = make_grouped_problem(call, options, out.g); s != Status::Ok) return s;
  const GroupedProblem& g = out.g;
  for (const detail::PackedWeightsImpl* w : g.weights)
    if (w != nullptr && !can_run_packed(cfg, *w)) return Status::InvalidArgument;
  out.cores = std::max(1, cfg.threads);
  const bool cold = weights_cold(cfg, options.residency);
  const int64_t lda = g.gather != nullptr ? grouped_row_stride(g.k) : g.lda;
  const bool scatter = g.scatter != nullptr;
  const int64_t ldc = scatter ? grouped_row_stride(g.n) : g.ldc;
  const Isa isa = cfg.isa;
  // The one-core plan of a chunk, through the context's cache.
  const float beta = scatter ? 0.0f : g.beta;
  auto plan_of = [&](int64_t e, int64_t col0, int64_t cols) {
    ShapeKey key =
        g.quantized()
            ? make_key(unit_wq_problem(g, e, col0, cols, nullptr, lda, nullptr, ldc, beta), isa, 1)
        : g.bf16_experts
            ? make_key(unit_lowp_problem(g, e, col0, cols, nullptr, lda, nullptr, ldc, beta), isa,
                       1)
            : make_key(unit_problem(g, e, col0, cols, nullptr, lda, nullptr, ldc, beta), isa, 1);
    key.cold = cold;
    return ctx.plan_for(key, cfg);
  };
  auto chunk_cols = [&](int64_t e, int64_t panel0, int64_t panels, int64_t& col0) {
    const int64_t nr = g.panel_cols(e);
    col0 = panel0 * nr;
    return std::min(panels * nr, g.n - col0);
  };
  std::vector<int64_t> panels(static_cast<std::size_t>(g.experts), 0);
  for (int64_t e = 0; e < g.experts; ++e)
    if (g.rows(e) > 0)
      panels[static_cast<std::size_t>(e)] = (g.n + g.panel_cols(e) - 1) / g.panel_cols(e);
  const GroupedPlacement placement =
      schedule_grouped(panels, out.cores, [&](int64_t e, int64_t panel0, int64_t count) {
        int64_t col0 = 0;
        const int64_t cols = chunk_cols(e, panel0, count, col0);
        return plan_of(e, col0, cols).predicted_us;
      });
  out.units.reserve(placement.units.size());
  for (const GroupedUnit& u : placement.units) {
    GroupedWork w;
    w.expert = u.expert;
    w.cols = chunk_cols(u.expert, u.panel0, u.panels, w.col0);
    w.core = u.core;
    w.plan = plan_of(u.expert, w.col0, w.cols);
    out.units.push_back(w);
  }
  out.core_us = placement.core_us;
  return Status::Ok;
}

void fill_schedule(const GroupedSetup& s, GroupedSchedule& out) {
  out.units.clear();
  for (const GroupedWork& w : s.units)
    out.units.push_back(GroupedSchedule::Unit{w.expert, s.g.rows(w.expert), w.col0, w.cols, w.core,
                                              w.plan.predicted_us, describe(w.plan)});
  out.core_predicted_us = s.core_us;
  out.core_predicted_us.resize(static_cast<std::size_t>(s.cores), 0.0);
  out.core_measured_us.clear();
  out.threads = s.cores;
}

}  // namespace

Status gemm_grouped(const GroupedGemm& call, const CallOptions& options, Context& ctx,
                    GroupedSchedule* schedule) noexcept {
  if (!ctx.usable()) return Status::OutOfMemory;
  try {
    detail::ContextImpl& impl = detail::impl_of(ctx);
    const auto section = impl.reading();
    const detail::CallConfig cfg = impl.config();
    GroupedSetup s;
    if (const Status st = prepare(call, options, impl, cfg, s); st != Status::Ok) return st;
    if (s.g.routed == 0 && s.g.scatter == nullptr) return Status::Ok;
    const double busiest =
        s.core_us.empty() ? 0.0 : *std::max_element(s.core_us.begin(), s.core_us.end());
    std::vector<double> measured(static_cast<std::size_t>(s.cores), 0.0);
    const Status st = execute_grouped(
        s.g, s.units, s.cores, impl.kernels(cfg), detail::ContextImpl::wq_kernels(cfg),
        detail::ContextImpl::lowp_kernels(cfg, DType::Bf16), impl.pool(), busiest,
        schedule != nullptr ? measured.data() : nullptr);
    if (st == Status::Ok && schedule != nullptr) {
      fill_schedule(s, *schedule);
      schedule->core_measured_us = std::move(measured);
    }
    return st;
  } catch (...) {
    return exception_status(nullptr);
  }
}

Status explain_grouped(const GroupedGemm& call, GroupedSchedule& out, Context& ctx) noexcept {
  if (!ctx.usable()) return Status::OutOfMemory;
  try {
    detail::ContextImpl& impl = detail::impl_of(ctx);
    const auto section = impl.reading();
    GroupedSetup s;
    if (const Status st = prepare(call, CallOptions{}, impl, impl.config(), s); st != Status::Ok)
      return st;
    fill_schedule(s, out);
    return Status::Ok;
  } catch (...) {
    return exception_status(nullptr);
  }
}

}  // namespace adaptcore
