// The modeled Ascend NPU target on the command line: `explain --target ascend910b` (class,
// candidates, predicted and simulated time) and `plan-export` (per-shape tilings as JSON in
// TCubeTiling's field names). Everything printed is modeled or simulated, never measured.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "ascend_cli.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "targets/ascend/plan_export.hpp"
#include "targets/ascend/planner.hpp"
#include "targets/ascend/sim/simulator.hpp"

namespace adaptcore::cli {

void run_npu_explain(const std::string& target, const std::string& profile, int cores, int64_t m,
                     int64_t n, int64_t k, bool transa, bool transb, const std::string& dtype,
                     int top, bool json) {
  NpuTargetArgs t{target, profile, cores};
  const ascend::AscendProfile hw = load_npu_profile(t);
  ascend::AscendShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.trans_a = transa;
  s.trans_b = transb;
  if (!ascend::parse_in_dtype(dtype == "f32" ? "fp16" : dtype, s.dtype)) {
    std::cerr << "error: the NPU target takes --dtype fp16, bf16 or int8\n";
    throw CLI::RuntimeError(1);
  }
  const std::string bad = ascend::check_shape(s);
  if (!bad.empty()) {
    std::cerr << "error: invalid shape: " << bad << '\n';
    throw CLI::RuntimeError(1);
  }
  const ascend::NpuExplanation e = ascend::explain_plan(s, hw);
  if (e.candidates.empty()) {
    std::cerr << "error: no candidate fits the profile's buffers\n";
    throw CLI::RuntimeError(2);
  }
  std::vector<std::size_t> order(e.candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return e.candidates[a].cost.total_us < e.candidates[b].cost.total_us;
  });
  const std::size_t shown = top > 0 ? std::min(order.size(), static_cast<std::size_t>(top))
                                    : std::min<std::size_t>(order.size(), 20);
  // Simulate the shown candidates (timing mode: legality + the simulator's own timeline).
  std::vector<ascend::sim::SimResult> sims(shown);
  for (std::size_t r = 0; r < shown; ++r)
    sims[r] = ascend::sim::simulate(hw, s, e.candidates[order[r]].plan);
  const ascend::TilingPlan& chosen = e.candidates[e.chosen].plan;
  const ascend::sim::SimResult chosen_sim = ascend::sim::simulate(hw, s, chosen);
  const double peak =
      hw.peak_tflops(s.dtype == ascend::InDType::Int8 ? hw.cube_k_int8 : hw.cube_k_fp16);
  auto tflops = [&](double us) { return us > 0 ? s.flops() / (us * 1e6) : 0.0; };

