// The simulator's event loop for one core and one kernel phase: checks the buffers (capacity,
// alignment, overlap) and every instruction (pipe, memories, extents, fractal alignment), then
// runs the pipes. Each pipe keeps a ready time and runs its instructions in order; a wait_flag
// holds its pipe until the peer's set_flag, whose time it inherits. Alongside the times, each
// pipe carries a vector clock (how far into every other pipe's stream it is ordered after), so a
// buffer access not ordered after the previous conflicting access on another pipe is a hazard
// whatever the timing: a missing wait is caught even when the timeline happens to be safe.
// No allocation per instruction: the scratch arrays live in the Engine and are reused.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/sim/program.hpp"

namespace adaptcore::ascend::sim {

// Data mode: receives every instruction in an order consistent with the pipes and flags.
class InstrSink {
 public:
  virtual ~InstrSink() = default;
  virtual void execute(const Instr& in, const std::vector<BufferDecl>& buffers) = 0;
};

struct CoreRun {
  bool ok = true;
  std::string error;  // first legality failure: capacity, alignment, hazard, flag misuse, deadlock
  double end_ns = 0;  // when the last pipe finished, from the phase start
  std::array<double, kPipes> busy_ns{};  // time each pipe spent executing
};

class Engine {
 public:
  // active_cores: cores sharing HBM and L2 bandwidth during this phase.
  Engine(const AscendProfile& hw, InDType dtype, int active_cores);
  CoreRun run(const CoreProgram& prog, InstrSink* sink = nullptr);

  double duration_ns(const Instr& in) const noexcept;

 private:
  std::string check_static(const CoreProgram& prog) const;

  const AscendProfile& hw_;
  InDType dtype_;
  double hbm_core_gbs_, l2_core_gbs_, mte2_gbs_, mte1_gbs_, fix_gbs_, ub_gbs_, cycle_ns_;
  std::array<std::vector<uint32_t>, kPipes> queues_;  // instruction indices per pipe
};

}  // namespace adaptcore::ascend::sim
