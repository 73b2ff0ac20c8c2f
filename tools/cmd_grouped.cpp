// `adaptcore explain --grouped` / `adaptcore run --grouped`: a grouped (Mixture-of-Experts) call,
// from a model of the moe suite with a routing of its tokens, or from explicit expert row
// counts; explain prints the schedule (units per core with their plans, predicted core times),
// run times the call and adds each core's measured time.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "commands.hpp"
#include "harness/moe_routing.hpp"
#include "harness/runner_moe.hpp"
#include "measure/bench_util.hpp"

namespace adaptcore::cli {
namespace {

namespace am = adaptcore::measure;
namespace ab = adaptcore::bench;

// The call's operands: experts packed once, inputs, outputs and the routing.
struct GroupedSetup {
  std::string title;
  int64_t k = 0, n = 0;
  ab::MoeRouting route;
  bool gather = false, scatter = false;
  int64_t tokens = 0;
  std::vector<PackedWeights> packed;
  std::vector<const PackedWeights*> handles;
  std::vector<QuantizedWeights> quantized;  // --dtype w8a16 / w4a16
  std::vector<bf16> in16;                   // --dtype bf16: the activations
  std::vector<const QuantizedWeights*> qhandles;
  double weight_bytes = 0.0;
  am::FloatBuffer in, out;
  GroupedGemm call;
};

std::vector<int64_t> parse_rows(const std::string& text) {
  std::vector<int64_t> rows;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) rows.push_back(std::stoll(item));
  return rows;
}

std::vector<bf16> to_bf16(const float* x, std::size_t count) {
  std::vector<bf16> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = bf16(x[i]);
  return out;
}

std::unique_ptr<GroupedSetup> make_setup(const GroupedArgs& g, const ShapeArgs& shape,
                                         const std::string& dtype_name, const WqArgs& wq,
                                         Context& ctx) {
  DType dtype = DType::F32;
  if (!parse_dtype(dtype_name, dtype) ||
      (dtype != DType::F32 && dtype != DType::Bf16 && !is_weight_quantized(dtype)))
    throw std::runtime_error("--grouped takes --dtype f32, bf16, w8a16 or w4a16");
  auto s = std::make_unique<GroupedSetup>();
  if (!g.expert_rows.empty()) {
    s->route.expert_rows = parse_rows(g.expert_rows);
    int64_t routed = 0;
    for (const int64_t m : s->route.expert_rows) routed += std::max<int64_t>(m, 0);
    s->route.token.resize(static_cast<std::size_t>(routed));
    s->route.weight.assign(static_cast<std::size_t>(routed), 1.0f);
    s->k = shape.k, s->n = shape.n;
    s->tokens = routed;
    s->title = std::to_string(s->route.expert_rows.size()) + " experts, " + std::to_string(s->k) +
               " -> " + std::to_string(s->n) + ", rows " + g.expert_rows;
  } else {
    const auto& models = ab::moe_models();
    const auto it = std::find_if(models.begin(), models.end(),
                                 [&](const ab::MoeModel& m) { return m.name == g.model; });
    if (it == models.end()) throw std::runtime_error("unknown model " + g.model);
    ab::Routing routing{};
    if (!ab::parse_routing(g.routing, routing))
      throw std::runtime_error("unknown routing " + g.routing);
    const bool up = g.half == "up";
    s->k = up ? it->hidden : it->ffn, s->n = up ? it->ffn : it->hidden;
    s->tokens = g.tokens;
    s->route = ab::route_tokens(*it, g.tokens, routing, g.seed);
    s->gather = up, s->scatter = !up;
    s->title = it->name + " " + g.half + " (" + std::to_string(s->k) + " -> " +
               std::to_string(s->n) + "), " + std::to_string(g.tokens) + " tokens, top-" +
               std::to_string(it->top_k) + " of " + std::to_string(it->experts) + ", " + g.routing +
               " routing";
  }
  const auto experts = s->route.expert_rows.size();
  const bool quantized = is_weight_quantized(dtype), half = dtype == DType::Bf16;
  const WeightQuantSpec spec{dtype == DType::W4A16 ? WeightFormat::Int4 : WeightFormat::Int8,
                             quantized ? wq_effective_group(dtype, wq) : 0};
  s->packed.resize(experts);
  s->quantized.resize(experts);
  for (std::size_t e = 0; e < experts; ++e) {
    s->handles.push_back(nullptr);
    s->qhandles.push_back(nullptr);
    if (s->route.expert_rows[e] <= 0) continue;
    am::FloatBuffer w = am::make_buffer(static_cast<std::size_t>(s->k * s->n));
    am::fill_uniform(w.get(), static_cast<std::size_t>(s->k * s->n), e + 1);
    Status st;
    if (quantized) {
      st = quantize_weights(Layout::RowMajor, Trans::No, s->k, s->n, w.get(), s->n, spec,
                            s->quantized[e], ctx);
    } else if (half) {
      const std::vector<bf16> w16 = to_bf16(w.get(), static_cast<std::size_t>(s->k * s->n));
      st = pack_weights(Layout::RowMajor, Trans::No, s->k, s->n, w16.data(), s->n, s->packed[e], {},
                        ctx);
    } else {
      st = pack_weights(Layout::RowMajor, Trans::No, s->k, s->n, w.get(), s->n, s->packed[e], {},
                        ctx);
    }
    if (st != Status::Ok) throw std::runtime_error(std::string("packing: ") + to_string(st));
    if (quantized) {
      s->qhandles.back() = &s->quantized[e];
      s->weight_bytes += static_cast<double>(s->quantized[e].packed_bytes());
    } else {
      s->handles.back() = &s->packed[e];
      s->weight_bytes += static_cast<double>(s->packed[e].packed_bytes());
    }
  }
  s->title += std::string(", ") + to_string(dtype);
  const int64_t routed = s->route.routed();
  const int64_t in_rows = s->gather ? s->tokens : routed;
  const int64_t out_rows = s->scatter ? s->tokens : routed;
  s->in = am::make_buffer(static_cast<std::size_t>(std::max<int64_t>(in_rows, 1) * s->k));
  am::fill_uniform(s->in.get(), static_cast<std::size_t>(std::max<int64_t>(in_rows, 1) * s->k), 99);
  s->out = am::make_buffer(static_cast<std::size_t>(std::max<int64_t>(out_rows, 1) * s->n));
  GroupedGemm& c = s->call;
  c.experts = static_cast<int64_t>(experts);
  c.expert_rows = s->route.expert_rows.data();
  c.weights = quantized ? nullptr : s->handles.data();
  c.quantized_weights = quantized ? s->qhandles.data() : nullptr;
  c.parts = wq.parts == 1 ? ActivationParts::One : ActivationParts::Two;
  c.k = s->k, c.n = s->n;
  c.a = s->in.get(), c.lda = s->k, c.a_rows = in_rows;
  if (half) {  // bf16 activations
    s->in16 = to_bf16(s->in.get(), static_cast<std::size_t>(std::max<int64_t>(in_rows, 1) * s->k));
    c.a = nullptr, c.a_bf16 = s->in16.data();
  }
  c.gather = s->gather ? s->route.token.data() : nullptr;
  c.c = s->out.get(), c.ldc = s->n, c.c_rows = out_rows;
  c.scatter = s->scatter ? s->route.token.data() : nullptr;
  c.scatter_weights = s->scatter ? s->route.weight.data() : nullptr;
  return s;
}

void print_schedule(const GroupedSetup& s, const GroupedSchedule& sched, bool measured) {
  int64_t active = 0;
  for (const int64_t m : s.route.expert_rows) active += m > 0 ? 1 : 0;
  std::cout << "grouped      " << s.title << "\n"
            << "             " << s.route.routed() << " routed rows over " << active
            << " active experts, " << sched.units.size() << " units on " << sched.threads << " core"
            << (sched.threads == 1 ? "" : "s") << "\n";
  for (int core = 0; core < sched.threads; ++core) {
    const double p = sched.core_predicted_us[static_cast<std::size_t>(core)];
    std::cout << "core " << core << "       predicted " << format_fixed(p, 1) << " us";
    if (measured) {
      const double m = sched.core_measured_us[static_cast<std::size_t>(core)];
      std::cout << ", measured " << format_fixed(m, 1) << " us";
    }
    std::cout << "\n";
    for (const auto& u : sched.units)
      if (u.core == core)
        std::cout << "  expert " << std::setw(4) << u.expert << "  " << std::setw(5) << u.rows
                  << " rows  cols [" << u.col0 << ", " << u.col0 + u.cols << ")  "
                  << format_fixed(u.predicted_us, 1) << " us  " << u.plan << "\n";
  }
  std::cout << "spread       predicted "
            << format_fixed(100.0 * ab::core_spread(sched.core_predicted_us), 1)
            << "% (busiest core over the mean)";
  if (measured)
    std::cout << ", measured " << format_fixed(100.0 * ab::core_spread(sched.core_measured_us), 1)
              << "%";
  std::cout << "\n";
}

}  // namespace

