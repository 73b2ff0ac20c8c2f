#include "hw/amx_support.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <cstdint>

namespace adaptcore {
namespace {

#if defined(__x86_64__)
// Linux's arch_prctl codes and the tile data state component (asm/prctl.h, not in every
// distribution's headers).
constexpr int kArchGetXcompPerm = 0x1022;
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

std::uint64_t xcr0() noexcept {
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}
#endif

AmxSupport request() noexcept {
  AmxSupport s = amx_capability();
#if defined(__x86_64__)
  if (!s.cpu || !s.os) return s;
  unsigned long bits = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &bits) == 0 &&
      (bits & (1ul << kXfeatureXtiledata)) != 0) {
    s.permitted = true;
    return s;
  }
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0) {
    s.permitted = true;
    return s;
  }
  s.why = "the kernel refused the tile data permission (arch_prctl ARCH_REQ_XCOMP_PERM)";
#endif
  return s;
}

}  // namespace

AmxSupport amx_capability() noexcept {
  AmxSupport s;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) {
    s.why = "no CPUID leaf 7";
    return s;
  }
  const bool tile = (d >> 24) & 1u, bf16 = (d >> 22) & 1u, int8 = (d >> 25) & 1u;
  s.cpu = tile && bf16 && int8;
  if (!s.cpu) {
    s.why = "the CPU has no AMX (CPUID leaf 7: AMX-TILE, AMX-BF16, AMX-INT8)";
    return s;
  }
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  const bool osxsave = __get_cpuid(1, &a1, &b1, &c1, &d1) != 0 && ((c1 >> 27) & 1u) != 0;
  s.os = osxsave && (xcr0() & (3ull << 17)) == (3ull << 17);
  if (!s.os) s.why = "the OS does not enable the tile state (XCR0 bits 17, 18)";
#else
  s.why = "not an x86-64 CPU";
#endif
  return s;
}

const AmxSupport& amx_support() noexcept {
  static const AmxSupport s = request();
  return s;
}

}  // namespace adaptcore
