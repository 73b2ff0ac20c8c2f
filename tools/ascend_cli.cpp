#include "ascend_cli.hpp"

#include <iostream>

namespace adaptcore::cli {

void add_npu_target_options(CLI::App& cmd, NpuTargetArgs& args, bool target_required) {
  auto* t = cmd.add_option("--target", args.target,
                           "modeled NPU target: ascend910b (plans are modeled and simulated, "
                           "never run on a device)");
  if (target_required) t->capture_default_str();
  cmd.add_option("--npu-profile", args.profile,
                 "JSON file overriding fields of the target's built-in profile");
  cmd.add_option("--cores", args.cores, "AI cores of the modeled device (default: the profile's)")
      ->check(CLI::Range(1, 1024));
}

ascend::AscendProfile load_npu_profile(const NpuTargetArgs& args) {
  ascend::AscendProfile hw;
  if (!ascend::builtin_profile(args.target, hw)) {
    std::cerr << "error: unknown target '" << args.target << "' (known: ascend910b)\n";
    throw CLI::RuntimeError(1);
  }
  if (!args.profile.empty()) {
    std::string err;
    if (ascend::load_profile_file(args.profile, hw, hw, &err) != Status::Ok) {
      std::cerr << "error: NPU profile " << args.profile << ": " << err << '\n';
      throw CLI::RuntimeError(1);
    }
  }
  if (args.cores > 0) hw.ai_cores = args.cores;
  return hw;
}

ascend::AscendShape npu_shape(const bench::SuiteShape& s, ascend::InDType dtype) {
  ascend::AscendShape a;
  a.m = s.m;
  a.n = s.n;
  a.k = s.k;
  a.trans_a = s.trans_a;
  a.trans_b = s.trans_b;
  a.lda = s.lda;
  a.ldb = s.ldb;
  a.dtype = dtype;
  return a;
}

}  // namespace adaptcore::cli
