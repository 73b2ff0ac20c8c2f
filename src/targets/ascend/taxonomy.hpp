// The NPU's 2D taxonomy (docs/ASCEND.md, "Taxonomy"): the same two axes as the CPU planner's
// (capacity: where the problem fits; parallelism: output work against cores), with the NPU's
// levels and its wave structure. The class decides which candidates are enumerated.
#pragma once

#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend {

// The base block the parallelism axis counts blocks of: the largest the candidates use.
inline constexpr int kClassBlockM = 128;
inline constexpr int kClassBlockN = 256;
// A last wave filling less than this share of the cores makes the class WaveTail.
inline constexpr double kWaveTailFill = 0.75;

NpuClass classify(const AscendShape& s, const AscendProfile& hw) noexcept;

}  // namespace adaptcore::ascend