void add_grouped_options(CLI::App& cmd, GroupedArgs& args) {
  cmd.add_option("--grouped", args.model,
                 "a grouped (Mixture-of-Experts) call of a model's expert FFN half: "
                 "mixtral-8x7b, deepseek-v2-lite, qwen3-30b-a3b; or 'custom' with --expert-rows, "
                 "--n and --k");
  cmd.add_option("--half", args.half,
                 "grouped: up (hidden -> ffn, tokens gathered) or down "
                 "(ffn -> hidden, weighted scatter into the tokens)")
      ->check(CLI::IsMember({"up", "down"}))
      ->capture_default_str();
  cmd.add_option("--tokens", args.tokens, "grouped: tokens of the step")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 24))
      ->capture_default_str();
  cmd.add_option("--routing", args.routing, "grouped: uniform, zipf or hot")
      ->check(CLI::IsMember({"uniform", "zipf", "hot"}))
      ->capture_default_str();
  cmd.add_option("--seed", args.seed, "grouped: routing seed")->capture_default_str();
  cmd.add_option("--expert-rows", args.expert_rows,
                 "grouped custom: rows of each expert, comma-separated (e.g. 5,0,300)");
}

bool run_grouped_if_asked(const CLI::App& cmd, const GroupedArgs& g, const ShapeArgs& shape,
                          const ContextArgs& ctx_args, const std::string& dtype, const WqArgs& wq,
                          bool run, double seconds) {
  if (g.model.empty()) return false;
  if (g.model == "custom") require_shape(cmd, false);
  auto ctx = make_context(ctx_args);
  if (!ctx) throw CLI::RuntimeError(1);
  const auto s = make_setup(g, shape, dtype, wq, *ctx);
  if (!run) {
    GroupedSchedule sched;
    const Status st = explain_grouped(s->call, sched, *ctx);
    if (st != Status::Ok)
      throw std::runtime_error(std::string("explain_grouped: ") + to_string(st));
    print_schedule(*s, sched, false);
    return true;
  }
  auto call = [&] {
    const Status st = gemm_grouped(s->call, {}, *ctx);
    if (st != Status::Ok) throw std::runtime_error(std::string("gemm_grouped: ") + to_string(st));
  };
  const double first = am::time_once(call);
  std::vector<double> t;
  const double start = am::now_seconds();
  while ((am::now_seconds() - start < seconds || t.size() < 5) && t.size() < 10000)
    t.push_back(am::time_once(call));
  GroupedSchedule sched;
  std::vector<std::vector<double>> cores;
  for (int rep = 0; rep < 7; ++rep) {
    if (gemm_grouped(s->call, {}, *ctx, &sched) != Status::Ok) break;
    cores.resize(sched.core_measured_us.size());
    for (std::size_t c = 0; c < cores.size(); ++c) cores[c].push_back(sched.core_measured_us[c]);
  }
  for (std::size_t c = 0; c < cores.size(); ++c) sched.core_measured_us[c] = am::median(cores[c]);
  print_schedule(*s, sched, true);
  const double med = am::median(t);
  const double flops = 2.0 * static_cast<double>(s->route.routed()) * static_cast<double>(s->k) *
                       static_cast<double>(s->n);
  const double bytes = s->weight_bytes;
  std::cout << "first call   " << format_fixed(first * 1e6, 1) << " us (includes planning)\n"
            << "time         median " << format_fixed(med * 1e6, 1) << " us over " << t.size()
            << " calls: " << format_fixed(flops / med / 1e9, 1) << " GFLOP/s, weights "
            << format_fixed(bytes / med / 1e9, 1) << " GB/s\n";
  return true;
}

}  // namespace adaptcore::cli
