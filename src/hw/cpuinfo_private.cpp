#include "hw/cpuinfo_private.hpp"

#include <dlfcn.h>

#include <initializer_list>

#include "hw/deep_bind.hpp"

namespace adaptcore {
namespace {

template <class T>
bool resolve(void* lib, const char* name, T& out) {
  out = reinterpret_cast<T>(dlsym(lib, name));
  return out != nullptr;
}

const CpuinfoView* open_cpuinfo() {
  void* lib = nullptr;
  for (const char* name : {"libcpuinfo.so.0", "libcpuinfo.so"}) {
    // Without RTLD_DEEPBIND (a sanitizer in the process), a cpuinfo the host loaded globally
    // first may take over libcpuinfo's own references, which detect.cpp's check of the ISA
    // flags catches.
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | (deep_bind_allowed() ? RTLD_DEEPBIND : 0));
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
