// Whether a library may be opened with RTLD_DEEPBIND in this process. The sanitizers' runtimes
// refuse it (their dlopen interceptor ends the process): not where this code is built with one,
// nor in a host program that runs under one (a sanitizer runtime in the process exports
// __sanitizer_print_stack_trace). Header-only: the private cpuinfo (cpuinfo_private.cpp) and the
// benchmark's vendor loader (bench/baselines/dynlib.cpp) ask the same question.
#pragma once

#include <dlfcn.h>

namespace adaptcore {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kBuiltWithSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
inline constexpr bool kBuiltWithSanitizer = true;
#else
inline constexpr bool kBuiltWithSanitizer = false;
#endif
#else
inline constexpr bool kBuiltWithSanitizer = false;
#endif

inline bool deep_bind_allowed() noexcept {
  return !kBuiltWithSanitizer && dlsym(RTLD_DEFAULT, "__sanitizer_print_stack_trace") == nullptr;
}

}  // namespace adaptcore
