// Shared by the Ascend (modeled NPU) subcommands: the --target / --npu-profile / --cores
// options and the conversion of benchmark-suite shapes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "harness/suites.hpp"
#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"

namespace adaptcore::cli {

struct NpuTargetArgs {
  std::string target = "ascend910b";
  std::string profile;  // JSON overriding the built-in profile's fields
  int cores = 0;        // 0: the profile's
};
void add_npu_target_options(CLI::App& cmd, NpuTargetArgs& args, bool target_required);
// The profile of the target; prints the reason and throws CLI::RuntimeError if it cannot load.
ascend::AscendProfile load_npu_profile(const NpuTargetArgs& args);
ascend::AscendShape npu_shape(const bench::SuiteShape& s, ascend::InDType dtype);

}  // namespace adaptcore::cli
