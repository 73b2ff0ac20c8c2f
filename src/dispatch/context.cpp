#include <cstdlib>
#include <new>

#include "core/env_value.hpp"
#include "core/exception_status.hpp"
#include "dispatch/call_log.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/kernel_select.hpp"
#include "dispatch/plan_file.hpp"
#include "exec/executor.hpp"
#include "exec/host_openmp.hpp"
#include "hw/usable_cpus.hpp"
#include "kernels/registry.hpp"

namespace adaptcore {
namespace detail {

ContextImpl::ContextImpl(const ContextOptions& options) {
  for (const Isa i : kernels::built_levels())
    fp32_kernels_[static_cast<std::size_t>(i)] = kernels::kernels_for(i);
  const bool env = options.read_environment;
  const char* env_threads = env ? std::getenv("ADAPTCORE_NUM_THREADS") : nullptr;
  const char* env_isa = env ? std::getenv("ADAPTCORE_ISA") : nullptr;
  const char* env_profile = env ? std::getenv("ADAPTCORE_HW_PROFILE") : nullptr;
  const char* env_threading = env ? std::getenv("ADAPTCORE_THREADING") : nullptr;
  const char* env_residency = env ? std::getenv("ADAPTCORE_RESIDENCY") : nullptr;
  verbose_ = env && verbose_from_environment();

  profile_ = std::make_unique<HardwareProfile>(default_hardware());
  hw_.store(profile_.get(), std::memory_order_release);
  auto note = [&](Status s, const std::string& msg) {
    if (init_status == Status::Ok) init_status = s;
    init_message += (init_message.empty() ? "" : "; ") + msg;
  };

  std::string profile = options.profile_path;
  if (profile.empty() && env_profile != nullptr) profile = env_profile;
  if (!profile.empty()) {
    std::string err;
    if (const Status s = load_profile(profile, &err); s != Status::Ok)
      note(s == Status::OutOfMemory ? s : Status::InvalidProfile,
           "hardware profile ignored: " + err);
  }

  if (env_threading != nullptr) {
    Threading t = Threading::Auto;
    if (parse_threading(env_threading, t))
      pool_.set_threading(t);
    else
      note(Status::InvalidArgument,
           std::string("ADAPTCORE_THREADING ignored: not auto, pool or openmp: '") + env_threading +
               "'");
  }

  if (set_residency(options.residency) != Status::Ok)
    note(Status::InvalidArgument, "ContextOptions::residency ignored: not a Residency value");
  if (options.residency == Residency::Auto && env_residency != nullptr) {
    const std::string v = env_word(env_residency);
    if (v == "auto" || v == "cached" || v == "memory")
      set_residency(v == "auto"     ? Residency::Auto
                    : v == "cached" ? Residency::Cached
                                    : Residency::Memory);
    else
      note(Status::InvalidArgument,
           std::string("ADAPTCORE_RESIDENCY ignored: not auto, cached or memory: '") +
               env_residency + "'");
  }

  // The CPUs this process may use now (affinity mask, cgroup quota): the default thread count
  // and the pool's spin decision follow them, not the machine's cores.
  const UsableCpus cpus = usable_cpus();
  pool_.set_cpus(cpus.count);
  int threads = options.threads;
  if (threads <= 0 && env_threads != nullptr) {
    int v = 0;
    if (parse_env_count(env_threads, kMaxThreads, v))
      threads = v;
    else
      note(Status::InvalidArgument, std::string("ADAPTCORE_NUM_THREADS ignored: '") + env_threads +
                                        "' is not a count in 1.." + std::to_string(kMaxThreads));
  }
  // An asked-for count that cannot run: why, completed below with what runs instead.
  std::string refused;
  Status refused_status = Status::Ok;
  if (threads > 0) {
    if (const Status s = set_threads(threads); s != Status::Ok) {
      refused = "cannot run " + std::to_string(threads) + " threads (" +
                (s == Status::InvalidArgument ? "not a count in 1.." + std::to_string(kMaxThreads)
                                              : std::string(to_string(s))) +
                ")";
      refused_status = s;
      threads = 0;
    }
  }
  if (threads <= 0) {
    // The default follows the usable CPUs (at most the profile's cores and kMaxThreads), or
    // the host's OpenMP per call; it is not an explicit count. If the system refuses the
    // threads, fewer are used.
    const int wanted = std::max(1, std::min({hardware().cores, cpus.count, kMaxThreads}));
    int want = wanted;
    while (want > 1 && pool_.resize(want) != Status::Ok) want /= 2;
    threads_.store(want, std::memory_order_relaxed);
    const std::string runs = "running on " + std::to_string(want) +
                             (want == 1 ? " thread" : " threads") + " (the default";
    if (!refused.empty())
      note(refused_status,
           refused + "; " + runs +
               (want < wanted ? ", fewer: the system refused worker threads)" : ")"));
    else if (want < wanted)
      note(Status::OutOfMemory,
           "the system refused worker threads; " + runs + " is " + std::to_string(wanted) + ")");
  }

  Isa isa = options.isa;
  if (isa == Isa::Auto && env_isa != nullptr && !parse_isa(env_isa, isa))
    note(Status::InvalidArgument,
         std::string("ADAPTCORE_ISA ignored: unknown path '") + env_isa + "'");
  if (set_isa(isa) != Status::Ok) {
    note(Status::UnsupportedIsa, std::string("ISA ") + to_string(isa) +
                                     " is not supported by this CPU; using the best available");
    set_isa(Isa::Auto);
  }

  // Plans made ahead of time, after the profile and ISA they must match are settled.
  std::string plans = options.plan_file;
  const char* env_plans = env ? std::getenv("ADAPTCORE_PLAN_FILE") : nullptr;
  if (plans.empty() && env_plans != nullptr) plans = env_plans;
  if (!plans.empty()) {
    std::string err;
    if (adaptcore::load_plan_file(*this, plans, &err) != Status::Ok)
      note(Status::InvalidPlanFile, "plan file " + plans + " ignored: " + err);
  }
  register_for_fork(this, Order::Context);
}

ContextImpl::~ContextImpl() { unregister_for_fork(this, Order::Context); }

Status ContextImpl::set_threads(int threads) noexcept {
  if (threads < 1 || threads > kMaxThreads) return Status::InvalidArgument;
  std::lock_guard lock(config_);
  // The mask may have changed since the context was made (a framework pinning its threads).
  pool_.set_cpus(usable_cpus().count);
  // The pool is sized now, so that a refused thread is reported here, not met by a call.
  if (const Status s = pool_.resize(threads); s != Status::Ok) return s;
  threads_.store(threads, std::memory_order_relaxed);
  threads_explicit_.store(true, std::memory_order_relaxed);
  return Status::Ok;
}

int ContextImpl::threads_implicit() const noexcept {
  if (pool_.threading() != Threading::Pool) {
    if (const HostOpenMP* rt = host_openmp()) {
      if (rt->in_parallel() != 0) return 1;  // the host already runs this thread's team
      return std::clamp(rt->max_threads(), 1, kMaxThreads);
    }
  }
  return threads_.load(std::memory_order_relaxed);
}

Status ContextImpl::set_residency(Residency r) noexcept {
  if (!valid_residency(r)) return Status::InvalidArgument;
  residency_.store(r, std::memory_order_relaxed);
  return Status::Ok;
}

Status ContextImpl::set_isa(Isa isa) noexcept {
  const HardwareProfile& hw = hardware();
  const Isa target = isa == Isa::Auto ? hw.best_isa() : isa;
  if (runnable_kernels(target) == nullptr) return Status::UnsupportedIsa;
  isa_.store(target, std::memory_order_relaxed);
  return Status::Ok;
}

Status ContextImpl::load_profile(const std::string& path, std::string* error) noexcept {
  try {
    // "detected": detection alone, without the shipped profile (kDetectedProfile).
    auto hw = std::make_unique<HardwareProfile>(detected_hardware());
    if (path != kDetectedProfile) {
      const Status s = load_profile_file(path, default_hardware(), *hw, error);
      if (s != Status::Ok) return s;
    }
    std::lock_guard lock(config_);
    // Plans were made for the old profile. The old profile and plans are freed once no call
    // can still read them.
    reclaimer_.retire(std::unique_ptr<const HardwareProfile>(std::move(profile_)));
    profile_ = std::move(hw);
    hw_.store(profile_.get(), std::memory_order_seq_cst);
    clear_plans_locked();
    return Status::Ok;
  } catch (...) {
    return exception_status(error);
  }
}

void ContextImpl::clear_plans_locked() {
  cache_.clear();
  small_calls_.clear();
  reclaimer_.retire(cache_.take_retired());
  reclaimer_.collect();
}

void ContextImpl::clear_plan_cache() noexcept {
  try {
    std::lock_guard lock(config_);
    clear_plans_locked();
  } catch (...) {
    // Out of memory while retiring: the old plans stay with the cache until it is destroyed.
  }
}

const kernels::IsaKernels& ContextImpl::kernels(const Config& cfg) const noexcept {
  const kernels::IsaKernels* ks = kernels_of_isa_bits(static_cast<std::uint64_t>(cfg.isa));
  return ks != nullptr ? *ks : *kernels::kernels_for(kernels::built_levels().front());
}

ThreadPool& ContextImpl::pool_for(int threads) noexcept {
  if (pool_.max_threads() < threads && !pool_.on_host_openmp()) {
    // Best effort: a refused thread leaves the pool as it was, and a call of more tasks than
    // the pool has threads runs them on the caller (same result).
    std::lock_guard lock(config_);
    if (pool_.max_threads() < threads) pool_.resize(threads);
  }
  return pool_;
}

void ContextImpl::before_fork() noexcept {
  config_.lock();
  cache_.lock_for_fork();
}

void ContextImpl::after_fork_parent() noexcept {
  cache_.unlock_after_fork();
  config_.unlock();
}

// The child has nothing of its own to reset: the pool (its own ForkAware) forgets its workers.
void ContextImpl::after_fork_child() noexcept { after_fork_parent(); }

}  // namespace detail

// A Context whose state could not be made (out of memory): every call on it returns
// OutOfMemory instead of touching a null pointer.
#define ADAPTCORE_CTX_OR(fallback) \
  if (impl_ == nullptr) return fallback

Context::Context() : Context(ContextOptions{}) {}
Context::Context(const ContextOptions& options)
    : impl_(std::make_unique<detail::ContextImpl>(options)) {}
Context::Context(Unusable) noexcept {}
Context::~Context() = default;

Status Context::init_status() const noexcept {
  ADAPTCORE_CTX_OR(Status::OutOfMemory);
  return impl_->init_status;
}
const std::string& Context::init_message() const noexcept {
  static const std::string* none = new std::string;  // outlives static destructors
  ADAPTCORE_CTX_OR(*none);
  return impl_->init_message;
}
Status Context::set_threads(int threads) noexcept {
  ADAPTCORE_CTX_OR(Status::OutOfMemory);
  return impl_->set_threads(threads);
}
int Context::threads() const noexcept {
  ADAPTCORE_CTX_OR(1);
  return impl_->threads();
}
Status Context::set_isa(Isa isa) noexcept {
  ADAPTCORE_CTX_OR(Status::OutOfMemory);
  return impl_->set_isa(isa);
}
Isa Context::isa() const noexcept {
  ADAPTCORE_CTX_OR(Isa::Generic);
  return impl_->isa();
}
Status Context::set_residency(Residency r) noexcept {
  ADAPTCORE_CTX_OR(Status::OutOfMemory);
  return impl_->set_residency(r);
}
Residency Context::residency() const noexcept {
  ADAPTCORE_CTX_OR(Residency::Auto);
  return impl_->residency();
}
const HardwareProfile& Context::hardware() const noexcept {
  ADAPTCORE_CTX_OR(default_hardware());
  return impl_->hardware();
}
Status Context::load_hardware_profile(const std::string& path, std::string* error) noexcept {
  ADAPTCORE_CTX_OR(Status::OutOfMemory);
  return impl_->load_profile(path, error);
}
std::size_t Context::cached_plans() const noexcept {
  ADAPTCORE_CTX_OR(0);
  return impl_->cache().size();
}
void Context::clear_plan_cache() noexcept {
  if (impl_ != nullptr) impl_->clear_plan_cache();
}
Status Context::load_plan_file(const std::string& path, std::string* error) noexcept {
  ADAPTCORE_CTX_OR(Status::OutOfMemory);
  const auto section = impl_->reading();
  return adaptcore::load_plan_file(*impl_, path, error);
}
Status Context::save_plan_file(const std::string& path, std::string* error) noexcept {
  ADAPTCORE_CTX_OR(Status::OutOfMemory);
  const auto section = impl_->reading();
  return adaptcore::save_plan_file(*impl_, path, error);
}
#undef ADAPTCORE_CTX_OR

Context& default_context() noexcept {
  // Made on first use and never destroyed: a GEMM from an atexit handler, a static destructor
  // or a thread still running at exit finds it alive. If it cannot be made (out of memory), an
  // unusable context answers OutOfMemory, and the next call tries again.
  static std::atomic<Context*> instance{nullptr};
  static std::mutex make;
  if (Context* c = instance.load(std::memory_order_acquire)) return *c;
  alignas(Context) static unsigned char unusable_storage[sizeof(Context)];
  static Context* const unusable = new (unusable_storage) Context(Context::Unusable{});
  try {
    std::lock_guard lock(make);
    if (Context* c = instance.load(std::memory_order_acquire)) return *c;
    Context* c = new Context;
    instance.store(c, std::memory_order_release);
    return *c;
  } catch (...) {
    return *unusable;
  }
}

}  // namespace adaptcore
