// plan-export's schema (docs/ASCEND.md, "Plan export"): per shape, the tiling in the field
// names of Ascend C's TCubeTiling (usedCoreNum, M, N, Ka, Kb, singleCoreM/N/K, baseM/N/K,
// depthA1/B1, stepM/N/Ka/Kb, dbL0A/B/C, iterateOrder) plus what TCubeTiling has no field for
// (distribution, split factor, swizzle, relayout passes), and the model's prediction. Modeled:
// no plan in such a file has run on a device.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend {

inline constexpr const char* kPlanExportFormat = "adaptcore-ascend-plans";
inline constexpr int kPlanExportVersion = 1;

nlohmann::ordered_json shape_json(const AscendShape& s);
// One shape's entry: {"shape", "class", "tiling" (TCubeTiling fields), "adaptcore"}.
nlohmann::ordered_json plan_json(const AscendShape& s, const TilingPlan& p);
// The file's header: format, version, "modeled": true, target and profile.
nlohmann::ordered_json export_header(const AscendProfile& hw);

}  // namespace adaptcore::ascend
