// Each subcommand registers itself on the root app; its callback throws CLI::RuntimeError with a
// non-zero exit code on failure.
#pragma once

#include <CLI/CLI.hpp>

namespace adaptcore::cli {

void register_hw(CLI::App& app);       // cmd_hw.cpp
void register_explain(CLI::App& app);  // cmd_explain.cpp
void register_run(CLI::App& app);      // cmd_run.cpp
void register_peak(CLI::App& app);     // cmd_peak.cpp
void register_precompile(CLI::App& app);  // cmd_precompile.cpp
void register_validate_model(CLI::App& app);  // cmd_validate_model.cpp
void register_calibrate(CLI::App& app);  // cmd_calibrate.cpp
void register_bench(CLI::App& app);      // cmd_bench.cpp

}  // namespace adaptcore::cli
