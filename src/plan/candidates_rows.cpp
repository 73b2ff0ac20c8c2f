// Rank-k row plans: for a shallow depth (K <= kRowsMaxK), B read in place by rows and operands
// in memory (a cold key), the row kernel writes C a row at a time in its own cache lines, with
// non-temporal stores when beta = 0 (kernels/rank_k_rows.hpp). Rows are split over the cores;
// nothing is packed.
#include "core/int_math.hpp"
#include "plan/candidates.hpp"

namespace adaptcore {

void add_rows_candidates(const ShapeKey& key, const ShapeClass& cls, const HardwareProfile& hw,
                         const TypeConfig& cfg, std::vector<Plan>& out) {
  // Operands in memory only: C left in cache by the previous call (a warm key) is rewritten
  // there faster than non-temporal stores reach DRAM, whatever the profile's share of L3 says
  // (5025 x 829 x 1 warm, a 16 MiB C in the host's 32 MiB L3: 0.62 ms against 0.28 ms).
  if (!cfg.rows || !key.cold || !key.b_row_unit || key.k > kRowsMaxK || key.b_panel_nr != 0) return;
  // Rows of at least four vectors: the two partial vectors at a row's ends and its set-up
  // are overhead (2997 x 28 x 1 cold: 1.5x slower than the register tiles).
  if (key.n < 4 * static_cast<int64_t>(cfg.lanes)) return;
  const int threads = cls.parallel == ParallelClass::Serial ? 1 : key.threads;
  for (int pm : {1, threads}) {
    if (pm > key.m) continue;
    // A core's C of a small part of its L2 is written back after the call, at no cost to it,
    // by the register tiles' plain stores; non-temporal stores would write it out during the
    // call. From a quarter of L2 on, the plain stores' reads for ownership from memory cost
    // more than they save (docs/EVIDENCE.md, E5); the model weighs the rest.
    if (4 * ceil_div(key.m, int64_t{pm}) * key.n <= hw.l2_bytes / 4) continue;
    Plan p;
    p.kind = PlanKind::Rows;
    p.isa = cfg.isa;
    p.kc = std::max<int64_t>(1, key.k);
    p.mc = std::max<int64_t>(1, ceil_div(key.m, int64_t{pm}));
    p.nc = std::max<int64_t>(1, key.n);
    p.pm = pm, p.pn = 1, p.pk = 1;
    p.cls = cls;
    out.push_back(p);
    if (threads == 1) break;
  }
}

std::string check_rows_plan(const ShapeKey& key, const Plan& p, const TypeConfig& cfg) {
  if (!cfg.rows) return "row plan on a path without the row kernel";
  if (!key.b_row_unit) return "row plan for a B not read by rows";
  if (key.k > kRowsMaxK) return "row plan for a depth beyond " + std::to_string(kRowsMaxK);
  if (p.pn != 1 || p.pk != 1) return "row plan splitting N or K";
  if (p.pack_a || p.pack_b) return "row plan packing an operand";
  if (p.tile != 0 || p.mr != 1 || p.nr != 1) return "row plan with a tile";
  return "";
}

}  // namespace adaptcore
