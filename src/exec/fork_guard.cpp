#include "exec/fork_guard.hpp"

#include <pthread.h>

#include <mutex>
#include <type_traits>

namespace adaptcore {

class ForkRegistry {
 public:
  constexpr ForkRegistry() = default;
  static ForkRegistry& get() noexcept;

  void add(ForkAware* obj, ForkAware::Order order) noexcept {
    std::call_once(installed_, [] {
      pthread_atfork([] { get().prepare(); }, [] { get().parent(); }, [] { get().child(); });
    });
    std::lock_guard lock(mu_);
    ForkAware*& head = heads_[static_cast<int>(order)];
    obj->prev_ = nullptr;
    obj->next_ = head;
    if (head != nullptr) head->prev_ = obj;
    head = obj;
  }

  void remove(ForkAware* obj, ForkAware::Order order) noexcept {
    std::lock_guard lock(mu_);
    ForkAware*& head = heads_[static_cast<int>(order)];
    if (obj->prev_ != nullptr)
      obj->prev_->next_ = obj->next_;
    else if (head == obj)
      head = obj->next_;
    if (obj->next_ != nullptr) obj->next_->prev_ = obj->prev_;
    obj->prev_ = obj->next_ = nullptr;
  }

 private:
  // The registry's own lock stays held from prepare until parent/child: no object can come or
  // go in between, and every object seen by prepare is released by the same walk.
  void prepare() noexcept {
    mu_.lock();
    for (ForkAware* head : heads_)
      for (ForkAware* o = head; o != nullptr; o = o->next_) o->before_fork();
  }
  void parent() noexcept {
    release([](ForkAware* o) { o->after_fork_parent(); });
  }
  void child() noexcept {
    release([](ForkAware* o) { o->after_fork_child(); });
  }
  template <class F>
  void release(F f) noexcept {
    for (int i = kOrders - 1; i >= 0; --i)
      for (ForkAware* o = heads_[i]; o != nullptr; o = o->next_) f(o);
    mu_.unlock();
  }

  static constexpr int kOrders = 3;
  std::once_flag installed_;
  std::mutex mu_;
  ForkAware* heads_[kOrders] = {};
};
static_assert(std::is_trivially_destructible_v<ForkRegistry>);

namespace {
// Constant-initialised and trivially destructible: usable before any constructor and after
// every destructor of the process has run (objects may unregister from static destructors).
constinit ForkRegistry registry;
}  // namespace

ForkRegistry& ForkRegistry::get() noexcept { return registry; }

void register_for_fork(ForkAware* obj, ForkAware::Order order) noexcept {
  ForkRegistry::get().add(obj, order);
}

void unregister_for_fork(ForkAware* obj, ForkAware::Order order) noexcept {
  ForkRegistry::get().remove(obj, order);
}

}  // namespace adaptcore
