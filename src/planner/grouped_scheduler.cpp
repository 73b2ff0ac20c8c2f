#include "planner/grouped_scheduler.hpp"

#include <algorithm>
#include <numeric>

namespace adaptcore {
namespace {

// The most placements one call tries (each refines one expert by one chunk).
constexpr int kMaxRounds = 64;

// Expert e cut into `chunks` chunks of whole panels, as even as panels allow (the first ones
// one panel wider).
void add_chunks(int64_t e, int64_t panels, int64_t chunks, std::vector<GroupedUnit>& out) {
  const int64_t base = panels / chunks, extra = panels % chunks;
  int64_t at = 0;
  for (int64_t i = 0; i < chunks; ++i) {
    const int64_t w = base + (i < extra ? 1 : 0);
    out.push_back(GroupedUnit{e, at, w, 0, 0.0});
    at += w;
  }
}

// LPT: costliest first (ties: expert, then chunk order), each on the least loaded core (ties:
// the lowest core). Returns the units grouped by core in placement order.
GroupedPlacement place(std::vector<GroupedUnit> units, int cores) {
  std::stable_sort(units.begin(), units.end(), [](const GroupedUnit& x, const GroupedUnit& y) {
    return x.cost_us > y.cost_us;
  });
  GroupedPlacement p;
  p.core_us.assign(static_cast<std::size_t>(cores), 0.0);
  for (GroupedUnit& u : units) {
    const auto least = std::min_element(p.core_us.begin(), p.core_us.end());
    u.core = static_cast<int>(least - p.core_us.begin());
    *least += u.cost_us;
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const GroupedUnit& x, const GroupedUnit& y) { return x.core < y.core; });
  p.units = std::move(units);
  return p;
}

double busiest(const GroupedPlacement& p) {
  return p.core_us.empty() ? 0.0 : *std::max_element(p.core_us.begin(), p.core_us.end());
}

}  // namespace

GroupedPlacement schedule_grouped(const std::vector<int64_t>& experts_panels, int cores,
                                  const std::function<double(int64_t, int64_t, int64_t)>& cost,
                                  double tolerance) {
  cores = std::max(cores, 1);
  const auto experts = static_cast<int64_t>(experts_panels.size());
  std::vector<int64_t> chunks(experts_panels.size(), 1);
  // Each expert's priced units, priced again only when its chunks change.
  std::vector<std::vector<GroupedUnit>> per_expert(experts_panels.size());
  auto price = [&](int64_t e) {
    auto& units = per_expert[static_cast<std::size_t>(e)];
    units.clear();
    add_chunks(e, experts_panels[static_cast<std::size_t>(e)], chunks[static_cast<std::size_t>(e)],
               units);
    for (GroupedUnit& u : units) u.cost_us = cost(u.expert, u.panel0, u.panels);
  };
  for (int64_t e = 0; e < experts; ++e)
    if (experts_panels[static_cast<std::size_t>(e)] > 0) price(e);
  GroupedPlacement best;
  double best_span = 0.0;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::vector<GroupedUnit> units;
    for (const auto& v : per_expert) units.insert(units.end(), v.begin(), v.end());
    GroupedPlacement p = place(std::move(units), cores);
    const double span = busiest(p);
    if (round == 0 || span < best_span) best = p, best_span = span;
    if (cores == 1 || p.units.empty()) break;
    const double mean = std::accumulate(p.core_us.begin(), p.core_us.end(), 0.0) / cores;
    if (span <= mean * (1.0 + tolerance)) break;
    // The busiest core's largest unit: cut its expert once more, if its panels allow.
    const int hot =
        static_cast<int>(std::max_element(p.core_us.begin(), p.core_us.end()) - p.core_us.begin());
    const GroupedUnit* largest = nullptr;
    for (const GroupedUnit& u : p.units)
      if (u.core == hot && (largest == nullptr || u.cost_us > largest->cost_us)) largest = &u;
    const auto e = static_cast<std::size_t>(largest->expert);
    if (chunks[e] >= experts_panels[e]) break;
    ++chunks[e];
    price(largest->expert);
  }
  return best;
}

}  // namespace adaptcore
