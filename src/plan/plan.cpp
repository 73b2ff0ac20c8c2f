#include "plan/plan.hpp"

#include <sstream>

#include "core/enum_names.hpp"

namespace adaptcore {

namespace {

constexpr EnumName<CapacityClass> kCapacityClassNames[] = {{CapacityClass::Registers, "registers"},
                                                           {CapacityClass::L1, "L1"},
                                                           {CapacityClass::L2, "L2"},
                                                           {CapacityClass::L3, "L3"},
                                                           {CapacityClass::Dram, "DRAM"}};
constexpr EnumName<ParallelClass> kParallelClassNames[] = {{ParallelClass::Serial, "serial"},
                                                           {ParallelClass::ManyTiles, "many-tiles"},
                                                           {ParallelClass::FewTiles, "few-tiles"}};
constexpr EnumName<PlanKind> kPlanKindNames[] = {{PlanKind::Blocked, "blocked"},
                                                 {PlanKind::Dot, "dot"},
                                                 {PlanKind::WeightQuantized, "weight-quantized"}};

}  // namespace

const char* to_string(CapacityClass c) noexcept { return name_of(kCapacityClassNames, c, "?"); }

const char* to_string(ParallelClass c) noexcept { return name_of(kParallelClassNames, c, "?"); }

const char* to_string(TailStrategy t) noexcept {
  return t == TailStrategy::Masked ? "masked" : "padded";
}

const char* to_string(PlanKind k) noexcept { return name_of(kPlanKindNames, k, "?"); }

std::string to_string(const ShapeClass& c) {
  return std::string(to_string(c.capacity)) + " x " + to_string(c.parallel);
}

std::string describe(const Plan& p) {
  std::ostringstream os;
  os << to_string(p.isa) << ' ' << p.mr << 'x' << p.nr;
  if (p.is_dot()) {
    os << " dot";
  } else {
    os << (p.pack_a ? " packA" : " directA") << (p.pack_b ? " packB" : " directB")
       << " mc=" << p.mc << " nc=" << p.nc << " kc=" << p.kc;
  }
  os << " grid=" << p.pm << 'x' << p.pn << 'x' << p.pk;
  if (!p.is_dot()) os << ' ' << to_string(p.tail);
  return os.str();
}

}  // namespace adaptcore
