// `adaptcore explain`: what the planner sees for a shape and why it picks its plan: the
// taxonomy class, every candidate with the model's predicted cost terms, and the choice.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "core/packed_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/packed_planning.hpp"
#include "planner/planner.hpp"

namespace adaptcore::cli {
namespace {

struct ExplainArgs {
  ContextArgs ctx;
  ShapeArgs shape;
  std::string dtype = "f32";
  WqArgs wq;
  int top = 0;
  bool json = false;
  bool cold = false;    // plan for operands in memory (ShapeKey::cold)
  bool packed = false;  // B prepacked (pack_weights with its default rows)
  GroupedArgs grouped;
  // A modeled NPU target instead of this CPU (cmd_ascend.cpp).
  std::string target;
  std::string npu_profile;
  int npu_cores = 0;
};

nlohmann::ordered_json plan_json(const Plan& p) {
  nlohmann::ordered_json j;
  j["describe"] = describe(p);
  j["isa"] = to_string(p.isa);
  j["tile"] = p.tile;
  j["mr"] = p.mr;
  j["nr"] = p.nr;
  j["pack_a"] = p.pack_a;
  j["pack_b"] = p.pack_b;
  j["mc"] = p.mc;
  j["nc"] = p.nc;
  j["kc"] = p.kc;
  j["grid"] = {p.pm, p.pn, p.pk};
  j["threads"] = p.threads();
  j["tail"] = to_string(p.tail);
  return j;
}

nlohmann::ordered_json cost_json(const CostBreakdown& c) {
  nlohmann::ordered_json j;
  j["total_us"] = c.total_us;
  j["compute_us"] = c.compute_us;
  j["memory_us"] = c.memory_us;
  j["pack_us"] = c.pack_us;
  j["sync_us"] = c.sync_us;
  j["bound"] = c.bound;
  return j;
}

void run_explain(const ExplainArgs& args) {
  const ShapeArgs& s = args.shape;
  GemmProblem prob;
  const Status st = shape_problem(s, prob);
  if (st != Status::Ok) {
    std::cerr << "error: invalid shape: " << to_string(st) << '\n';
    throw CLI::RuntimeError(1);
  }
  if (prob.m == 0 || prob.n == 0 || prob.k == 0) {
    std::cerr << "no plan: with m, n or k equal to 0 the call only scales C (or returns); the "
                 "planner is not consulted\n";
    throw CLI::RuntimeError(1);
  }
  auto ctx = make_context(args.ctx);
  if (!ctx) throw CLI::RuntimeError(1);
  detail::ContextImpl& impl = ::adaptcore::detail::impl_of(*ctx);
  DType dtype = DType::F32;
  parse_dtype(args.dtype, dtype);
  ShapeKey key = impl.key_for(prob, args.cold);
  std::string kernel_name = "fp32";
  if (is_weight_quantized(dtype)) {
    // Weight-quantized: op(W) is k x n packed once; the key carries format, parts and group.
    dtype = wq_effective_dtype(dtype, args.wq);
    key = make_wq_shape_key(s.m, s.n, s.k, dtype, wq_effective_group(dtype, args.wq),
                            args.wq.bf16_activations, impl.isa(), impl.threads());
    kernel_name = impl.wq_kernels(key.isa).name;
  } else if (dtype != DType::F32) {
    // Low precision: the same shape as the kernels of that type see it (element sizes change
    // the key's leading-dimension classes and the plan's capacities).
    LowpProblem lp;
    if (shape_problem_lowp(s, dtype, lp) != Status::Ok) throw CLI::RuntimeError(1);
    key = impl.key_for(lp, args.cold);
    kernel_name = impl.lowp_kernels(dtype, key.isa)->name;
  }
  // Prepacked weights: the panel width pack_weights would choose, and the plan of the same call
  // with B as stored (which packs or reads it on every call) for comparison.
  int panel_nr = 0;
  Plan per_call;
  if (args.packed) {
    if (dtype != DType::F32 && dtype != DType::Bf16 && dtype != DType::U8S8) {
      std::cerr << "error: --packed is for --dtype f32, bf16 or u8s8\n";
      throw CLI::RuntimeError(1);
    }
    per_call = impl.plan_for(key);
    if (dtype == DType::F32) {
      panel_nr = packed_panel_width(impl, s.k, s.n, {});
      key = impl.key_for(shape_problem_packed(s, panel_nr), args.cold);
    } else {
      panel_nr = packed_lowp_panel_width(impl, dtype, s.k, s.n, {});
      const LowpKind kind = dtype == DType::U8S8 ? LowpKind::U8S8S32 : LowpKind::Bf16F32;
      key = impl.key_for(
          packed_lowp_problem(kind, s.m, s.n, s.k, s.transa, s.lda(), s.ldc(), panel_nr),
          args.cold);
    }
  }
  const Explanation e = impl.explain(key);
  if (e.candidates.empty()) {
    std::cerr << "error: the planner produced no candidate for " << s.str() << '\n';
    throw CLI::RuntimeError(2);
  }
  // The plan a real call would run (planned through the cache): must be the explained choice.
  const Plan cached = impl.plan_for(key);
  const Plan& chosen = e.candidates[e.chosen].plan;
  const bool consistent = describe(cached) == describe(chosen);

  std::vector<std::size_t> order(e.candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return e.candidates[a].cost.total_us < e.candidates[b].cost.total_us;
  });
  const std::size_t shown =
      args.top > 0 ? std::min(order.size(), static_cast<std::size_t>(args.top)) : order.size();
  const double flops = s.flops();

