// `adaptcore peak`: measured fp32 arithmetic peak per ISA path at 1..T threads (all threads
// running the probe at once, pinned one per CPU), and the peaks of the bf16 and int8
// dot-product instructions (vdpbf16ps, vpdpbusd) that the low-precision GEMMs run on.
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_common.hpp"
#include "commands.hpp"
#include "measure/peak_probe.hpp"

namespace adaptcore::cli {
namespace {

struct PeakArgs {
  int threads = 0;  // 0: all CPUs this process may use
  double seconds = 0.05;
  int trials = 3;
  bool json = false;
};

void run_peak(const PeakArgs& args) {
  using namespace adaptcore::measure;
  const int cpus = static_cast<int>(allowed_cpus().size());
  const int max_t = args.threads > 0 ? args.threads : std::max(1, cpus);
  const HardwareProfile& hw = detected_hardware();
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  if (!args.json)
    std::cout << "measured peak, GFLOP/s (fp32 FMA paths) or GOP/s (bf16/int8 dot paths; a "
                 "multiply-add is 2 ops) (best of "
              << args.trials << " x " << format_fixed(args.seconds * 1e3, 0) << " ms; clock probe "
              << format_fixed(hw.freq_ghz, 2) << " GHz)\n"
              << "path         threads    total  per-thread  flops/cycle/core   nominal\n";
  for (FmaPath p :
       {FmaPath::Avx512, FmaPath::Avx2, FmaPath::Sse, FmaPath::Bf16Dot, FmaPath::Int8Dot}) {
    if (!path_supported(p)) {
      if (!args.json) std::cout << to_string(p) << "   not supported by this CPU\n";
      continue;
    }
    const bool dot = p == FmaPath::Bf16Dot || p == FmaPath::Int8Dot;
    const Isa isa = p == FmaPath::Avx512 || dot ? Isa::Avx512
                    : p == FmaPath::Avx2        ? Isa::Avx2
                                                : Isa::Generic;
    // A dot instruction does 2 (bf16) or 4 (int8) multiply-adds per lane where an FMA does 1.
    const double work = p == FmaPath::Bf16Dot ? 2.0 : p == FmaPath::Int8Dot ? 4.0 : 1.0;
    for (int t = 1; t <= max_t; ++t) {
      const PeakResult r = measure_peak(p, t, args.seconds, args.trials);
      const double per_thread = r.gflops / t;
      const double per_cycle = per_thread / std::max(hw.freq_ghz, 1e-9);
      const double nominal = work * hw.peak_gflops_per_core(isa) * std::min(t, hw.cores);
      if (args.json) {
        j.push_back({{"path", to_string(p)},
                     {"threads", t},
                     {"gflops", r.gflops},
                     {"gflops_per_thread", per_thread},
                     {"flops_per_cycle_per_core", per_cycle},
                     {"nominal_gflops", nominal},
                     {"cpus", r.cpus}});
      } else {
        std::cout << std::left << std::setw(12) << to_string(p) << std::right << std::setw(8) << t
                  << std::setw(9) << format_fixed(r.gflops, 1) << std::setw(12)
                  << format_fixed(per_thread, 1) << std::setw(19) << format_fixed(per_cycle, 1)
                  << std::setw(10) << format_fixed(nominal, 1) << '\n';
      }
    }
  }
  if (args.json) {
    std::cout << j.dump(2) << '\n';
  } else if (max_t > cpus) {
    std::cout << "note: " << max_t << " threads on " << cpus
              << " CPUs share cores; totals above the CPU count do not grow\n";
  }
}

}  // namespace

void register_peak(CLI::App& app) {
  auto args = std::make_shared<PeakArgs>();
  CLI::App* cmd = app.add_subcommand(
      "peak", "measure the fp32 FMA and bf16/int8 dot-product peaks per thread count");
  cmd->add_option("-t,--threads", args->threads, "largest thread count (default: all CPUs)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--seconds", args->seconds, "timed window per trial (default 0.05)");
  cmd->add_option("--trials", args->trials, "trials per point, best kept (default 3)")
      ->check(CLI::Range(1, 100));
  cmd->add_flag("--json", args->json, "machine-readable output");
  cmd->callback([args] { run_peak(*args); });
}

}  // namespace adaptcore::cli
