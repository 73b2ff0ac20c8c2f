#include "dispatch/plan_cache.hpp"

namespace adaptcore {
namespace {
std::size_t pow2_at_least(std::size_t n) {
  std::size_t c = 16;
  while (c < n) c *= 2;
  return c;
}
}  // namespace

PlanCache::PlanCache(std::size_t initial_capacity)
    : initial_capacity_(pow2_at_least(initial_capacity)) {
  tables_.push_back(std::make_unique<Table>(initial_capacity_));
  table_.store(tables_.back().get(), std::memory_order_release);
}

PlanCache::~PlanCache() = default;

void PlanCache::place(Table& t, const Entry* e) noexcept {
  for (std::size_t i = e->hash & t.mask;; i = (i + 1) & t.mask) {
    if (t.slots[i].load(std::memory_order_relaxed) == nullptr) {
      t.slots[i].store(e, std::memory_order_release);
      return;
    }
  }
}

const Plan* PlanCache::insert(const ShapeKey& key, const Plan& plan) {
  std::lock_guard lock(write_);
  if (const Plan* existing = find(key)) return existing;
  if (size_.load(std::memory_order_relaxed) >= max_entries) return nullptr;
  Table* t = table_.load(std::memory_order_relaxed);
  if ((size_.load(std::memory_order_relaxed) + 1) * 2 > t->slots.size()) {
    // Grow: build the bigger table fully, then publish it.
    auto bigger = std::make_unique<Table>(t->slots.size() * 2);
    for (const auto& e : entries_) place(*bigger, e.get());
    t = bigger.get();
    tables_.push_back(std::move(bigger));
    table_.store(t, std::memory_order_release);
  }
  entries_.push_back(std::make_unique<Entry>(Entry{key, hash_key(key), plan}));
  place(*t, entries_.back().get());
  size_.fetch_add(1, std::memory_order_relaxed);
  return &entries_.back()->plan;
}

std::vector<std::pair<ShapeKey, Plan>> PlanCache::snapshot() const {
  std::lock_guard lock(write_);
  std::vector<std::pair<ShapeKey, Plan>> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.emplace_back(e->key, e->plan);
  return out;
}

std::unique_ptr<PlanCache::Retired> PlanCache::take_retired() {
  auto r = std::make_unique<Retired>();
  std::lock_guard lock(write_);
  r->tables.swap(retired_tables_);
  r->entries.swap(retired_entries_);
  return r;
}

void PlanCache::clear() {
  std::lock_guard lock(write_);
  for (auto& t : tables_) retired_tables_.push_back(std::move(t));
  for (auto& e : entries_) retired_entries_.push_back(std::move(e));
  tables_.clear();
  entries_.clear();
  tables_.push_back(std::make_unique<Table>(initial_capacity_));
  table_.store(tables_.back().get(), std::memory_order_release);
  size_.store(0, std::memory_order_relaxed);
}

}  // namespace adaptcore
