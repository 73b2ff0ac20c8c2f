#include "plan/plan.hpp"

#include <sstream>

namespace adaptcore {

const char* to_string(CapacityClass c) noexcept {
  switch (c) {
    case CapacityClass::Registers: return "registers";
    case CapacityClass::L1: return "L1";
    case CapacityClass::L2: return "L2";
    case CapacityClass::L3: return "L3";
    case CapacityClass::Dram: return "DRAM";
  }
  return "?";
}

const char* to_string(ParallelClass c) noexcept {
  switch (c) {
    case ParallelClass::Serial: return "serial";
    case ParallelClass::ManyTiles: return "many-tiles";
    case ParallelClass::FewTiles: return "few-tiles";
  }
  return "?";
}

const char* to_string(TailStrategy t) noexcept {
  return t == TailStrategy::Masked ? "masked" : "padded";
}

const char* to_string(APacking a) noexcept {
  return a == APacking::Elements ? "elements" : "words";
}

const char* to_string(PlanKind k) noexcept {
  switch (k) {
    case PlanKind::Blocked: return "blocked";
    case PlanKind::Dot: return "dot";
    case PlanKind::WeightQuantized: return "weight-quantized";
  }
  return "?";
}

std::string to_string(const ShapeClass& c) {
  return std::string(to_string(c.capacity)) + " x " + to_string(c.parallel);
}

std::string describe(const Plan& p) {
  std::ostringstream os;
  os << to_string(p.isa) << ' ' << p.mr << 'x' << p.nr;
  if (p.is_dot()) {
    os << " dot";
  } else {
    os << (p.pack_a ? " packA" : " directA");
    if (p.pack_a && p.a_packing == APacking::Words) os << "(words)";
    os << (p.pack_b ? " packB" : " directB") << " mc=" << p.mc << " nc=" << p.nc
       << " kc=" << p.kc;
  }
  os << " grid=" << p.pm << 'x' << p.pn << 'x' << p.pk;
  if (p.kind == PlanKind::WeightQuantized) os << " quantize=" << p.quantize_threads;
  if (!p.is_dot()) os << ' ' << to_string(p.tail);
  return os.str();
}

}  // namespace adaptcore
