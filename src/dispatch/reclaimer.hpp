// Deferred freeing for what lock-free readers may still hold: a context's old hardware
// profiles and the plan cache's old tables and entries. A GEMM call reads both without a lock,
// so a configuration change (a new profile, a cache clear) cannot free the old objects at once;
// keeping them until the context dies grew memory without bound when a program reloaded a
// profile in a loop. Instead each thread marks the time it spends inside a call, and what was
// retired is freed by the next configuration change that finds no thread inside one.
//
// The mark must cost a call nothing measurable: a locked increment of a shared counter is a full
// fence, and with cold caches (operands rotating through memory) it stalled every tiny call on
// a cache miss (docs/RUNTIME.md). So a reader only stores to its own thread's slot, with no
// fence; the writer, which is rare, pays instead: membarrier(PRIVATE_EXPEDITED) makes every
// running thread of the process execute a full barrier before the writer reads the slots (the
// asymmetric scheme of userspace RCU's "memb" flavour). Where the kernel lacks membarrier, readers
// fence themselves.
//
// Correctness: a reader stores its depth before it loads a shared pointer; the writer swaps the
// pointer, then forces the barrier, then reads the depths. A reader the writer sees at zero
// either finished, or started after the swap and can only see the new objects.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace adaptcore {

namespace reclaim_detail {
struct Slot {
  std::atomic<std::uint32_t> depth{0};
  bool fence = false;  // membarrier is unavailable: the reader fences
  Slot* prev = nullptr;
  Slot* next = nullptr;
};
// This thread's slot, registered on first use and unregistered when the thread exits.
Slot& thread_slot() noexcept;
}  // namespace reclaim_detail

class Reclaimer {
 public:
  // A reader: every GEMM call, and anything else that reads a context's profile or plan cache
  // without its configuration lock. Nests.
  class Section {
   public:
    Section() noexcept : slot_(reclaim_detail::thread_slot()) {
      slot_.depth.store(slot_.depth.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      if (slot_.fence)
        std::atomic_thread_fence(std::memory_order_seq_cst);
      else
        std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    ~Section() {
      std::atomic_signal_fence(std::memory_order_seq_cst);
      slot_.depth.store(slot_.depth.load(std::memory_order_relaxed) - 1, std::memory_order_release);
    }
    Section(const Section&) = delete;
    Section& operator=(const Section&) = delete;

   private:
    reclaim_detail::Slot& slot_;
  };

  Reclaimer() = default;
  Reclaimer(const Reclaimer&) = delete;
  Reclaimer& operator=(const Reclaimer&) = delete;

  // Takes ownership of an object to free once no reader can hold it. The caller serialises
  // retire() and collect() (the context's configuration lock).
  template <class T>
  void retire(std::unique_ptr<T> p) {
    if (p != nullptr) retired_.emplace_back(std::move(p));  // keeps T's deleter
  }

  // Frees everything retired so far if no thread is inside a section now.
  void collect() noexcept;
  std::size_t retired() const noexcept { return retired_.size(); }

 private:
  std::vector<std::shared_ptr<const void>> retired_;
};

}  // namespace adaptcore