  if (json) {
    nlohmann::ordered_json j;
    j["modeled"] = true;
    j["target"] = hw.name;
    j["ai_cores"] = hw.ai_cores;
    j["shape"] = ascend::shape_json(s);
    j["class"] = ascend::to_string(e.cls);
    j["candidates_total"] = e.candidates.size();
    nlohmann::ordered_json cands = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < shown; ++r) {
      const auto& c = e.candidates[order[r]];
      cands.push_back({{"rank", r + 1},
                       {"chosen", order[r] == e.chosen},
                       {"plan", ascend::describe(c.plan)},
                       {"predicted_us", c.cost.total_us},
                       {"simulated_us", sims[r].ok ? sims[r].total_us : -1.0},
                       {"simulator_error", sims[r].error},
                       {"bound", c.cost.bound}});
    }
    j["candidates"] = cands;
    j["chosen"] = ascend::plan_json(s, chosen);
    j["chosen"]["simulated_us"] = chosen_sim.ok ? chosen_sim.total_us : -1.0;
    j["chosen"]["simulator_error"] = chosen_sim.error;
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::cout << "target      " << hw.name << " (modeled: " << hw.ai_cores << " AI cores, "
            << format_fixed(hw.freq_ghz, 2) << " GHz, cube peak " << format_fixed(peak, 1)
            << " TFLOP/s; profile " << hw.source << ")\n"
            << "shape       " << s.str() << ", " << format_fixed(s.flops() * 1e-9, 3) << " GFLOP\n"
            << "class       " << ascend::to_string(e.cls) << "  (capacity x parallelism)\n"
            << "candidates  " << e.candidates.size() << ", best " << shown
            << " shown, sorted by predicted time; * = chosen\n\n";
  std::size_t w = 4;
  for (std::size_t r = 0; r < shown; ++r)
    w = std::max(w, ascend::describe(e.candidates[order[r]].plan).size());
  std::cout << "      #  " << std::left << std::setw(static_cast<int>(w)) << "plan" << std::right
            << std::setw(14) << "predicted_us" << std::setw(14) << "simulated_us" << std::setw(9)
            << "TFLOP/s"
            << "  bound\n";
  for (std::size_t r = 0; r < shown; ++r) {
    const auto& c = e.candidates[order[r]];
    std::cout << (order[r] == e.chosen ? "  * " : "    ") << std::setw(3) << r + 1 << "  "
              << std::left << std::setw(static_cast<int>(w)) << ascend::describe(c.plan)
              << std::right << std::setw(14) << format_fixed(c.cost.total_us, 2) << std::setw(14)
              << (sims[r].ok ? format_fixed(sims[r].total_us, 2) : std::string("illegal"))
              << std::setw(9) << format_fixed(tflops(c.cost.total_us), 1) << "  " << c.cost.bound
              << (sims[r].ok ? "" : "  (" + sims[r].error + ")") << '\n';
  }
  std::cout << "\nchosen plan: " << ascend::describe(chosen) << "\n  modeled   "
            << format_fixed(e.candidates[e.chosen].cost.total_us, 2) << " us ("
            << format_fixed(tflops(e.candidates[e.chosen].cost.total_us), 1) << " TFLOP/s)\n"
            << "  simulated "
            << (chosen_sim.ok ? format_fixed(chosen_sim.total_us, 2) + " us (" +
                                    format_fixed(tflops(chosen_sim.total_us), 1) + " TFLOP/s)"
                              : "rejected: " + chosen_sim.error)
            << '\n';
}

namespace {

struct ExportArgs {
  NpuTargetArgs target;
  std::string shapes;
  std::string out;
  std::string dtype = "fp16";
};

void run_plan_export(const ExportArgs& a) {
  const ascend::AscendProfile hw = load_npu_profile(a.target);
  ascend::InDType dtype{};
  if (!ascend::parse_in_dtype(a.dtype, dtype)) {
    std::cerr << "error: --dtype must be fp16, bf16 or int8\n";
    throw CLI::RuntimeError(1);
  }
  std::vector<bench::SuiteShape> shapes;
  try {
    shapes = bench::load_suite(a.shapes, "");
  } catch (const std::exception& ex) {
    std::cerr << "error: " << ex.what() << '\n';
    throw CLI::RuntimeError(1);
  }
  nlohmann::ordered_json j = ascend::export_header(hw);
  nlohmann::ordered_json plans = nlohmann::ordered_json::array();
  for (const auto& ss : shapes) {
    const ascend::AscendShape s = npu_shape(ss, dtype);
    const std::string bad = ascend::check_shape(s);
    if (!bad.empty()) {
      std::cerr << "error: " << s.str() << ": " << bad << '\n';
      throw CLI::RuntimeError(1);
    }
    plans.push_back(ascend::plan_json(s, ascend::make_plan(s, hw)));
  }
  j["plans"] = plans;
  std::ofstream out(a.out);
  out << j.dump(2) << '\n';
  if (!out) {
    std::cerr << "error: cannot write " << a.out << '\n';
    throw CLI::RuntimeError(1);
  }
  std::cout << "wrote " << shapes.size() << " modeled plans for " << hw.name << " to " << a.out
            << '\n';
}

}  // namespace

void register_plan_export(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan-export", "write the NPU planner's tilings for a shape list as JSON (modeled)");
  add_npu_target_options(*cmd, a->target, true);
  cmd->add_option("--shapes", a->shapes, "shape list: a suite name or a suite file")->required();
  cmd->add_option("--out", a->out, "output JSON file")->required();
  cmd->add_option("--dtype", a->dtype, "input type: fp16 (default), bf16, int8");
  cmd->callback([a] { run_plan_export(*a); });
}

}  // namespace adaptcore::cli