  if (args.json) {
    nlohmann::ordered_json j;
    j["shape"] = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"transa", s.transa}, {"transb", s.transb}};
    j["key"] = {{"m", key.m},
                {"n", key.n},
                {"k", key.k},
                {"a_row_unit", key.a_row_unit},
                {"b_row_unit", key.b_row_unit},
                {"isa", to_string(key.isa)},
                {"threads", key.threads},
                {"dtype", to_string(key.dtype)}};
    j["kernels"] = kernel_name;
    j["class"] = {{"capacity", to_string(e.cls.capacity)},
                  {"parallel", to_string(e.cls.parallel)},
                  {"name", to_string(e.cls)}};
    nlohmann::ordered_json cands = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < shown; ++r) {
      const CandidateCost& c = e.candidates[order[r]];
      nlohmann::ordered_json cj;
      cj["rank"] = r + 1;
      cj["index"] = order[r];
      cj["chosen"] = order[r] == e.chosen;
      cj["plan"] = plan_json(c.plan);
      cj["cost"] = cost_json(c.cost);
      cj["predicted_gflops"] = c.cost.total_us > 0 ? flops / (c.cost.total_us * 1e3) : 0.0;
      cands.push_back(cj);
    }
    j["candidates_total"] = e.candidates.size();
    j["candidates"] = cands;
    j["chosen_index"] = e.chosen;
    j["chosen"] = plan_json(chosen);
    j["chosen"]["cost"] = cost_json(e.candidates[e.chosen].cost);
    j["cached_plan_matches"] = consistent;
    if (args.packed) {
      j["packed_panel_cols"] = panel_nr;
      j["unpacked_plan"] = plan_json(per_call);
      j["unpacked_predicted_us"] = per_call.predicted_us;
    }
    std::cout << j.dump(2) << '\n';
    return;
  }

  std::cout << "shape       " << s.str() << " (row-major" << (s.transa ? ", A stored k x m" : "")
            << (s.transb ? ", B stored n x k" : "") << "), " << format_fixed(flops * 1e-9, 3)
            << " GFLOP\n"
            << "normalised  m=" << key.m << " n=" << key.n << " k=" << key.k
            << " A:" << (key.a_row_unit ? "row-unit" : "col-unit")
            << " B:" << (key.b_row_unit ? "row-unit" : "strided") << '\n'
            << "context     isa=" << to_string(key.isa) << " threads=" << key.threads
            << " dtype=" << to_string(key.dtype) << " kernels=" << kernel_name
            << " profile=" << ctx->hardware().source << '\n'
            << "class       " << to_string(e.cls) << "  (capacity x parallelism)\n"
            << "candidates  " << e.candidates.size()
            << (shown < order.size() ? ", best " + std::to_string(shown) + " shown" : "")
            << ", sorted by predicted time; * = chosen\n\n";

  std::size_t w = 4;
  for (std::size_t r = 0; r < shown; ++r)
    w = std::max(w, describe(e.candidates[order[r]].plan).size());
  std::cout << "      #  " << std::left << std::setw(static_cast<int>(w)) << "plan" << std::right
            << std::setw(11) << "total_us" << std::setw(11) << "compute" << std::setw(10)
            << "memory" << std::setw(9) << "pack" << std::setw(8) << "sync" << std::setw(9)
            << "GFLOP/s"
            << "  bound\n";
  for (std::size_t r = 0; r < shown; ++r) {
    const CandidateCost& c = e.candidates[order[r]];
    const double gf = c.cost.total_us > 0 ? flops / (c.cost.total_us * 1e3) : 0.0;
    std::cout << (order[r] == e.chosen ? "  * " : "    ") << std::setw(3) << r + 1 << "  "
              << std::left << std::setw(static_cast<int>(w)) << describe(c.plan) << std::right
              << std::setw(11) << format_fixed(c.cost.total_us, 2) << std::setw(11)
              << format_fixed(c.cost.compute_us, 2) << std::setw(10)
              << format_fixed(c.cost.memory_us, 2) << std::setw(9)
              << format_fixed(c.cost.pack_us, 2) << std::setw(8) << format_fixed(c.cost.sync_us, 2)
              << std::setw(9) << format_fixed(gf, 1) << "  " << c.cost.bound << '\n';
  }
  const CostBreakdown& cc = e.candidates[e.chosen].cost;
  std::cout << "\nchosen plan: " << describe(chosen) << "  (predicted "
            << format_fixed(cc.total_us, 2) << " us, "
            << format_fixed(cc.total_us > 0 ? flops / (cc.total_us * 1e3) : 0.0, 1) << " GFLOP/s, "
            << cc.bound << "-bound)\n";
  if (args.packed)
    std::cout << "prepacked:  panels of " << panel_nr
              << " columns (pack_weights' default rows); the same call on B as stored: "
              << describe(per_call) << ", predicted " << format_fixed(per_call.predicted_us, 2)
              << " us\n";
  if (!consistent)
    std::cout << "warning: the plan cache would run a different plan: " << describe(cached) << '\n';
}

}  // namespace

