// The plan simulator (docs/ASCEND.md, "Simulator"): lowers a tiling plan to per-core
// instruction streams and runs them, kernel phase by kernel phase. Timing mode checks legality
// (capacities, alignment, hazards, flags, deadlock) and times the plan from its own event
// timeline; data mode also executes every instruction on real data and checks C against a
// double-precision reference. Everything it reports is simulated, not measured.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/sim/program.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend::sim {

struct SimOptions {
  bool data = false;       // execute on real data and check the result
  std::uint64_t seed = 1;  // data mode: operand values
};

struct SimResult {
  bool ok = false;
  std::string error;         // legality or correctness failure (empty when ok)
  double total_us = 0;       // launches + pre-pass + matmul kernel
  double prepass_us = 0;     // relayout / zero-fill kernel, launch included (0 if none)
  double matmul_us = 0;      // matmul kernel, launch included
  int64_t instructions = 0;  // over all cores and phases
  std::array<double, kPipes> busiest_pipe_us{};  // per pipe, the largest busy time of a core
  bool checked = false;                          // data mode ran
  double error_ratio = 0;                        // data mode: largest error / allowed error
};

SimResult simulate(const AscendProfile& hw, const AscendShape& s, const TilingPlan& p,
                   const SimOptions& opt = {});

}  // namespace adaptcore::ascend::sim
