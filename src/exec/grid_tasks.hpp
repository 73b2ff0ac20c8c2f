// What every executor does around its loops, written once: the split of C (and of K) over the
// plan's core grid into one block per task, the call's scratch memory carved into per-task
// and shared regions before any task starts, and the dispatch of the tasks on the pool.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/int_math.hpp"
#include "exec/thread_pool.hpp"
#include "exec/workspace.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

// Half-open range [begin, end) of part `idx` of `parts` when `total` is split in whole units
// of `unit`: every part gets ceil(units / parts) units until they run out (so a part may be
// empty), which keeps every part's start a multiple of `unit`.
struct Range {
  int64_t begin = 0, end = 0;
};
inline Range split_range(int64_t total, int64_t unit, int parts, int idx) noexcept {
  if (parts == 1) return {0, total};  // the common case, without the divisions
  const int64_t per = ceil_div(ceil_div(total, unit), int64_t{parts});
  return {std::min(total, idx * per * unit), std::min(total, (idx + 1) * per * unit)};
}

// One task's block of C, rows [m0, m1) x columns [n0, n1), and its depth slice [k0, k1).
struct Block {
  int64_t m0 = 0, m1 = 0, n0 = 0, n1 = 0, k0 = 0, k1 = 0;
  bool empty() const noexcept { return m0 >= m1 || n0 >= n1; }
};

// Task tid's cell of the plan's pm x pn x pk grid, tid = (tm * pn + tn) * pk + tk, and its
// block: rows split in units of m_unit, columns of n_unit, depth in single steps.
struct GridCell {
  int tm = 0, tn = 0, tk = 0;
  Block block;
};
inline GridCell grid_cell(const Plan& p, int tid, int64_t m, int64_t n, int64_t k, int64_t m_unit,
                          int64_t n_unit) noexcept {
  GridCell c;
  int rest = tid;  // divisions only along the grid's split axes
  if (p.pk > 1) c.tk = rest % p.pk, rest /= p.pk;
  if (p.pn > 1) c.tn = rest % p.pn, rest /= p.pn;
  c.tm = rest;
  const Range r = split_range(m, m_unit, p.pm, c.tm), s = split_range(n, n_unit, p.pn, c.tn),
              d = split_range(k, 1, p.pk, c.tk);
  c.block = {r.begin, r.end, s.begin, s.end, d.begin, d.end};
  return c;
}

// The scratch memory of one call: a region per task (each part 64-byte aligned) followed by
// shared parts, reserved at once from the calling thread's grow-only workspace, so tasks never
// allocate and a failure is reported before any work is done.
class ScratchLayout {
 public:
  // Adds a part of `bytes` to every task's region / to the shared parts; returns its offset.
  std::size_t per_task(std::size_t bytes) noexcept { return add(task_bytes_, bytes); }
  std::size_t shared(std::size_t bytes) noexcept { return add(shared_bytes_, bytes); }

  // Reserves the regions of `tasks` tasks and the shared parts; false when memory is
  // exhausted. Nothing to reserve leaves the workspace untouched.
  bool reserve(int tasks) noexcept {
    tasks_ = static_cast<std::size_t>(tasks);
    const std::size_t total = task_bytes_ * tasks_ + shared_bytes_;
    if (total == 0) return true;
    base_ = reinterpret_cast<unsigned char*>(Workspace::local().reserve(total / sizeof(float)));
    return base_ != nullptr;
  }
  unsigned char* task(int tid) const noexcept {
    return base_ + static_cast<std::size_t>(tid) * task_bytes_;
  }
  unsigned char* shared_at(std::size_t offset) const noexcept {
    return base_ + tasks_ * task_bytes_ + offset;
  }

 private:
  static std::size_t add(std::size_t& size, std::size_t bytes) noexcept {
    const std::size_t at = size;
    size += (bytes + 63) / 64 * 64;
    return at;
  }

  std::size_t task_bytes_ = 0, shared_bytes_ = 0, tasks_ = 0;
  unsigned char* base_ = nullptr;
};

// Runs task(tid) for tid in [0, tasks): on the calling thread alone for one task, else on the
// pool (which partitions by tid, so the result does not depend on where a task runs).
// work_us: the whole job's time on one core, if known (ThreadPool::run).
template <class Task>
void run_tasks(ThreadPool& pool, int tasks, Task&& task, double work_us = ThreadPool::kLongJob) {
  if (tasks == 1)
    task(0);
  else
    pool.run(tasks, task, work_us);
}

// A plan's time on one core: its predicted time on its cores, times their number.
inline double one_core_us(const Plan& p) noexcept {
  return p.predicted_us > 0.0 ? p.predicted_us * p.threads() : ThreadPool::kLongJob;
}

}  // namespace adaptcore
