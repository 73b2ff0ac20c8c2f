// Integer and floating-point block arithmetic shared by the planner, the model and the
// executors: how many blocks of a size cover an extent, and extents rounded to whole blocks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace adaptcore {

constexpr int64_t ceil_div(int64_t a, int64_t b) noexcept { return (a + b - 1) / b; }
constexpr int64_t round_up(int64_t a, int64_t b) noexcept { return ceil_div(a, b) * b; }
// v rounded down to a multiple of q, and at least q (a block is never empty).
constexpr int64_t round_down_min1(int64_t v, int64_t q) noexcept { return std::max(q, v / q * q); }
// The model's form: extents as doubles (blocks of a busiest core's share).
inline double ceil_div(double a, double b) noexcept { return std::ceil(a / b); }

}  // namespace adaptcore
