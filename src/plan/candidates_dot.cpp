// Dot-product plans: where A rows and B columns are contiguous along k (typically B stored
// N x K, the weight layout of most frameworks), nothing packed: B is read once, in order, as
// nr streams; the whole depth in one call; core grids without split-K. Where A rows are
// contiguous but B is a narrow row-major matrix (N <= TypeConfig::kDotPackMaxN, where the
// register tiles would leave most lanes empty), each core first packs its columns of B
// transposed (cfg.dot_pack_b).
#include "plan/candidates.hpp"
#include "plan/core_grid.hpp"

namespace adaptcore {

void add_dot_candidates(const ShapeKey& key, const ShapeClass& cls, const TypeConfig& cfg,
                        std::vector<Plan>& out) {
  // Prepacked B (panels for the register tiles): no column of B is contiguous along k.
  if (!cfg.dot.exists() || !key.a_k_unit || key.b_panel_nr != 0) return;
  const bool pack_b = !key.b_k_unit;
  if (pack_b && (!cfg.dot_pack_b || key.n > TypeConfig::kDotPackMaxN)) return;
  const int mr = cfg.dot.mr, nr = cfg.dot.nr;
  const int threads = cls.parallel == ParallelClass::Serial ? 1 : key.threads;
  for (const CoreGrid& g : core_grids(threads, key.m, key.n, key.k, mr, nr, false)) {
    Plan p;
    p.kind = PlanKind::Dot;
    p.isa = cfg.isa;
    p.mr = mr;
    p.nr = nr;
    p.kc = std::max<int64_t>(1, key.k);
    p.mc = std::max<int64_t>(1, core_share(key.m, mr, g.pm));
    p.nc = std::max<int64_t>(1, core_share(key.n, nr, g.pn));
    p.pm = g.pm, p.pn = g.pn, p.pk = 1;
    p.pack_b = pack_b;
    p.cls = cls;
    out.push_back(p);
  }
}

std::string check_dot_plan(const ShapeKey& key, const Plan& p, const TypeConfig& cfg) {
  if (!cfg.dot.exists()) return "dot plan on a path without dot kernels";
  if (!key.a_k_unit) return "dot plan for an A not contiguous along k";
  if (p.pack_b != !key.b_k_unit)
    return p.pack_b ? "dot plan packing a B that is contiguous along k"
                    : "dot plan for a B not contiguous along k";
  if (p.pack_b && (!cfg.dot_pack_b || key.n > TypeConfig::kDotPackMaxN))
    return "dot plan packing B where the path or N does not allow it";
  if (p.tile != 0) return "dot plan with a tile index";
  if (p.mr != cfg.dot.mr || p.nr != cfg.dot.nr) return "dot plan with a wrong tile";
  if (p.pack_a) return "dot plan packing A";
  if (p.pk != 1) return "dot plan with split-K";
  if (p.tail != TailStrategy::Masked) return "dot plan with a padded tail";
  return "";
}

}  // namespace adaptcore
