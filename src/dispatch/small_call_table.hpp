// The tiny-call table: the packed arguments of a tiny fp32 call (dispatch/small_call.hpp) whose
// plan runs on the calling thread as the whole problem from registers (no packing, no
// workspace, no pool; exec/executor_small.hpp) map to that plan's kernel choice through one
// 64-bit word in a direct-mapped table. A tiny call then finds its kernel with one multiply and
// one load instead of validation, normalisation, the plan cache's key hash, probe and plan copy.
//
// The word holds the packed key (at most 56 bits, never 0) and the one-byte payload together,
// so a reader never sees one key with another's payload; a slot is written once (the first tiny
// shape to reach it keeps it, later ones take the plan cache) and cleared with the plan cache.
// What goes in is what the planner chose (the full path reports it): the table makes no choices.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace adaptcore {

class SmallCallTable {
 public:
  // The payload stored for a packed key (never 0 when present), or 0.
  std::uint8_t find(std::uint64_t packed) const noexcept {
    const std::uint64_t w = slots_[slot(packed)].load(std::memory_order_acquire);
    return (w >> 8) == packed ? static_cast<std::uint8_t>(w) : 0;
  }

  // Stores a non-zero payload for a packed key when its slot is free.
  void insert(std::uint64_t packed, std::uint8_t payload) noexcept {
    if (packed == 0 || payload == 0) return;
    std::atomic<std::uint64_t>& s = slots_[slot(packed)];
    std::uint64_t expected = s.load(std::memory_order_relaxed);
    if (expected != 0) return;  // taken (a plain load: no locked write on every call)
    s.compare_exchange_strong(expected, packed << 8 | payload, std::memory_order_release,
                              std::memory_order_relaxed);
  }

  void clear() noexcept {
    for (auto& s : slots_) s.store(0, std::memory_order_release);
  }

 private:
  static constexpr int kSlotsLog2 = 12;
  static std::size_t slot(std::uint64_t packed) noexcept {
    return static_cast<std::size_t>((packed * 0x9e3779b97f4a7c15ULL) >> (64 - kSlotsLog2));
  }
  std::array<std::atomic<std::uint64_t>, std::size_t{1} << kSlotsLog2> slots_{};
};

}  // namespace adaptcore
