// Run-time detection of the hardware profile with cpuinfo (opened privately,
// hw/cpuinfo_private.hpp; where it is missing, the compiler's CPUID reader and sysconf), plus the
// clock probe. Bandwidth and overhead figures are defaults scaled by the clock until a calibrated
// profile is loaded.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>

#include "adaptcore/hardware.hpp"
#include "hw/amx_support.hpp"
#include "hw/clock_probe.hpp"
#include "hw/cpuinfo_private.hpp"
#include "hw/detect_fallback.hpp"
#include "hw/fma_probe.hpp"

namespace adaptcore {
namespace {

// The L3 share one core can count on. Hypervisors report the L3 of a whole CCX or socket to a
// VM of a few vCPUs, while other tenants' cores fill the rest of it; and no current part
// without stacked cache gives a core more than 4 MiB (Zen 4 and 5: 32 MiB per 8 cores; Intel
// server parts: about 2 MiB). A larger share would send operands of 4-16 MiB per core to L3 in
// the model when they stream from DRAM (docs/MODEL.md, "Where the constants come from", has the
// measurement).
constexpr int64_t kMaxL3PerCore = 4LL * 1024 * 1024;

// Linux backs large anonymous buffers with 2 MiB pages only when transparent huge pages are
// set to "always" ("madvise" needs an madvise the caller's allocator does not make).
bool transparent_huge_pages_always() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(f, line) && line.find("[always]") != std::string::npos;
}

}  // namespace

// The ISA flags from the compiler's CPUID reader (which also checks that the OS saves the
// vector state).
void isa_flags_from_cpuid(HardwareProfile& hw) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  FeatureSet& s = hw.features;
  s.set(Feature::Fma3, __builtin_cpu_supports("fma") != 0);
  s.set(Feature::Avx2, __builtin_cpu_supports("avx2") != 0);
  s.set(Feature::Avx512F, __builtin_cpu_supports("avx512f") != 0);
  s.set(Feature::Avx512BW, __builtin_cpu_supports("avx512bw") != 0);
  s.set(Feature::Avx512DQ, __builtin_cpu_supports("avx512dq") != 0);
  s.set(Feature::Avx512VL, __builtin_cpu_supports("avx512vl") != 0);
  s.set(Feature::Avx512Bf16, __builtin_cpu_supports("avx512bf16") != 0);
  s.set(Feature::Avx512Vnni, __builtin_cpu_supports("avx512vnni") != 0);
#else
  (void)hw;
#endif
}

// Without cpuinfo: the ISA flags from the CPUID reader, the per-core cache sizes from glibc's
// sysconf.
void detect_without_cpuinfo(HardwareProfile& hw) {
  hw.name = "unknown (cpuinfo not found)";
  isa_flags_from_cpuid(hw);
  auto conf = [](int name, int64_t fallback) {
    const long v = sysconf(name);
    return v > 0 ? static_cast<int64_t>(v) : fallback;
  };
  hw.l1d_bytes = conf(_SC_LEVEL1_DCACHE_SIZE, hw.l1d_bytes);
  hw.l1d_ways = static_cast<int>(conf(_SC_LEVEL1_DCACHE_ASSOC, hw.l1d_ways));
  hw.l2_bytes = conf(_SC_LEVEL2_CACHE_SIZE, hw.l2_bytes);
  hw.l2_ways = static_cast<int>(conf(_SC_LEVEL2_CACHE_ASSOC, hw.l2_ways));
  // sysconf gives the whole L3 of the part, not a core's share: at most kMaxL3PerCore counts.
  hw.l3_warm_bytes =
      std::min<int64_t>(conf(_SC_LEVEL3_CACHE_SIZE, hw.l3_warm_bytes), 4 * kMaxL3PerCore);
  hw.l3_bytes = std::min<int64_t>(kMaxL3PerCore, hw.l3_warm_bytes);
}

