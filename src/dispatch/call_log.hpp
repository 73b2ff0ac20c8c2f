// ADAPTCORE_VERBOSE: one line per GEMM call on stderr, so that a user sees what a host program
// sends and what each call costs. Off by default; when off a call pays one predictable branch.
//
//   adaptcore: f32 m=1536 n=1 k=576 A=k-contig B=k-contig threads=2 on=openmp
//              plan=[avx512 dot 4x4 grid=1x2x1 masked] cache=hit 12.4 us
#pragma once

#include <chrono>

#include "adaptcore/types.hpp"
#include "core/shape_key.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

// Level from ADAPTCORE_VERBOSE (unset, empty or "0": off).
bool verbose_from_environment() noexcept;

class CallLog {
 public:
  explicit CallLog(bool enabled) noexcept
      : enabled_(enabled),
        start_(enabled ? std::chrono::steady_clock::now()
                       : std::chrono::steady_clock::time_point{}) {}
  // Writes the line (one write, so lines of concurrent calls do not interleave).
  void done(const ShapeKey& key, const Plan& plan, bool cache_hit, const char* runner,
            Status status) const noexcept {
    if (enabled_) write(key, plan, cache_hit, runner, status);
  }

 private:
  void write(const ShapeKey& key, const Plan& plan, bool cache_hit, const char* runner,
             Status status) const noexcept;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace adaptcore
