// `adaptcore hw [--json]`: the hardware profile the planner uses, the active level and every
// level of the registry (built, runnable here, its kernel tables), the thread count and the
// nominal fp32 peak (from the profile, not measured: see `adaptcore peak`).
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "hw/amx_support.hpp"
#include "hw/cpu_identity.hpp"
#include "hw/shipped_profiles.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"

namespace adaptcore::cli {
namespace {

// A level's state here and the tables it runs: "runs here: fp32 avx512, bf16 avx512-bf16, ...".
std::string level_line(const HardwareProfile& hw, Isa level) {
  if (!kernels::built(level)) return "not built";
  std::string s = hw.supports(level) ? "runs here" : "built, this CPU lacks its features";
  // The tile unit also needs the process's permission (asked here as a bf16 / int8 call at the
  // level would ask it): refused, the level's calls run the level below.
  if (level == Isa::Amx && hw.supports(level) && !amx_support().usable())
    s = "built, the tile state not granted (" + amx_support().why + "; the level below serves)";
  s += ": fp32 " + std::string(to_string(kernels::kernels_for(level)->isa));
  s += ", bf16 " + std::string(kernels::lowp_kernels_for(DType::Bf16, level)->name);
  s += ", int8 " + std::string(kernels::lowp_kernels_for(DType::U8S8, level)->name);
  s += ", weight-quantized " + std::string(kernels::wq_kernels_for(level)->name);
  return s;
}

struct HwArgs {
  ContextArgs ctx;
  bool json = false;
};

void run_hw(const HwArgs& args) {
  auto ctx = make_context(args.ctx);
  if (!ctx) throw CLI::RuntimeError(1);
  const HardwareProfile& hw = ctx->hardware();
  const Isa isa = ctx->isa();
  const int threads = ctx->threads();
  const double per_core = hw.peak_gflops_per_core(isa);
  const double total = per_core * std::min(threads, hw.cores);
  const nlohmann::ordered_json profile = nlohmann::ordered_json::parse(to_json(hw));

  if (args.json) {
    nlohmann::ordered_json j;
    j["version"] = version();
    j["profile"] = profile;
    j["active_isa"] = to_string(isa);
    j["best_isa"] = to_string(hw.best_isa());
    j["threads"] = threads;
    j["peak_gflops_per_core"] = per_core;
    j["peak_gflops_total"] = total;
    nlohmann::ordered_json paths = nlohmann::ordered_json::object();
    nlohmann::ordered_json levels = nlohmann::ordered_json::object();
    for (const kernels::LatticeRow& row : kernels::lattice()) {
      if (hw.supports(row.id)) paths[row.name] = hw.peak_gflops_per_core(row.id);
      levels[row.name] = level_line(hw, row.id);
    }
    j["peak_gflops_per_core_by_isa"] = paths;
    j["levels"] = levels;
    j["cpu"] = to_string(cpu_identity());
    nlohmann::ordered_json shipped = nlohmann::ordered_json::array();
    for (const ShippedProfile& p : shipped_profiles()) shipped.push_back(p.file);
    j["shipped_profiles"] = shipped;
    std::cout << j.dump(2) << '\n';
    return;
  }

  std::cout << "adaptcore " << version() << "\n\nCPU            " << to_string(cpu_identity())
            << "\nshipped        ";
  const ShippedMatch match =
      match_shipped_profile(cpu_identity(), detected_hardware().features.has(Feature::Avx512F));
  bool any = false;
  for (const ShippedProfile& p : shipped_profiles()) {
    std::cout << (any ? ", " : "") << p.file
              << (&p == match.profile ? (match.exact ? " (this CPU's)" : " (nearest)") : "");
    any = true;
  }
  std::cout << "\n\nhardware profile (" << hw.source << ")\n";
  // Every field of the profile, in the JSON file's order and names, so this listing and a
  // profile file always agree.
  for (const auto& [key, value] : profile.items()) {
    std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
    if (key.size() > 6 && key.substr(key.size() - 6) == "_bytes" && value.is_number_integer())
      shown += " (" + format_bytes(value.get<int64_t>()) + ")";
    std::cout << "  " << key << std::string(key.size() < 22 ? 22 - key.size() : 1, ' ') << shown
              << '\n';
  }
  std::cout << "\nactive ISA     " << to_string(isa)
            << " (best supported: " << to_string(hw.best_isa()) << ")\n"
            << "threads        " << threads << " (cores: " << hw.cores << ")\n"
            << "fp32 peak      " << format_fixed(per_core, 1) << " GFLOP/s per core, "
            << format_fixed(total, 1) << " GFLOP/s at " << std::min(threads, hw.cores) << " cores ("
            << to_string(isa) << ", nominal: lanes x FMA/cycle x clock)\n";
  std::cout << "per level      ";
  bool first = true;
  for (const kernels::LatticeRow& row : kernels::lattice()) {
    if (!hw.supports(row.id) || kernels::kernels_for(row.id)->isa != row.id) continue;
    std::cout << (first ? "" : ", ") << row.name << ' '
              << format_fixed(hw.peak_gflops_per_core(row.id), 1);
    first = false;
  }
  std::cout << " GFLOP/s per core\n"
            << "(`adaptcore peak` measures what the cores actually sustain)\n\nlevels\n";
  for (const kernels::LatticeRow& row : kernels::lattice())
    std::cout << "  " << row.name << std::string(14 - std::string(row.name).size(), ' ')
              << level_line(hw, row.id) << '\n';
}

}  // namespace

void register_hw(CLI::App& app) {
  auto args = std::make_shared<HwArgs>();
  CLI::App* cmd = app.add_subcommand("hw", "print the detected hardware profile and fp32 peak");
  add_context_options(*cmd, args->ctx);
  cmd->add_flag("--json", args->json, "machine-readable output");
  cmd->callback([args] { run_hw(*args); });
}

}  // namespace adaptcore::cli
