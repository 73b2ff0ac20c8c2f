#include <cstdlib>

#include "dispatch/context_impl.hpp"
#include "dispatch/kernel_select.hpp"
#include "dispatch/plan_file.hpp"
#include "exec/executor.hpp"

namespace adaptcore {
namespace detail {

ContextImpl::ContextImpl(const ContextOptions& options) {
  const char* env_threads = options.read_environment ? std::getenv("ADAPTCORE_NUM_THREADS") : nullptr;
  const char* env_isa = options.read_environment ? std::getenv("ADAPTCORE_ISA") : nullptr;
  const char* env_profile = options.read_environment ? std::getenv("ADAPTCORE_HW_PROFILE") : nullptr;

  profiles_.push_back(std::make_unique<HardwareProfile>(detected_hardware()));
  hw_.store(profiles_.back().get(), std::memory_order_release);
  auto note = [&](Status s, const std::string& msg) {
    if (init_status == Status::Ok) init_status = s;
    init_message += (init_message.empty() ? "" : "; ") + msg;
  };

  std::string profile = options.profile_path;
  if (profile.empty() && env_profile != nullptr) profile = env_profile;
  if (!profile.empty()) {
    std::string err;
    if (load_profile(profile, &err) != Status::Ok)
      note(Status::InvalidProfile, "hardware profile ignored: " + err);
  }

  int threads = options.threads;
  if (threads <= 0 && env_threads != nullptr) {
    char* end = nullptr;
    const long v = std::strtol(env_threads, &end, 10);
    if (end != env_threads && *end == '\0' && v > 0 && v <= 1024)
      threads = static_cast<int>(v);
    else
      note(Status::InvalidArgument, "ADAPTCORE_NUM_THREADS ignored: not a count in 1..1024");
  }
  if (threads <= 0) threads = hardware().cores;
  set_threads(threads);

  Isa isa = options.isa;
  if (isa == Isa::Auto && env_isa != nullptr && !parse_isa(env_isa, isa))
    note(Status::InvalidArgument, std::string("ADAPTCORE_ISA ignored: unknown path '") + env_isa + "'");
  if (set_isa(isa) != Status::Ok) {
    note(Status::UnsupportedIsa, std::string("ISA ") + to_string(isa) +
                                     " is not supported by this CPU; using the best available");
    set_isa(Isa::Auto);
  }

  // Plans made ahead of time, after the profile and ISA they must match are settled.
  std::string plans = options.plan_file;
  const char* env_plans = options.read_environment ? std::getenv("ADAPTCORE_PLAN_FILE") : nullptr;
  if (plans.empty() && env_plans != nullptr) plans = env_plans;
  if (!plans.empty()) {
    std::string err;
    if (adaptcore::load_plan_file(*this, plans, &err) != Status::Ok)
      note(Status::InvalidPlanFile, "plan file " + plans + " ignored: " + err);
  }
}

Status ContextImpl::set_threads(int threads) noexcept {
  if (threads < 1 || threads > 1024) return Status::InvalidArgument;
  try {
    std::lock_guard lock(config_);
    ThreadPool* pool = pool_.load(std::memory_order_relaxed);
    if (pool == nullptr || pool->max_threads() < threads) {
      pools_.push_back(std::make_unique<ThreadPool>(threads));
      pool_.store(pools_.back().get(), std::memory_order_release);
    }
  } catch (...) {
    return Status::OutOfMemory;
  }
  threads_.store(threads, std::memory_order_relaxed);
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
    HardwareProfile hw;
    const Status s = load_profile_file(path, detected_hardware(), hw, error);
    if (s != Status::Ok) return s;
    {
      std::lock_guard lock(config_);
      profiles_.push_back(std::make_unique<HardwareProfile>(std::move(hw)));
      hw_.store(profiles_.back().get(), std::memory_order_release);
    }
    cache_.clear();  // plans were made for the old profile
    return Status::Ok;
  } catch (const std::bad_alloc&) {
    if (error != nullptr) *error = "out of memory";
    return Status::OutOfMemory;
  } catch (...) {  // std::system_error from the mutex
    if (error != nullptr) *error = "internal error";
    return Status::InternalError;
  }
}

const kernels::IsaKernels& ContextImpl::kernels() const noexcept {
  const kernels::IsaKernels* ks = kernels::kernels_for(isa());
  return ks != nullptr ? *ks : kernels::generic_kernels();
}

ShapeKey ContextImpl::key_for(const GemmProblem& prob) const noexcept {
  return make_key(prob, isa(), threads());
}

Explanation ContextImpl::explain(const ShapeKey& key) const {
  if (is_weight_quantized(key.dtype)) return explain_wq(key);
  if (key.dtype != DType::F32) return explain_lowp(key);
  return explain_plan(key, hardware(), *kernels::kernels_for(key.isa));
}

Plan ContextImpl::plan_for(const ShapeKey& key) {
  if (is_weight_quantized(key.dtype)) return wq_plan_for(key);
  if (key.dtype != DType::F32) return lowp_plan_for(key);
  if (const Plan* p = cache_.find(key)) return *p;
  const Plan plan = make_plan(key, hardware(), *kernels::kernels_for(key.isa));
  cache_.insert(key, plan);
  return plan;
}

ThreadPool& ContextImpl::pool_for(int threads) {
  ThreadPool* pool = pool_.load(std::memory_order_acquire);
  if (pool->max_threads() >= threads) return *pool;
  set_threads(threads);
  return *pool_.load(std::memory_order_acquire);
}

Status ContextImpl::run(const GemmProblem& prob) noexcept {
  if (prob.m == 0 || prob.n == 0) return Status::Ok;
  if (prob.k == 0 || prob.alpha == 0.0f) {
    scale_c(prob);
    return Status::Ok;
  }
  try {
    const ShapeKey key = key_for(prob);
    const kernels::IsaKernels* ks = kernels::kernels_for(key.isa);
    const Plan* cached = cache_.find(key);
    if (cached != nullptr && execute_single_tile(*cached, prob, *ks)) return Status::Ok;
    const Plan plan = cached != nullptr ? *cached : plan_for(key);
    return execute(plan, prob, *ks, pool_for(plan.threads()));
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory;
  } catch (...) {
    return Status::InternalError;
  }
}

}  // namespace detail

Context::Context() : Context(ContextOptions{}) {}
Context::Context(const ContextOptions& options)
    : impl_(std::make_unique<detail::ContextImpl>(options)) {}
Context::~Context() = default;

Status Context::init_status() const noexcept { return impl_->init_status; }
const std::string& Context::init_message() const noexcept { return impl_->init_message; }
Status Context::set_threads(int threads) noexcept { return impl_->set_threads(threads); }
int Context::threads() const noexcept { return impl_->threads(); }
Status Context::set_isa(Isa isa) noexcept { return impl_->set_isa(isa); }
Isa Context::isa() const noexcept { return impl_->isa(); }
const HardwareProfile& Context::hardware() const noexcept { return impl_->hardware(); }
Status Context::load_hardware_profile(const std::string& path, std::string* error) {
  return impl_->load_profile(path, error);
}
std::size_t Context::cached_plans() const noexcept { return impl_->cache().size(); }
void Context::clear_plan_cache() noexcept { impl_->cache().clear(); }
Status Context::load_plan_file(const std::string& path, std::string* error) {
  return adaptcore::load_plan_file(*impl_, path, error);
}
Status Context::save_plan_file(const std::string& path, std::string* error) {
  return adaptcore::save_plan_file(*impl_, path, error);
}

Context& default_context() {
  static Context ctx;
  return ctx;
}

}  // namespace adaptcore
