// `adaptcore ascend-eval`: the modeled NPU target over a benchmark suite (the 80,000-shape
// `full` sweep by default). Per shape: the planner's plan, its predicted time, its simulated
// time and legality, and the simulated time of a fixed-tiling baseline; on a sample of small
// shapes the data-mode simulation checks the results. Writes a JSON summary. Everything it
// reports is modeled or simulated: no Ascend device is involved.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "ascend_cli.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "model_validation.hpp"
#include "targets/ascend/candidates.hpp"
#include "targets/ascend/planner.hpp"
#include "targets/ascend/sim/simulator.hpp"

namespace adaptcore::cli {
namespace {

struct EvalArgs {
  NpuTargetArgs target;
  std::string suite = "full";
  std::uint64_t seed = 1;
  std::size_t limit = 0;
  std::string dtype = "fp16";
  int threads = 2;
  std::size_t data_sample = 200;
  int64_t data_max = 512;
  std::string out;
};

struct ShapeOutcome {
  double predicted_us = 0, simulated_us = 0, baseline_us = 0;
  bool legal = false, baseline_legal = false;
  std::string error, cls;
};

nlohmann::ordered_json distribution(const std::vector<double>& v) {
  using validation::quantile;
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return {{"count", v.size()},
          {"geomean", v.empty() ? 0.0 : std::exp(log_sum / static_cast<double>(v.size()))},
          {"min", quantile(v, 0)},
          {"p10", quantile(v, 0.1)},
          {"p25", quantile(v, 0.25)},
          {"median", quantile(v, 0.5)},
          {"p75", quantile(v, 0.75)},
          {"p90", quantile(v, 0.9)},
          {"max", quantile(v, 1)}};
}

void run_eval(const EvalArgs& a) {
  const ascend::AscendProfile hw = load_npu_profile(a.target);
  ascend::InDType dtype{};
  if (!ascend::parse_in_dtype(a.dtype, dtype)) {
    std::cerr << "error: --dtype must be fp16, bf16 or int8\n";
    throw CLI::RuntimeError(1);
  }
  std::vector<bench::SuiteShape> suite;
  try {
    suite = bench::load_suite(a.suite, "", a.seed);
  } catch (const std::exception& ex) {
    std::cerr << "error: " << ex.what() << '\n';
    throw CLI::RuntimeError(1);
  }
  if (a.limit > 0 && suite.size() > a.limit) suite.resize(a.limit);
  std::vector<ascend::AscendShape> shapes;
  for (const auto& ss : suite) shapes.push_back(npu_shape(ss, dtype));

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<ShapeOutcome> out(shapes.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < shapes.size(); i = next++) {
      const ascend::AscendShape& s = shapes[i];
      ShapeOutcome& o = out[i];
      const std::string bad = ascend::check_shape(s);
      if (!bad.empty()) {
        o.error = "shape: " + bad;
        continue;
      }
      const ascend::TilingPlan p = ascend::make_plan(s, hw);
      o.cls = ascend::to_string(p.cls);
      o.predicted_us = p.predicted_us;
      const auto r = ascend::sim::simulate(hw, s, p);
      o.legal = r.ok;
      o.simulated_us = r.total_us;
      o.error = r.error;
      const auto b = ascend::sim::simulate(hw, s, ascend::fixed_baseline(s, hw));
      o.baseline_legal = b.ok;
      o.baseline_us = b.total_us;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, a.threads); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  const double sweep_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Data mode on an evenly spread sample of the small shapes.
  std::vector<std::size_t> small;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    if (shapes[i].m <= a.data_max && shapes[i].n <= a.data_max && shapes[i].k <= a.data_max)
      small.push_back(i);
  std::vector<std::size_t> sample;
  const std::size_t want = std::min(a.data_sample, small.size());
  for (std::size_t j = 0; j < want; ++j) sample.push_back(small[j * small.size() / want]);
  std::vector<ascend::sim::SimResult> data(sample.size());
  next = 0;
  auto data_worker = [&] {
    for (std::size_t j = next++; j < sample.size(); j = next++) {
      const ascend::AscendShape& s = shapes[sample[j]];
      data[j] = ascend::sim::simulate(hw, s, ascend::make_plan(s, hw), {true, 1000 + j});
    }
  };
  const auto t1 = std::chrono::steady_clock::now();
  pool.clear();
  for (int t = 0; t < std::max(1, a.threads); ++t) pool.emplace_back(data_worker);
  for (auto& t : pool) t.join();
  const double data_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();

  // Statistics.
  std::vector<double> pred, simt, err, speedup;
  std::size_t illegal = 0, baseline_illegal = 0;
  nlohmann::ordered_json failures = nlohmann::ordered_json::array();
  std::map<std::string, std::vector<double>> by_class;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const ShapeOutcome& o = out[i];
    if (!o.legal) {
      ++illegal;
      if (failures.size() < 20)
        failures.push_back({{"shape", shapes[i].str()}, {"error", o.error}});
      continue;
    }
    pred.push_back(o.predicted_us);
    simt.push_back(o.simulated_us);
    err.push_back(std::fabs(o.predicted_us - o.simulated_us) / o.simulated_us);
    if (!o.baseline_legal) {
      ++baseline_illegal;
      continue;
    }
    speedup.push_back(o.baseline_us / o.simulated_us);
    by_class[o.cls].push_back(o.baseline_us / o.simulated_us);
  }
  std::size_t data_ok = 0;
  double worst = 0;
  nlohmann::ordered_json data_fail = nlohmann::ordered_json::array();
  for (std::size_t j = 0; j < data.size(); ++j) {
    if (data[j].ok)
      ++data_ok;
    else if (data_fail.size() < 20)
      data_fail.push_back({{"shape", shapes[sample[j]].str()}, {"error", data[j].error}});
    worst = std::max(worst, data[j].error_ratio);
  }
  std::size_t under = 0;
  for (std::size_t i = 0; i < pred.size(); ++i) under += pred[i] < simt[i] ? 1 : 0;

