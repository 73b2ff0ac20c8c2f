#include "targets/ascend/sim/simulator.hpp"

#include <algorithm>
#include <memory>

#include "targets/ascend/sim/data_exec.hpp"
#include "targets/ascend/sim/engine.hpp"
#include "targets/ascend/sim/program_builder.hpp"

namespace adaptcore::ascend::sim {

SimResult simulate(const AscendProfile& hw, const AscendShape& s, const TilingPlan& p,
                   const SimOptions& opt) {
  SimResult r;
  const std::string bad_shape = check_shape(s);
  if (!bad_shape.empty()) {
    r.error = "shape: " + bad_shape;
    return r;
  }
  const ProgramBuilder builder(hw, s, p);
  if (!builder.plan_error().empty()) {
    r.error = builder.plan_error();
    return r;
  }
  std::unique_ptr<DataExecutor> data;
  if (opt.data) data = std::make_unique<DataExecutor>(s, p, opt.seed);
  CoreProgram prog;  // reused by every core: no allocation per instruction
  auto run_phase = [&](bool prepass, int cores, double& phase_us) -> bool {
    Engine engine(hw, s.dtype, cores);
    double end_ns = 0;
    for (int c = 0; c < cores; ++c) {
      if (prepass)
        builder.build_prepass(c, prog);
      else
        builder.build_matmul(c, prog);
      const CoreRun run = engine.run(prog, data.get());
      r.instructions += static_cast<int64_t>(prog.instrs.size());
      if (!run.ok) {
        r.error = std::string(prepass ? "pre-pass" : "matmul") + " kernel, core " +
                  std::to_string(c) + ": " + run.error;
        return false;
      }
      end_ns = std::max(end_ns, run.end_ns);
      for (int q = 0; q < kPipes; ++q)
        r.busiest_pipe_us[static_cast<std::size_t>(q)] =
            std::max(r.busiest_pipe_us[static_cast<std::size_t>(q)],
                     run.busy_ns[static_cast<std::size_t>(q)] * 1e-3);
    }
    phase_us = hw.launch_us + end_ns * 1e-3;
    return true;
  };
  if (builder.has_prepass() && !run_phase(true, hw.ai_cores, r.prepass_us)) return r;
  if (!run_phase(false, builder.cores(), r.matmul_us)) return r;
  r.total_us = r.prepass_us + r.matmul_us;
  if (data) {
    r.checked = true;
    int64_t i = 0, j = 0;
    r.error_ratio = data->check(&i, &j);
    if (!(r.error_ratio <= 1.0)) {
      r.error = "result: C(" + std::to_string(i) + ", " + std::to_string(j) +
                ") differs from the reference beyond the fp32-accumulation bound (" +
                std::to_string(r.error_ratio) + "x)";
      return r;
    }
  }
  r.ok = true;
  return r;
}

}  // namespace adaptcore::ascend::sim
