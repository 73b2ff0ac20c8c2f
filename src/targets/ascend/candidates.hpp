// Candidate tilings for the NPU: base blocks that fit L0A/L0B/L0C (double buffered), L1
// staging depths, the distribution over cores (data-parallel with swizzle; split-K for
// underfilled shapes; stream-K for bad wave tails) and relayout passes for operands whose
// stored layout makes GM->L1 moves slow or illegal. The class prunes what cannot win.
#pragma once

#include <vector>

#include "targets/ascend/profile.hpp"
#include "targets/ascend/shape.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend {

// A GM->L1 move takes a source pitch of at most this many elements (the ND->NZ move's stride
// field); a larger pitch needs a relayout pass first.
inline constexpr int64_t kMaxMovePitch = 65535;

std::vector<TilingPlan> enumerate_candidates(const AscendShape& s, const NpuClass& cls,
                                             const AscendProfile& hw);

// Does a stored operand need a relayout pass (pitch beyond kMaxMovePitch), or may one pay off
// (pitch not sector aligned, or transposed so that moves read short segments)?
bool relayout_required(const AscendShape& s, bool operand_a) noexcept;
bool relayout_useful(const AscendShape& s, const AscendProfile& hw, bool operand_a) noexcept;

// The fixed tiling a generic library uses for every shape: 128 x 256 x 64 (fp16/bf16; int8
// 128 x 256 x 128), L1 depth 4 per operand (step 2, double buffered), data-parallel over all
// blocks without swizzle, no split-K, relayout only where required.
TilingPlan fixed_baseline(const AscendShape& s, const AscendProfile& hw);

}  // namespace adaptcore::ascend
