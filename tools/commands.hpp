// Each subcommand registers itself on the root app; its callback throws CLI::RuntimeError with a
// non-zero exit code on failure.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace adaptcore::cli {

void register_hw(CLI::App& app);              // cmd_hw.cpp
void register_explain(CLI::App& app);         // cmd_explain.cpp
void register_run(CLI::App& app);             // cmd_run.cpp
void register_peak(CLI::App& app);            // cmd_peak.cpp
void register_precompile(CLI::App& app);      // cmd_precompile.cpp
void register_validate_model(CLI::App& app);  // cmd_validate_model.cpp
void register_calibrate(CLI::App& app);       // cmd_calibrate.cpp
void register_bench(CLI::App& app);           // cmd_bench.cpp

// `explain --grouped` / `run --grouped` (cmd_grouped.cpp): a grouped (Mixture-of-Experts) call
// from a model of the moe suite and a routing, or from explicit expert row counts.
struct GroupedArgs {
  std::string model;  // empty: not a grouped call
  std::string half = "up";
  int64_t tokens = 16;
  std::string routing = "uniform";
  std::uint64_t seed = 1;
  std::string expert_rows;
};
struct ShapeArgs;
struct ContextArgs;
struct WqArgs;
void add_grouped_options(CLI::App& cmd, GroupedArgs& args);
// When the command was given --grouped: runs the grouped call and returns true (explain, run
// false: the schedule; run: times the call, with each core's measured time); dtype f32
// (prepacked experts) or w8a16 / w4a16 (quantized experts, wq's parts and group). Else false.
bool run_grouped_if_asked(const CLI::App& cmd, const GroupedArgs& args, const ShapeArgs& shape,
                          const ContextArgs& ctx, const std::string& dtype, const WqArgs& wq,
                          bool run, double seconds);
// The modeled NPU target, built with ADAPTCORE_TARGET_ASCEND (ADAPTCORE_WITH_ASCEND defined).
void register_plan_export(CLI::App& app);  // cmd_ascend.cpp (modeled NPU target)
void register_ascend_eval(CLI::App& app);  // cmd_ascend_eval.cpp (modeled NPU target)
// `explain --target ascend910b`: the NPU planner's class, candidates, predicted and simulated
// time (cmd_ascend.cpp).
void run_npu_explain(const std::string& target, const std::string& profile, int cores, int64_t m,
                     int64_t n, int64_t k, bool transa, bool transb, const std::string& dtype,
                     int top, bool json);

}  // namespace adaptcore::cli
