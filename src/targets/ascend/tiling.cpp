#include "targets/ascend/tiling.hpp"

#include "core/enum_names.hpp"

namespace adaptcore::ascend {

const char* to_string(NpuCapacity c) noexcept {
  using enum NpuCapacity;
  return name_of(c, {{L0, "L0"}, {L1, "L1"}, {L2, "L2"}, {Hbm, "HBM"}});
}

const char* to_string(NpuParallel p) noexcept {
  using enum NpuParallel;
  return name_of(p,
                 {{Underfilled, "underfilled"}, {WaveTail, "wave-tail"}, {Balanced, "balanced"}});
}

const char* to_string(Distribution d) noexcept {
  using enum Distribution;
  return name_of(d, {{DataParallel, "dp"}, {SplitK, "splitk"}, {StreamK, "streamk"}});
}

std::string to_string(const NpuClass& c) {
  return std::string(to_string(c.capacity)) + " x " + to_string(c.parallel);
}

std::string describe(const TilingPlan& p) {
  std::string s = std::to_string(p.base_m) + "x" + std::to_string(p.base_n) + "x" +
                  std::to_string(p.base_k) + " step" + std::to_string(p.step_k);
  s += p.db_l1 ? " dbL1" : "";
  s += p.db_l0 ? " dbL0" : "";
  s += p.db_l0c ? " dbL0C" : "";
  s += std::string(" ") + to_string(p.dist);
  if (p.dist == Distribution::SplitK) s += std::to_string(p.split_k);
  if (p.swizzle > 1) s += " swz" + std::to_string(p.swizzle);
  s += " cores" + std::to_string(p.used_cores);
  if (p.relayout_a) s += " relayoutA";
  if (p.relayout_b) s += " relayoutB";
  return s;
}

BufferBudget buffer_budget(const TilingPlan& p) noexcept {
  const int64_t e = elem_bytes(p.dtype);
  BufferBudget b;
  const int64_t a_tile = int64_t{p.base_m} * p.base_k * e;
  const int64_t b_tile = int64_t{p.base_k} * p.base_n * e;
  b.l1 = int64_t{p.depth_a1()} * a_tile + int64_t{p.depth_b1()} * b_tile;
  b.l0a = a_tile * (p.db_l0 ? 2 : 1);
  b.l0b = b_tile * (p.db_l0 ? 2 : 1);
  b.l0c = int64_t{p.base_m} * p.base_n * 4 * (p.db_l0c ? 2 : 1);
  return b;
}

}  // namespace adaptcore::ascend
