// The composable optimisation library: independent options (register tile, packing of A and
// of B, in-place reading, cache blocking, core grid with split-K, tail strategy, dot-product
// tiles) combined into candidate plans for any data type, as far as its kernels offer them
// (TypeConfig). The shape class prunes combinations that cannot win (e.g. packing in the
// register class). Each plan kind has its generator here and its validator next to it.
#pragma once

#include <string>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "core/shape_key.hpp"
#include "plan/plan.hpp"
#include "plan/type_config.hpp"

namespace adaptcore {

// Transposed plans (Plan::transpose_c) are for a C of at most this many columns (fewer than a
// 16-lane vector holds; each tile further needs as many rows as C has columns).
inline constexpr int64_t kTransposeCMaxN = 15;

std::vector<Plan> enumerate_candidates(const ShapeKey& key, const ShapeClass& cls,
                                       const HardwareProfile& hw, const TypeConfig& cfg);

// Per plan kind: the generator (appends to out), and the validator of a plan of that kind
// for a key and kernels (a reason, or "" when the kernels can run it), which the plan-file
// loader applies to every entry.
void add_blocked_candidates(const ShapeKey& key, const ShapeClass& cls, const HardwareProfile& hw,
                            const TypeConfig& cfg, std::vector<Plan>& out);
void add_dot_candidates(const ShapeKey& key, const ShapeClass& cls, const TypeConfig& cfg,
                        std::vector<Plan>& out);
std::string check_blocked_plan(const ShapeKey& key, const Plan& p, const TypeConfig& cfg);
std::string check_dot_plan(const ShapeKey& key, const Plan& p, const TypeConfig& cfg);
void add_rows_candidates(const ShapeKey& key, const ShapeClass& cls, const HardwareProfile& hw,
                         const TypeConfig& cfg, std::vector<Plan>& out);
std::string check_rows_plan(const ShapeKey& key, const Plan& p, const TypeConfig& cfg);

}  // namespace adaptcore
