#include "dispatch/reclaimer.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <new>

#include "exec/fork_guard.hpp"

namespace adaptcore {
namespace reclaim_detail {
namespace {

int membarrier(int cmd) noexcept { return static_cast<int>(syscall(__NR_membarrier, cmd, 0, 0)); }

// Every thread's slot, for the writers' scan. Never destroyed (threads may exit after static
// destructors ran), constant-initialised.
class SlotRegistry final : public ForkAware {
 public:
  SlotRegistry() = default;

  void add(Slot* s) noexcept {
    std::call_once(setup_, [this] {
      // The expedited barrier needs the process registered first; a kernel without it (or a
      // filter that refuses it) leaves the readers to fence themselves.
      expedited_ = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
      register_for_fork(this, Order::Registry);
    });
    s->fence = !expedited_;
    std::lock_guard lock(mu_);
    s->prev = nullptr;
    s->next = head_;
    if (head_ != nullptr) head_->prev = s;
    head_ = s;
  }

  void remove(Slot* s) noexcept {
    std::lock_guard lock(mu_);
    unlink(s);
  }

  // True when no registered thread is inside a section, after every thread's earlier stores
  // became visible (the barrier).
  bool quiescent() noexcept {
    if (!expedited_ || membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
      std::atomic_thread_fence(std::memory_order_seq_cst);
    std::lock_guard lock(mu_);
    for (Slot* s = head_; s != nullptr; s = s->next)
      if (s->depth.load(std::memory_order_acquire) != 0) return false;
    return true;
  }

  void before_fork() noexcept override { mu_.lock(); }
  void after_fork_parent() noexcept override { mu_.unlock(); }
  void after_fork_child() noexcept override;

 private:
  void unlink(Slot* s) noexcept {
    if (s->prev != nullptr)
      s->prev->next = s->next;
    else if (head_ == s)
      head_ = s->next;
    if (s->next != nullptr) s->next->prev = s->prev;
    s->prev = s->next = nullptr;
  }

  std::once_flag setup_;
  bool expedited_ = false;
  std::mutex mu_;
  Slot* head_ = nullptr;
};

// Made on first use in static storage and never destroyed: threads may exit (and unregister)
// after the process's static destructors ran.
SlotRegistry& registry() noexcept {
  alignas(SlotRegistry) static unsigned char storage[sizeof(SlotRegistry)];
  static SlotRegistry* const r = new (storage) SlotRegistry;
  return *r;
}

// The calling thread's slot, as a plain pointer (for the child of a fork, which must not
// construct anything while it holds the registry's lock).
thread_local Slot* my_slot = nullptr;

// The slot lives in the thread's storage and leaves the registry when the thread exits.
struct ThreadSlot {
  Slot slot;
  ThreadSlot() noexcept {
    registry().add(&slot);
    my_slot = &slot;
  }
  ~ThreadSlot() {
    my_slot = nullptr;
    registry().remove(&slot);
  }
};

void SlotRegistry::after_fork_child() noexcept {
  // Only the forking thread exists here: the other slots belong to threads that do not.
  Slot* mine = my_slot;
  head_ = nullptr;
  if (mine != nullptr) {
    mine->prev = mine->next = nullptr;
    head_ = mine;
  }
  mu_.unlock();
}

}  // namespace

Slot& thread_slot() noexcept {
  thread_local ThreadSlot t;
  return t.slot;
}

}  // namespace reclaim_detail

void Reclaimer::collect() noexcept {
  if (retired_.empty() || !reclaim_detail::registry().quiescent()) return;
  retired_.clear();
}

}  // namespace adaptcore
