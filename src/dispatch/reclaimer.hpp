// Deferred freeing for what lock-free readers may still hold: a context's old hardware
// profiles and the plan cache's old tables and entries. A GEMM call reads both without a lock,
// so a configuration change (a new profile, a cache clear) cannot free the old objects at once;
// keeping them until the context dies grew memory without bound when a program reloaded a
// profile in a loop. Instead each call is counted while it runs (a counter per stripe of
// threads, so concurrent callers do not share a cache line), and what was retired is freed by
// the next configuration change that finds no call running.
//
// Correctness: a reader increments its counter before it loads a shared pointer, and a writer
// swaps the pointer before it reads the counters (all sequentially consistent). A reader that
// the writer sees at zero either finished, or started after the swap and can only see the new
// objects.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace adaptcore {

class Reclaimer {
 public:
  class Section {
   public:
    explicit Section(Reclaimer& r) noexcept : count_(r.stripe()) {
      count_.fetch_add(1, std::memory_order_seq_cst);
    }
    ~Section() { count_.fetch_sub(1, std::memory_order_release); }
    Section(const Section&) = delete;
    Section& operator=(const Section&) = delete;

   private:
    std::atomic<std::int64_t>& count_;
  };

  // Takes ownership of an object to free once no reader can hold it. The caller serialises
  // retire() and collect() (the context's configuration lock).
  template <class T>
  void retire(std::unique_ptr<T> p) {
    if (p == nullptr) return;
    std::shared_ptr<T> owned(std::move(p));
    retired_.push_back([owned]() mutable { owned.reset(); });
  }
  void retire(std::function<void()> free) { retired_.push_back(std::move(free)); }

  // Frees everything retired so far if no reader is inside a section now.
  void collect() noexcept {
    for (const auto& s : stripes_)
      if (s.count.load(std::memory_order_seq_cst) != 0) return;
    for (auto& f : retired_) f();
    retired_.clear();
  }
  std::size_t retired() const noexcept { return retired_.size(); }

 private:
  struct alignas(64) Stripe {
    std::atomic<std::int64_t> count{0};
  };
  std::atomic<std::int64_t>& stripe() noexcept {
    static std::atomic<unsigned> next{0};
    thread_local const unsigned mine = next.fetch_add(1, std::memory_order_relaxed);
    return stripes_[mine % stripes_.size()].count;
  }

  std::array<Stripe, 16> stripes_{};
  std::vector<std::function<void()>> retired_;
};

}  // namespace adaptcore
