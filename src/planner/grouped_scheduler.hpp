// The scheduler of a grouped (Mixture-of-Experts) call: cuts each expert's columns into chunks
// of whole panels and places the (expert, chunk) units on the cores so that the model's
// predicted time per core is balanced. Deterministic: the same counts and costs give the same
// schedule, whatever the timing.
//
// Longest-processing-time-first placement (each unit, costliest first, on the least loaded
// core) of units whose size the scheduler refines: every expert starts as one unit; while the
// busiest core's load exceeds the mean by more than the tolerance, the expert of that core's
// largest unit is cut into one more chunk (across N: each chunk streams its own panels, so a hot
// expert's weights are read once in all), and the placement is made again. The best placement
// seen is kept, priced by the units' own predicted times (a chunk's smaller width can cost more
// per column), so refining never makes it worse. Cold experts stay whole and fill the gaps.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace adaptcore {

struct GroupedUnit {
  int64_t expert = 0;
  int64_t panel0 = 0, panels = 0;  // the chunk's panels [panel0, panel0 + panels)
  int core = 0;
  double cost_us = 0.0;
};

struct GroupedPlacement {
  std::vector<GroupedUnit> units;  // by core, then in the order the core runs them
  std::vector<double> core_us;     // predicted time of each core
};

// experts_panels[e]: panels of expert e, 0 for an expert without rows (no unit). cost(e,
// panel0, panels): the predicted time on one core of expert e's rows over that chunk. The
// busiest core within `tolerance` (0.03: 3%) of the mean ends the refinement.
GroupedPlacement schedule_grouped(const std::vector<int64_t>& experts_panels, int cores,
                                  const std::function<double(int64_t, int64_t, int64_t)>& cost,
                                  double tolerance = 0.03);

}  // namespace adaptcore
