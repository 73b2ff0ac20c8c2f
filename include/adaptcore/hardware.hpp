// The hardware profile: what the planner and the analytical model know about the target CPU.
// Detected at run time (cpuinfo + a short clock probe), overridable by a JSON file.
#pragma once

#include <cstdint>
#include <string>

#include "adaptcore/types.hpp"

namespace adaptcore {

struct HardwareProfile {
  std::string name;    // CPU name as reported
  std::string source;  // "detected" or the JSON file it came from
  int cores = 1;       // cores available to this process

  // ISA features relevant to the kernels.
  bool fma3 = false;
  bool avx2 = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512_bf16 = false;
  bool avx512_vnni = false;

  double freq_ghz = 3.0;  // sustained core clock under vector load

  // Per-core usable capacity in bytes. l3 is this core's share, capped (see detect_profile).
  int64_t l1d_bytes = 32 * 1024;
  int64_t l2_bytes = 1024 * 1024;
  int64_t l3_bytes = 8 * 1024 * 1024;
  // The L3 a core's hot loop keeps its operands in: the L3 the CPU reports per processor
  // sharing it, not capped. It decides only whether operands that repeat the previous call's
  // (a warm key) are still cached, where blocking for them would not rely on it (in-place B's
  // prefetch, Plan::prefetch_b); l3_bytes is the share the blocking counts on.
  int64_t l3_warm_bytes = 8 * 1024 * 1024;
  // Associativity of L1d and L2: with power-of-two leading dimensions, rows read in place map
  // to few cache sets, and the usable capacity shrinks to (sets touched) x ways.
  int l1d_ways = 8;
  int l2_ways = 8;
  // Page size backing large buffers (4 KiB, or 2 MiB where transparent huge pages are always
  // on). Caches past L1 index sets by physical address: rows a page or more apart land in
  // pages scattered over memory, so their conflicts stop growing at the page size.
  int64_t page_bytes = 4096;

  // Per-core sustainable read bandwidth of each level in GB/s, and DRAM for the whole socket.
  double bw_l1_gbs = 200.0;
  double bw_l2_gbs = 100.0;
  double bw_l3_gbs = 50.0;
  double bw_dram_core_gbs = 30.0;
  double bw_dram_total_gbs = 60.0;

  // Vector FMA instructions one core sustains per cycle, per path (measured: Zen 4 runs a
  // 512-bit FMA as two halves, so 1 on AVX-512 and 2 on AVX2; Zen 5 and server Intel: 2 and 2).
  double fma_per_cycle_avx512 = 2.0;
  double fma_per_cycle_avx2 = 2.0;
  // Cost of waking the thread pool and joining it, microseconds (fork + join).
  double fork_join_us = 3.0;
  // Packing throughput per core, GB/s of source data read.
  double pack_gbs = 20.0;

  // Best ISA path the features allow.
  Isa best_isa() const noexcept;
  bool supports(Isa isa) const noexcept;
  // Vector lanes of fp32 for a path (16, 8, or 4 for the portable path which compilers
  // vectorise with SSE).
  static int fp32_lanes(Isa isa) noexcept;
  // Vector FMAs per cycle on a path (the portable path: 4-lane multiply-add pairs).
  double fma_per_cycle(Isa isa) const noexcept;
  // fp32 FMA peak of one core in GFLOP/s on a path.
  double peak_gflops_per_core(Isa isa) const noexcept;
};

// Detects the running machine. Thread-safe; result cached after the first call.
const HardwareProfile& detected_hardware();

// JSON round trip. Missing keys keep the detected values, so a file may override a few fields.
// A profile is one JSON object and nothing after it, at most 1 MiB, in a regular file; it may
// not claim an ISA feature the running CPU lacks. Failures are InvalidProfile (OutOfMemory when
// an allocation fails) with the reason in `error`; nothing throws.
std::string to_json(const HardwareProfile& hw);
Status profile_from_json(const std::string& text, const HardwareProfile& base, HardwareProfile& out,
                         std::string* error = nullptr) noexcept;
Status load_profile_file(const std::string& path, const HardwareProfile& base, HardwareProfile& out,
                         std::string* error = nullptr) noexcept;

}  // namespace adaptcore
