#include "plan/candidates.hpp"

namespace adaptcore {

std::vector<Plan> enumerate_candidates(const ShapeKey& key, const ShapeClass& cls,
                                       const HardwareProfile& hw, const TypeConfig& cfg) {
  std::vector<Plan> out;
  out.reserve(192);  // the most a shape gets on 2 to 8 threads; planning is on the miss path
  add_blocked_candidates(key, cls, hw, cfg, out);
  add_dot_candidates(key, cls, cfg, out);
  add_rows_candidates(key, cls, hw, cfg, out);
  return out;
}

}  // namespace adaptcore