namespace {

HardwareProfile detect() {
  HardwareProfile hw;
  hw.source = "detected";
  const CpuinfoView* ci = private_cpuinfo();
  if (ci != nullptr && ci->initialize()) {
    const cpuinfo_package* package = ci->get_package(0);
    hw.name = package != nullptr ? package->name : "unknown";
    hw.cores = static_cast<int>(std::max(1u, ci->get_cores_count()));
#if defined(__x86_64__) || defined(__i386__)
    const cpuinfo_x86_isa& isa = *ci->isa;
    FeatureSet& s = hw.features;
    s.set(Feature::Fma3, isa.fma3);
    s.set(Feature::Avx2, isa.avx2);
    s.set(Feature::Avx512F, isa.avx512f);
    s.set(Feature::Avx512BW, isa.avx512bw);
    s.set(Feature::Avx512DQ, isa.avx512dq);
    s.set(Feature::Avx512VL, isa.avx512vl);
    s.set(Feature::Avx512Bf16, isa.avx512bf16);
    s.set(Feature::Avx512Vnni, isa.avx512vnni);
    // No vector unit at all, where the compiler's CPUID reader finds AVX2: the flags cpuinfo
    // filled are not the ones read here (cpuinfo_private.cpp, opened without RTLD_DEEPBIND
    // next to a host's own cpuinfo), so the reader's flags are taken.
    __builtin_cpu_init();
    if (!s.has(Feature::Avx2) && !s.has(Feature::Fma3) && __builtin_cpu_supports("avx2") != 0)
      isa_flags_from_cpuid(hw);
#endif
    if (const auto* l1 = ci->get_l1d_cache(0)) {
      hw.l1d_bytes = l1->size;
      if (l1->associativity > 0) hw.l1d_ways = static_cast<int>(l1->associativity);
    }
    if (const auto* l2 = ci->get_l2_cache(0)) {
      hw.l2_bytes = l2->size / std::max(1u, l2->processor_count);
      if (l2->associativity > 0) hw.l2_ways = static_cast<int>(l2->associativity);
    }
    if (const auto* l3 = ci->get_l3_cache(0)) {
      hw.l3_warm_bytes = l3->size / std::max(1u, l3->processor_count);
      hw.l3_bytes = std::min<int64_t>(kMaxL3PerCore, hw.l3_warm_bytes);
    }
  } else {
    detect_without_cpuinfo(hw);
  }
  // The tile unit where the CPU has it and the OS saves its state (CPUID and XCR0, whichever
  // reader found the rest): the process's permission is asked only by a plan that uses it.
  const AmxSupport tiles = amx_capability();
  const bool amx = tiles.cpu && tiles.os;
  hw.features.set(Feature::AmxTile, amx);
  hw.features.set(Feature::AmxBf16, amx);
  hw.features.set(Feature::AmxInt8, amx);
  hw.page_bytes = transparent_huge_pages_always() ? 2 * 1024 * 1024 : 4096;
  // To 0.1 GHz: the probe moves by 1-2% between processes (4.26-4.32 GHz on one host), and the
  // profile derives every default rate from it, so near-tied plans (a prepacked panel width,
  // 14x32 against 8x48 for 1 x 6144 x 4096) changed from one process to the next.
  hw.freq_ghz = std::round(measure_clock_ghz() * 10.0) / 10.0;
  // Per-cycle rates of current x86 cores as sustained by a streaming read, and conservative DRAM
  // figures (docs/MODEL.md, "Where the constants come from", says where they were measured);
  // `adaptcore calibrate` writes this machine's values.
  hw.bw_l1_gbs = 56.0 * hw.freq_ghz;
  hw.bw_l2_gbs = 32.0 * hw.freq_ghz;
  hw.bw_l3_gbs = 24.0 * hw.freq_ghz;
  hw.bw_dram_core_gbs = 16.0;
  hw.bw_dram_total_gbs = 16.0 * std::min(hw.cores, 4);
  // FMA issue rates. Every AVX2 core of the last decade issues two 256-bit FMAs per cycle;
  // 512-bit FMAs issue at two per cycle on some cores and one (two halves) on others, e.g.
  // Zen 4. Absolute probe results move with load and clock, so the library compares the two
  // widths in interleaved samples instead: the ratio is stable, and the answer is 1 or 2.
  hw.fma_per_cycle_256 = 2.0;
  if (fma_loop(512, hw.features) != nullptr && fma_loop(256, hw.features) != nullptr) {
    double zmm = 0.0, ymm = 0.0;
    for (int i = 0; i < 6; ++i) {
      zmm = std::max(zmm, measure_fma_gflops(512, 0.0003));
      ymm = std::max(ymm, measure_fma_gflops(256, 0.0003));
    }
    hw.fma_per_cycle_512 = ymm > 0.0 && zmm / ymm > 1.5 ? 2.0 : 1.0;
  }
  hw.dot_bf16_per_cycle = hw.dot_int8_per_cycle = hw.fma_per_cycle_512;
  // A job handed to workers that spin between calls: the round trip (0.2 us measured by
  // `adaptcore calibrate` on a 2-vCPU Zen 4 guest) and the wait for the slower of two short
  // halves. Sleeping workers cost far more; the pool runs short jobs on the caller then
  // (ThreadPool::kWakeWorthUs), so plans are priced for awake ones.
  hw.fork_join_us = 0.6;
  hw.pack_gbs = 8.0 * hw.freq_ghz;
  return hw;
}

}  // namespace

const HardwareProfile& detected_hardware() {
  // Never destroyed: GEMM calls from atexit handlers and static destructors still read it.
  static const HardwareProfile* hw = new HardwareProfile(detect());
  return *hw;
}

}  // namespace adaptcore
