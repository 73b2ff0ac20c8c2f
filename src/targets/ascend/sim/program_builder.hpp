// Lowers a tiling plan to per-core instruction streams, as an Ascend C matmul kernel would
// issue them: L1 stages and L0 slots in ping-pong with set/wait flags between the pipes, the
// optional pre-pass kernel (relayout of A/B into an aligned fractal copy, zero-fill of C for
// atomic accumulation), and, per GM read, whether the shared L2 still holds the data (a walk
// over all cores' reads in issue order, with an LRU stack-distance rule on L2's capacity).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/sim/program.hpp"
#include "targets/ascend/sim/work_split.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend::sim {

class ProgramBuilder {
 public:
  ProgramBuilder(const AscendProfile& hw, const AscendShape& s, const TilingPlan& p);

  // Empty if the plan can be lowered; else why not (e.g. a base block not made of fractals).
  const std::string& plan_error() const noexcept { return error_; }
  int cores() const noexcept { return cores_; }
  bool has_prepass() const noexcept { return zero_fill_ || p_.relayout_a || p_.relayout_b; }

  void build_prepass(int core, CoreProgram& out) const;
  void build_matmul(int core, CoreProgram& out) const;

 private:
  struct Move;
  void walk_l2();
  Instr gm_read(Operand op, int64_t row0, int64_t rows, int64_t k0, int64_t klen) const;

  const AscendProfile& hw_;
  AscendShape s_;
  TilingPlan p_;
  std::string error_;
  int cores_ = 1;
  bool zero_fill_ = false;
  std::vector<std::vector<WorkUnit>> units_;
  std::vector<std::vector<std::uint8_t>> l2_hits_;  // per core, per GM->L1 move in issue order
};

}  // namespace adaptcore::ascend::sim
