// The plan cache: shape key -> plan, O(1). Readers take no lock: the table is open addressing
// over atomic pointers to immutable entries. Writers (cache misses) serialise on a mutex; when
// the table fills past half, a table twice the size is built and published, and retired tables
// are kept until the cache is destroyed, or until their owner (the context's Reclaimer) knows
// no reader can hold them, so a concurrent reader never touches freed memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/shape_key.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

class PlanCache {
 public:
  explicit PlanCache(std::size_t initial_capacity = 1024);
  ~PlanCache();
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The cached plan for key, or nullptr. Lock-free; the pointer stays valid until clear() or
  // destruction.
  const Plan* find(const ShapeKey& key) const noexcept {
    const Table* t = table_.load(std::memory_order_acquire);
    const std::uint64_t h = hash_key(key);
    for (std::size_t i = h & t->mask;; i = (i + 1) & t->mask) {
      const Entry* e = t->slots[i].load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;
      if (e->hash == h && e->key == key) return &e->plan;
    }
  }

  // Inserts (or keeps the existing plan for) key; returns the cached plan, or nullptr when the
  // cache holds max_entries plans already (a stream of ever-new shapes must not grow memory
  // without bound; such calls are planned each time).
  const Plan* insert(const ShapeKey& key, const Plan& plan);

  static constexpr std::size_t max_entries = std::size_t{1} << 18;

  std::size_t size() const noexcept { return size_.load(std::memory_order_relaxed); }
  // Drops every entry. Safe against concurrent find(): old tables and entries are retired,
  // not freed, until destruction (clear is rare: profile or configuration changes).
  void clear();

  // What clear() retired so far (old tables and entries), handed over to be freed once no
  // reader can hold it; destroying the result frees it.
  struct Retired;
  std::unique_ptr<Retired> take_retired();

  // fork(): the write lock is held across fork so the child never inherits it locked.
  void lock_for_fork() noexcept { write_.lock(); }
  void unlock_after_fork() noexcept { write_.unlock(); }

  // Every cached (key, plan), in insertion order, copied under the write mutex (plan files).
  std::vector<std::pair<ShapeKey, Plan>> snapshot() const;

 private:
  struct Entry {
    ShapeKey key;
    std::uint64_t hash;
    Plan plan;
  };
  struct Table {
    explicit Table(std::size_t cap) : mask(cap - 1), slots(cap) {}
    std::size_t mask;
    std::vector<std::atomic<const Entry*>> slots;
  };

  void place(Table& t, const Entry* e) noexcept;

 public:
  struct Retired {
    std::vector<std::unique_ptr<Table>> tables;
    std::vector<std::unique_ptr<Entry>> entries;
  };

 private:
  std::atomic<Table*> table_;
  std::atomic<std::size_t> size_{0};
  mutable std::mutex write_;
  std::vector<std::unique_ptr<Table>> tables_;   // current and retired tables
  std::vector<std::unique_ptr<Entry>> entries_;  // owned entries
  std::vector<std::unique_ptr<Table>> retired_tables_;
  std::vector<std::unique_ptr<Entry>> retired_entries_;
  std::size_t initial_capacity_;
};

}  // namespace adaptcore
