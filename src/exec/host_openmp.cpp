#include "exec/host_openmp.hpp"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace adaptcore {
namespace {

// The loader's count of objects ever added plus removed: changes with every dlopen/dlclose.
struct LoadCount {
  unsigned long long adds = 0, subs = 0;
};

int read_count(dl_phdr_info* info, std::size_t size, void* out) {
  auto* c = static_cast<LoadCount*>(out);
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    c->adds = info->dlpi_adds;
    c->subs = info->dlpi_subs;
  }
  return 1;  // the first object is enough: the counts are the same in every callback
}

constexpr const char* kRuntimes[] = {"libgomp.so", "libomp.so", "libiomp5.so"};
constexpr std::size_t kPathMax = 4096;

struct Found {
  char path[kPathMax] = {};
};

int find_runtime(dl_phdr_info* info, std::size_t, void* out) {
  const char* name = info->dlpi_name;
  if (name == nullptr || *name == '\0') return 0;
  const char* base = std::strrchr(name, '/');
  base = base != nullptr ? base + 1 : name;
  for (const char* rt : kRuntimes) {
    if (std::strncmp(base, rt, std::strlen(rt)) == 0 && std::strlen(name) < kPathMax) {
      std::strcpy(static_cast<Found*>(out)->path, name);
      return 1;
    }
  }
  return 0;
}

template <class F>
bool bind(void* handle, const char* symbol, F& fn) {
  void* p = dlsym(handle, symbol);
  fn = reinterpret_cast<F>(p);
  return p != nullptr;
}

struct State {
  std::mutex mu;
  std::atomic<unsigned long long> seen_adds{~0ULL}, seen_subs{~0ULL};
  std::atomic<const HostOpenMP*> found{nullptr};
  HostOpenMP rt;      // written once, before `found` publishes it
  bool gomp = false;  // rt is GNU libgomp (written with rt)
  // This process is the child of a fork made after the state existed.
  std::atomic<bool> forked{false};
};

State& state() noexcept {
  // Never destroyed: calls from atexit handlers and from threads still running at exit.
  static State* s = [] {
    auto* st = new State;
    pthread_atfork(nullptr, nullptr, [] { state().forked.store(true, std::memory_order_relaxed); });
    return st;
  }();
  return *s;
}

// The runtime found, unless it is libgomp in a forked child (host_openmp.hpp).
const HostOpenMP* usable(const State& s, const HostOpenMP* rt) noexcept {
  return s.gomp && s.forked.load(std::memory_order_relaxed) ? nullptr : rt;
}

}  // namespace

const HostOpenMP* host_openmp() noexcept {
  State& s = state();
  // A runtime once found stays: it is never unloaded while a thread of its team may be ours
  // (dlopen below holds a reference).
  if (const HostOpenMP* rt = s.found.load(std::memory_order_acquire)) return usable(s, rt);
  // Asking the loader costs about 100 ns (its lock), too much for every call of a tiny GEMM:
  // each thread asks on its first call and then every 64th, so a runtime loaded later (a
  // framework imported after the first GEMM) is found within 64 calls.
  thread_local unsigned skip = 0;
  if (skip > 0) {
    --skip;
    return nullptr;
  }
  skip = 63;
  LoadCount now;
  dl_iterate_phdr(read_count, &now);
  if (now.adds == s.seen_adds.load(std::memory_order_relaxed) &&
      now.subs == s.seen_subs.load(std::memory_order_relaxed))
    return nullptr;
  // Another thread is scanning: ask again later. (Never waiting also means a fork that copies
  // this lock held cannot block the child.)
  std::unique_lock lock(s.mu, std::try_to_lock);
  if (!lock.owns_lock()) return nullptr;
  if (const HostOpenMP* rt = s.found.load(std::memory_order_acquire)) return usable(s, rt);
  Found f;
  dl_iterate_phdr(find_runtime, &f);
  if (f.path[0] != '\0') {
    // RTLD_NOLOAD: only a runtime that is already there, never a new one.
    if (void* h = dlopen(f.path, RTLD_LAZY | RTLD_NOLOAD)) {
      HostOpenMP rt;
      if (bind(h, "GOMP_parallel", rt.parallel) && bind(h, "omp_get_thread_num", rt.thread_num) &&
          bind(h, "omp_get_num_threads", rt.num_threads) &&
          bind(h, "omp_get_max_threads", rt.max_threads) &&
          bind(h, "omp_in_parallel", rt.in_parallel)) {
        s.rt = rt;
        const char* base = std::strrchr(f.path, '/');
        s.gomp = std::strncmp(base != nullptr ? base + 1 : f.path, "libgomp", 7) == 0;
        s.found.store(&s.rt, std::memory_order_release);
        return usable(s, &s.rt);
      }
      dlclose(h);
    }
  }
  s.seen_adds.store(now.adds, std::memory_order_relaxed);
  s.seen_subs.store(now.subs, std::memory_order_relaxed);
  return nullptr;
}

}  // namespace adaptcore
