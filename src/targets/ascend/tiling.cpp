#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend {

const char* to_string(NpuCapacity c) noexcept {
  switch (c) {
    case NpuCapacity::L0: return "L0";
    case NpuCapacity::L1: return "L1";
    case NpuCapacity::L2: return "L2";
    case NpuCapacity::Hbm: return "HBM";
  }
  return "?";
}

const char* to_string(NpuParallel p) noexcept {
  switch (p) {
    case NpuParallel::Underfilled: return "underfilled";
    case NpuParallel::WaveTail: return "wave-tail";
    case NpuParallel::Balanced: return "balanced";
  }
  return "?";
}

const char* to_string(Distribution d) noexcept {
  switch (d) {
    case Distribution::DataParallel: return "dp";
    case Distribution::SplitK: return "splitk";
    case Distribution::StreamK: return "streamk";
  }
  return "?";
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
