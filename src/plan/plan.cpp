#include "plan/plan.hpp"

#include <sstream>

#include "core/enum_names.hpp"

namespace adaptcore {

const char* to_string(CapacityClass c) noexcept {
  using enum CapacityClass;
  return name_of(c, {{Registers, "registers"}, {L1, "L1"}, {L2, "L2"}, {L3, "L3"}, {Dram, "DRAM"}});
}

const char* to_string(ParallelClass c) noexcept {
  using enum ParallelClass;
  return name_of(c, {{Serial, "serial"}, {ManyTiles, "many-tiles"}, {FewTiles, "few-tiles"}});
}

const char* to_string(PlanKind k) noexcept {
  using enum PlanKind;
  return name_of(
      k,
      {{Blocked, "blocked"}, {Dot, "dot"}, {WeightQuantized, "weight-quantized"}, {Rows, "rows"}});
}

const char* to_string(TailStrategy t) noexcept {
  return t == TailStrategy::Masked ? "masked" : "padded";
}

const char* to_string(APacking a) noexcept {
  return a == APacking::Elements ? "elements" : "words";
}

std::string to_string(const ShapeClass& c) {
  return std::string(to_string(c.capacity)) + " x " + to_string(c.parallel);
}

std::string describe(const Plan& p) {
  std::ostringstream os;
  os << to_string(p.isa);
  if (p.kind != PlanKind::Rows) os << ' ' << p.mr << 'x' << p.nr;
  if (p.is_dot()) {
    os << (p.pack_b ? " dot packB" : " dot");
  } else if (p.kind == PlanKind::Rows) {
    os << " rows stream";
  } else {
    // A transposed plan's operands are those of C^T = op(B)^T op(A)^T: said first.
    if (p.transpose_c) os << " transposeC";
    os << (p.pack_a ? " packA" : " directA");
    if (p.pack_a && p.a_packing == APacking::Words) os << "(words)";
    os << (p.pack_b ? " packB" : " directB") << " mc=" << p.mc << " nc=" << p.nc << " kc=" << p.kc;
    if (p.prefetch_c) os << " prefetchC";
    if (p.prefetch_b) os << " prefetchB";
  }
  os << " grid=" << p.pm << 'x' << p.pn << 'x' << p.pk;
  if (p.kind == PlanKind::WeightQuantized) os << " quantize=" << p.quantize_threads;
  // The vector kernels beside a matrix engine's (WqKernels::below).
  if (p.kind == PlanKind::WeightQuantized && p.tile == 1) os << " vector-kernels";
  if (p.kind == PlanKind::Blocked || p.kind == PlanKind::WeightQuantized)
    os << ' ' << to_string(p.tail);
  return os.str();
}

}  // namespace adaptcore
