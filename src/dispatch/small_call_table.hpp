// The tiny-call table: the packed arguments of a tiny fp32 call (dispatch/small_call.hpp) whose
// plan runs on the calling thread as the whole problem from registers (no packing, no
// workspace, no pool; exec/executor_small.hpp) map to that plan's kernel choice in a
// direct-mapped table. A tiny call then finds its kernel with one multiply and two loads from
// one cache line instead of validation, normalisation, the plan cache's key hash, probe and
// plan copy.
//
// A slot is two words: the packed key (at most 62 bits, never 0) and the one-byte payload
// beside a 56-bit check of the key. A reader takes the payload only when the key matches and
// the check is that key's, so a slot cleared and refilled between its two loads reads as a
// miss, never as one key with another's payload. A slot is written once (the first tiny shape
// to reach it keeps it, later ones take the plan cache) and cleared with the plan cache.
// What goes in is what the planner chose (the full path reports it): the table makes no
// choices.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace adaptcore {

class SmallCallTable {
 public:
  // The payload stored for a packed key (never 0 when present), or 0.
  std::uint8_t find(std::uint64_t packed) const noexcept {
    const Slot& s = slots_[slot(packed)];
    if (s.key.load(std::memory_order_acquire) != packed) return 0;
    const std::uint64_t w = s.payload.load(std::memory_order_acquire);
    return (w >> 8) == check(packed) ? static_cast<std::uint8_t>(w) : 0;
  }

  // Stores a non-zero payload for a packed key when its slot is free.
  void insert(std::uint64_t packed, std::uint8_t payload) noexcept {
    if (packed == 0 || payload == 0) return;
    Slot& s = slots_[slot(packed)];
    std::uint64_t expected = s.key.load(std::memory_order_relaxed);
    if (expected != 0) return;  // taken (a plain load: no locked write on every call)
    if (!s.key.compare_exchange_strong(expected, packed, std::memory_order_acq_rel,
                                       std::memory_order_relaxed))
      return;
    s.payload.store(check(packed) << 8 | payload, std::memory_order_release);
  }

  void clear() noexcept {
    for (Slot& s : slots_) {
      s.payload.store(0, std::memory_order_release);
      s.key.store(0, std::memory_order_release);
    }
  }

 private:
  struct alignas(16) Slot {
    std::atomic<std::uint64_t> key{0};
    std::atomic<std::uint64_t> payload{0};  // check(key) << 8 | payload byte
  };
  static constexpr int kSlotsLog2 = 12;
  static std::size_t slot(std::uint64_t packed) noexcept {
    return static_cast<std::size_t>((packed * 0x9e3779b97f4a7c15ULL) >> (64 - kSlotsLog2));
  }
  // 56 bits of the key's image under another odd multiplier (never the slot's bits alone).
  static std::uint64_t check(std::uint64_t packed) noexcept {
    return (packed * 0xd6e8feb86659fd93ULL) >> 8;
  }
  std::array<Slot, std::size_t{1} << kSlotsLog2> slots_{};
};

}  // namespace adaptcore