void register_explain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd =
      app.add_subcommand("explain", "show the taxonomy class, candidates and the chosen plan");
  add_shape_options(*cmd, args->shape);
  add_context_options(*cmd, args->ctx);
  cmd->add_option("--dtype", args->dtype,
                  "element type: f32 (default), bf16, u8s8, w8a16, w4a16; with --target: fp16 "
                  "(default), bf16, int8")
      ->check(CLI::IsMember({"f32", "fp32", "bf16", "u8s8", "int8", "w8a16", "w4a16", "fp16"}));
  add_wq_options(*cmd, args->wq);
#ifdef ADAPTCORE_WITH_ASCEND
  cmd->add_option("--target", args->target,
                  "explain for a modeled NPU instead of this CPU: ascend910b");
  cmd->add_option("--npu-profile", args->npu_profile, "with --target: profile JSON overrides");
  cmd->add_option("--cores", args->npu_cores, "with --target: AI cores of the modeled device")
      ->check(CLI::Range(1, 1024));
#endif
  cmd->add_option("--top", args->top, "show only the best N candidates (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "machine-readable output");
  cmd->add_flag(
      "--packed", args->packed,
      "f32, bf16, u8s8: the call on weights prepacked by pack_weights (the panel width it would "
      "choose), with the plan on B as stored for comparison");
  add_grouped_options(*cmd, args->grouped);
  cmd->add_flag("--cold", args->cold,
                "plan for operands in memory (a call with other operands than the previous one; "
                "default: operands cached as far as they fit, a repeated call)");
  cmd->callback([args, cmd] {
    if (run_grouped_if_asked(*cmd, args->grouped, args->shape, args->ctx, args->dtype, args->wq,
                             false, 0.0))
      return;
    require_shape(*cmd);
#ifdef ADAPTCORE_WITH_ASCEND
    if (!args->target.empty()) {
      const ShapeArgs& s = args->shape;
      run_npu_explain(args->target, args->npu_profile, args->npu_cores, s.m, s.n, s.k, s.transa,
                      s.transb, args->dtype, args->top, args->json);
      return;
    }
#endif
    if (args->dtype == "fp16") {
      std::cerr << "error: --dtype fp16 is for NPU targets (--target); the CPU takes f32, "
                   "bf16, u8s8, w8a16, w4a16\n";
      throw CLI::RuntimeError(1);
    }
    run_explain(*args);
  });
}

}  // namespace adaptcore::cli
