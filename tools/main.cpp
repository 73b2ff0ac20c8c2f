// `adaptcore`: inspect the hardware profile, explain the planner's choice for a shape, time a
// GEMM, and measure the machine's fp32 peak.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "adaptcore/adaptcore.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"adaptcore: GEMM for dynamic shapes (version " + std::string(adaptcore::version()) +
               ")"};
  app.set_version_flag("--version", std::string(adaptcore::version()));
  app.require_subcommand(1);
  adaptcore::cli::register_hw(app);
  adaptcore::cli::register_explain(app);
  adaptcore::cli::register_run(app);
  adaptcore::cli::register_peak(app);
  adaptcore::cli::register_precompile(app);
  adaptcore::cli::register_validate_model(app);
  adaptcore::cli::register_calibrate(app);
  adaptcore::cli::register_bench(app);
#ifdef ADAPTCORE_WITH_ASCEND
  adaptcore::cli::register_plan_export(app);
  adaptcore::cli::register_ascend_eval(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
