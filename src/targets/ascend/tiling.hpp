// A tiling plan for the NPU: the complete description the simulator executes and plan-export
// writes (docs/ASCEND.md, "Tiling plan"). The planner fills it; nothing downstream decides.
#pragma once

#include <cstdint>
#include <string>

#include "targets/ascend/shape.hpp"

namespace adaptcore::ascend {

// Capacity axis: the smallest level that holds the whole problem (A, B and C).
//   L0:  one base block (A in L0A, B in L0B, C in L0C): one core, one block
//   L1:  A and B of the whole problem fit one core's L1
//   L2:  A, B and C fit the shared L2
//   Hbm: operands stream from HBM more than once unless blocks are reused through L2
enum class NpuCapacity : std::uint8_t { L0, L1, L2, Hbm };
// Parallelism axis: output blocks (of the largest base block) against the cores.
//   Underfilled: fewer blocks than cores: split K or shrink blocks
//   WaveTail:    at least one full wave but the last wave leaves many cores idle
//   Balanced:    the waves fill the cores well
enum class NpuParallel : std::uint8_t { Underfilled, WaveTail, Balanced };

struct NpuClass {
  NpuCapacity capacity = NpuCapacity::L0;
  NpuParallel parallel = NpuParallel::Underfilled;
  friend bool operator==(const NpuClass&, const NpuClass&) = default;
};

// How output blocks are spread over the cores.
//   DataParallel: each block belongs to one core (round robin in swizzled order), full K
//   SplitK:       K cut into split_k slices; every (block, slice) is a unit; partial sums are
//                 added into C by the FixPipe's atomic add (C zero-filled first)
//   StreamK:      full waves data-parallel; the blocks of the last, partial wave have their K
//                 iterations shared evenly by all cores (atomic add, as split-K)
enum class Distribution : std::uint8_t { DataParallel, SplitK, StreamK };

struct TilingPlan {
  InDType dtype = InDType::Fp16;
  int base_m = 16, base_n = 16, base_k = 16;  // one cube pass: A base in L0A, B in L0B, C in L0C
  int step_k = 1;       // base_k slices of A and of B one GM->L1 move brings (stepKa = stepKb)
  bool db_l1 = true;    // two L1 stages (ping-pong): depthA1 = depthB1 = 2 x step_k
  bool db_l0 = true;    // L0A/L0B ping-pong
  bool db_l0c = false;  // L0C ping-pong: the next block computes while FixPipe drains this one
  Distribution dist = Distribution::DataParallel;
  int swizzle = 1;  // block rows walked together before moving along N (L2 locality)
  int split_k = 1;  // K slices (SplitK only)
  int used_cores = 1;
  bool relayout_a = false;  // pre-pass: copy A to an aligned, padded fractal (NZ) layout in GM
  bool relayout_b = false;
  NpuClass cls;
  double predicted_us = 0.0;

  int depth_a1() const noexcept { return step_k * (db_l1 ? 2 : 1); }
  int depth_b1() const noexcept { return depth_a1(); }
};

const char* to_string(NpuCapacity c) noexcept;
const char* to_string(NpuParallel p) noexcept;
const char* to_string(Distribution d) noexcept;
std::string to_string(const NpuClass& c);
// "128x256x64 step4 db(L1,L0) dp swz4 cores24 relayoutB"
std::string describe(const TilingPlan& p);

inline int64_t ceil_div(int64_t a, int64_t b) noexcept { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) noexcept { return ceil_div(a, b) * b; }

// Bytes of the per-core buffers the plan's kernel allocates (what the simulator checks too).
struct BufferBudget {
  int64_t l1 = 0, l0a = 0, l0b = 0, l0c = 0;
};
BufferBudget buffer_budget(const TilingPlan& p) noexcept;

}  // namespace adaptcore::ascend
