// fork() safety for objects that own locks or threads. fork() copies only the calling thread:
// a lock held by another thread stays locked forever in the child, and worker threads are
// gone while the objects that wait for them are not. So, as OpenMP runtimes and BLAS libraries
// do, every registered object takes its locks just before fork (pthread_atfork's prepare
// step, waiting for a call in flight to finish), releases them afterwards in the parent, and in
// the child releases them and forgets its threads (they are started again when next needed).
#pragma once

namespace adaptcore {

class ForkAware {
 public:
  virtual void before_fork() noexcept = 0;
  virtual void after_fork_parent() noexcept = 0;
  virtual void after_fork_child() noexcept = 0;

  // Locks are taken in this order, the order every other path takes them in: contexts'
  // configuration locks (a configuration change then frees through the reclaimer's registry),
  // the reclaimer's thread registry, and the pools' job locks last. Released in reverse.
  enum class Order { Context = 0, Registry = 1, Pool = 2 };

 protected:
  ForkAware() = default;
  virtual ~ForkAware() = default;

 private:
  friend class ForkRegistry;
  ForkAware* prev_ = nullptr;
  ForkAware* next_ = nullptr;
};

// Registration allocates nothing (an intrusive list), so it cannot fail.
void register_for_fork(ForkAware* obj, ForkAware::Order order) noexcept;
void unregister_for_fork(ForkAware* obj, ForkAware::Order order) noexcept;

}  // namespace adaptcore