  nlohmann::ordered_json j;
  j["label"] =
      "modeled and simulated (no Ascend device): predicted = analytical model, "
      "simulated = instruction-level simulator";
  j["target"] = hw.name;
  j["ai_cores"] = hw.ai_cores;
  j["suite"] = a.suite;
  j["seed"] = a.seed;
  j["dtype"] = ascend::to_string(dtype);
  j["shapes"] = shapes.size();
  j["legal"] = shapes.size() - illegal;
  j["illegal"] = illegal;
  j["illegal_examples"] = failures;
  j["model_vs_simulator"] = {
      {"spearman", validation::spearman(pred, simt)},
      {"median_abs_rel_error", validation::quantile(err, 0.5)},
      {"p90_abs_rel_error", validation::quantile(err, 0.9)},
      {"share_predicted_below_simulated",
       pred.empty() ? 0.0 : static_cast<double>(under) / static_cast<double>(pred.size())}};
  j["speedup_vs_fixed_baseline"] = distribution(speedup);
  j["speedup_vs_fixed_baseline"]["share_at_least_1"] =
      speedup.empty() ? 0.0
                      : static_cast<double>(std::count_if(speedup.begin(), speedup.end(),
                                                          [](double x) { return x >= 1.0; })) /
                            static_cast<double>(speedup.size());
  j["speedup_vs_fixed_baseline"]["baseline_illegal"] = baseline_illegal;
  nlohmann::ordered_json classes;
  for (const auto& [name, v] : by_class) classes[name] = distribution(v);
  j["speedup_by_class"] = classes;
  j["data_check"] = {{"max_dim", a.data_max},
                     {"sampled", sample.size()},
                     {"passed", data_ok},
                     {"worst_error_over_bound", worst},
                     {"failures", data_fail}};
  j["seconds"] = {{"sweep", sweep_s}, {"data_check", data_s}, {"threads", a.threads}};
  const std::string text = j.dump(2);
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    f << text << '\n';
    if (!f) {
      std::cerr << "error: cannot write " << a.out << '\n';
      throw CLI::RuntimeError(1);
    }
  }
  std::cout << text << '\n';
  if (illegal > 0 || data_ok != sample.size()) throw CLI::RuntimeError(3);
}

}  // namespace

void register_ascend_eval(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ascend-eval",
      "modeled NPU target over a suite: model vs simulator, plans vs a fixed tiling (simulated)");
  add_npu_target_options(*cmd, a->target, true);
  cmd->add_option("--suite", a->suite, "suite name or file (default: full, 80,000 shapes)");
  cmd->add_option("--seed", a->seed, "seed of the generated suites");
  cmd->add_option("--limit", a->limit, "evaluate only the first N shapes (0: all)");
  cmd->add_option("--dtype", a->dtype, "input type: fp16 (default), bf16, int8");
  cmd->add_option("-t,--threads", a->threads, "worker threads")->check(CLI::Range(1, 256));
  cmd->add_option("--data-sample", a->data_sample,
                  "shapes checked in data mode (real arithmetic vs a reference)");
  cmd->add_option("--data-max", a->data_max, "largest M, N and K of the data-mode sample")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--out", a->out, "write the JSON summary here too");
  cmd->callback([a] { run_eval(*a); });
}

}  // namespace adaptcore::cli
