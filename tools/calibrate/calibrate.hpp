// Calibration: short micro-benchmarks that measure the analytical model's constants on the
// running machine (clock, FMA issue rate per path, read bandwidth of each cache level and of
// DRAM, packing rate, fork/join cost of the thread pool) and return them as a hardware profile.
// `adaptcore calibrate` writes the result as a JSON profile that ADAPTCORE_HW_PROFILE or
// Context::load_hardware_profile loads. Calibration is a measurement: run it on an idle machine.
// A tool, not part of the library (static library adaptcore_calibrate, linked by the command
// line and the tests); the library itself only runs the clock and FMA probes of detection.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "adaptcore/hardware.hpp"

namespace adaptcore {

struct CalibrationOptions {
  // Threads for the all-core DRAM bandwidth and the fork/join round trip (0: every core;
  // fork/join is measured with at least 2, since one thread never forks).
  int threads = 0;
  bool quick = false;  // fewer and shorter repeats: under 10 s (tests)
};

// A fork/join round trip above this is another process holding a CPU, not the pool (whose
// spinning workers answer in about a microsecond).
inline constexpr double kForkJoinBusyUs = 50.0;

// What each measurement covered, for the report.
struct CalibrationReport {
  int threads = 0;      // threads used for bw_dram_total and fork_join
  Isa isa = Isa::Auto;  // the level of the fp32 table whose loads and pack_b were measured
  int64_t l1_buffer = 0, l2_buffer = 0, l3_buffer = 0, dram_buffer = 0;  // bytes read per pass
  double fma_gflops_512 = 0.0, fma_gflops_256 = 0.0;          // one thread, raw probe result
  bool dot_bf16_measured = false, dot_int8_measured = false;  // the CPU has the instruction
  bool amx_tiles_measured = false;  // the CPU has AMX and the process the tile state
  // One thread's DRAM read rate with the hardware prefetchers alone and with software
  // prefetches ahead (bw_dram_core_gbs is the faster).
  double dram_core_plain_gbs = 0.0, dram_core_prefetch_gbs = 0.0, dram_core_streams_gbs = 0.0;
  // Share of the all-thread DRAM measurement its threads spent on a CPU (1: undisturbed; less:
  // other processes ran, and the wall-clock figure is low).
  double dram_total_cpu_share = 0.0;
  // The L3 sweep: (buffer bytes, GB/s) read by one thread, and the largest buffer still read
  // at L3 speed (0: none, or the sweep was skipped).
  std::vector<std::pair<std::int64_t, double>> l3_sweep;
  std::int64_t l3_seen_bytes = 0;
  // The row-stream probe from L3 (GB/s): one row at a time (4 KiB-multiple stride), 256 rows
  // at a time at that stride and at one that is not a multiple of 4 KiB.
  double row_gbs_one = 0.0, row_gbs_paged_256 = 0.0, row_gbs_256 = 0.0;
  // The paged re-read probe's lowest share: its tile, the in-place plan's time with B's rows
  // 16 KiB apart and one line further, and the re-reading row tiles' compute at the tile's
  // packed rate (0: not measured).
  int paged_mr = 0, paged_nr = 0;
  std::int64_t paged_m = 0, paged_n = 0, paged_k = 0;  // the shape the plan ran
  double paged_us = 0.0, paged_odd_us = 0.0, paged_rereads_us = 0.0;
  // The long-row re-read probe's lowest share: its tile, the in-place plan's time over one row
  // tile and over eight, and the seven extra tiles' compute at the packed rate (microseconds).
  int long_mr = 0, long_nr = 0;
  double long_one_us = 0.0, long_many_us = 0.0, long_rereads_us = 0.0;
  // The in-place DRAM probe's lowest share: its tile, the shape, the plan's time and the tile's
  // compute in it (at its packed rate).
  int in_place_mr = 0, in_place_nr = 0;
  std::int64_t in_place_k = 0, in_place_n = 0;
  double in_place_us = 0.0, in_place_compute_us = 0.0;
  // The DRAM packing probe: GB/s of source the level's pack_b packed out of DRAM, and the
  // stream reader's rate in the same samples (medians; 0: not measured).
  double dram_pack_gbs = 0.0, dram_pack_stream_gbs = 0.0;
  // The kernel call probe's largest tile: its shape and the median times of its passes in
  // shallow and deep depth blocks (microseconds; 0: not measured).
  int call_mr = 0, call_nr = 0;
  double call_shallow_us = 0.0, call_deep_us = 0.0;
  // The self-streaming probe, per height tried: the tile, the in-place plan's time without and
  // with the read-ahead and the packed plan's (microseconds), on k x n of B.
  struct SelfStreamingHeight {
    int rows = 0, mr = 0, nr = 0;
    double plain_us = 0.0, read_ahead_us = 0.0, packed_us = 0.0;
    std::int64_t k = 0, n = 0;
  };
  std::vector<SelfStreamingHeight> self_streaming;
  // The few-row stream probe: its tile, B's k x n, and the one-row plan's median times over
  // depth blocks of kStreamsTracked rows and of four times as many (microseconds; 0: not run),
  // B from DRAM, then B in L3.
  int few_row_mr = 0, few_row_nr = 0;
  std::int64_t few_row_k = 0, few_row_n = 0;
  double few_row_shallow_us = 0.0, few_row_deep_us = 0.0;
  std::int64_t few_row_l3_k = 0, few_row_l3_n = 0;
  double few_row_l3_shallow_us = 0.0, few_row_l3_deep_us = 0.0;
  // fork_join_us was over kForkJoinBusyUs: the other CPUs were busy, the default was kept.
  bool fork_join_busy = false;
  double fork_join_measured_us = 0.0;
  double seconds = 0.0;   // wall time of the whole calibration
  std::string timestamp;  // UTC, ISO 8601
};

// Measures the model's constants and returns `base` with them replaced (every other field,
// e.g. caches and ISA features, is kept). Never throws: a failed allocation leaves that field
// at its `base` value.
HardwareProfile calibrate(const CalibrationOptions& options, const HardwareProfile& base,
                          CalibrationReport* report = nullptr);

// to_json(hw) plus "calibrated": true and "calibrated_at" (profile_from_json ignores keys it
// does not know, so the file loads like any profile).
std::string calibrated_profile_json(const HardwareProfile& hw, const CalibrationReport& report);

}  // namespace adaptcore
