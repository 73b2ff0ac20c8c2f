#include "hw/cpuinfo_private.hpp"

#include <dlfcn.h>

#include <initializer_list>

namespace adaptcore {
namespace {

// The sanitizers' runtimes refuse RTLD_DEEPBIND (their dlopen interceptor ends the process):
// not when this library is built with one, nor in a host program that runs under one (a
// sanitizer runtime in the process exports __sanitizer_print_stack_trace). Without it, a
// cpuinfo the host loaded globally first may take over libcpuinfo's own references, which
// detect.cpp's check of the ISA flags catches.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kBuiltWithSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kBuiltWithSanitizer = true;
#else
constexpr bool kBuiltWithSanitizer = false;
#endif
#else
constexpr bool kBuiltWithSanitizer = false;
#endif

int deep_bind() {
  if (kBuiltWithSanitizer || dlsym(RTLD_DEFAULT, "__sanitizer_print_stack_trace") != nullptr)
    return 0;
  return RTLD_DEEPBIND;
}

template <class T>
bool resolve(void* lib, const char* name, T& out) {
  out = reinterpret_cast<T>(dlsym(lib, name));
  return out != nullptr;
}

const CpuinfoView* open_cpuinfo() {
  void* lib = nullptr;
  for (const char* name : {"libcpuinfo.so.0", "libcpuinfo.so"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | deep_bind());
    if (lib != nullptr) break;
  }
  if (lib == nullptr) return nullptr;
  static CpuinfoView view{};
  bool ok = resolve(lib, "cpuinfo_initialize", view.initialize) &&
            resolve(lib, "cpuinfo_get_package", view.get_package) &&
            resolve(lib, "cpuinfo_get_cores_count", view.get_cores_count) &&
            resolve(lib, "cpuinfo_get_l1d_cache", view.get_l1d_cache) &&
            resolve(lib, "cpuinfo_get_l2_cache", view.get_l2_cache) &&
            resolve(lib, "cpuinfo_get_l3_cache", view.get_l3_cache);
#if defined(__x86_64__) || defined(__i386__)
  ok = ok && resolve(lib, "cpuinfo_isa", view.isa);
#endif
  if (!ok) {
    dlclose(lib);
    return nullptr;
  }
  return &view;
}

}  // namespace

const CpuinfoView* private_cpuinfo() noexcept {
  static const CpuinfoView* view = open_cpuinfo();
  return view;
}

}  // namespace adaptcore
