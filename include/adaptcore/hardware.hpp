// The hardware profile: what the planner and the analytical model know about the target CPU.
// Detected at run time (cpuinfo + a short clock probe), overridable by a JSON file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "adaptcore/types.hpp"

namespace adaptcore {

// CPU features the kernels of some level use, one bit each. A profile holds them as a set
// (FeatureSet); profile files and plan files name them (to_string(Feature)), so the bit values
// are this build's only and a new feature renumbers nothing stored.
enum class Feature : std::uint32_t {
  Fma3 = 1u << 0,
  Avx2 = 1u << 1,
  Avx512F = 1u << 2,
  Avx512BW = 1u << 3,
  Avx512DQ = 1u << 4,
  Avx512VL = 1u << 5,
  Avx512Bf16 = 1u << 6,
  Avx512Vnni = 1u << 7,
  // The AMX tile unit (CPU and OS; the process's permission is asked when a plan first uses
  // it: hw/amx_support.hpp).
  AmxTile = 1u << 8,
  AmxBf16 = 1u << 9,
  AmxInt8 = 1u << 10,
};
inline constexpr int kFeatureCount = 11;

struct FeatureSet {
  std::uint32_t bits = 0;

  constexpr FeatureSet() = default;
  constexpr FeatureSet(Feature f)  // NOLINT(google-explicit-constructor): a feature is a set
      : bits(static_cast<std::uint32_t>(f)) {}
  constexpr explicit FeatureSet(std::uint32_t b) : bits(b) {}
  constexpr bool has(Feature f) const noexcept {
    return (bits & static_cast<std::uint32_t>(f)) != 0;
  }
  constexpr bool contains(FeatureSet o) const noexcept { return (bits & o.bits) == o.bits; }
  constexpr bool empty() const noexcept { return bits == 0; }
  constexpr void set(Feature f, bool on) noexcept {
    bits = on ? bits | static_cast<std::uint32_t>(f) : bits & ~static_cast<std::uint32_t>(f);
  }
  friend constexpr FeatureSet operator|(FeatureSet a, FeatureSet b) noexcept {
    return FeatureSet(a.bits | b.bits);
  }
  friend constexpr FeatureSet operator&(FeatureSet a, FeatureSet b) noexcept {
    return FeatureSet(a.bits & b.bits);
  }
  friend constexpr bool operator==(FeatureSet, FeatureSet) = default;
};

// The feature's name as profile files write it ("fma3", "avx2", "avx512f", "avx512bw",
// "avx512dq", "avx512vl", "avx512_bf16", "avx512_vnni", "amx_tile", "amx_bf16", "amx_int8");
// parse_feature reads it back.
const char* to_string(Feature f) noexcept;
bool parse_feature(std::string_view name, Feature& out) noexcept;
// The names of a set's features, space-separated, in Feature order.
std::string to_string(FeatureSet s);

struct HardwareProfile {
  std::string name;    // CPU name as reported
  std::string source;  // "detected" or the JSON file it came from
  int cores = 1;       // cores available to this process

  // The CPU features relevant to the kernels (a profile may not claim one the CPU lacks).
  FeatureSet features;

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

  // Vector FMA instructions one core sustains per cycle, by vector width (measured by
  // detection: some cores run a 512-bit FMA as two halves, so 1 at 512 bits and 2 at 256).
  // The 128-bit rate prices the portable kernels (a multiply and an add of 4 lanes).
  double fma_per_cycle_512 = 2.0;
  double fma_per_cycle_256 = 2.0;
  double fma_per_cycle_128 = 2.0;
  // 512-bit dot-product instructions one core sustains per cycle: vdpbf16ps (bf16 pairs) and
  // vpdpbusd (int8 quads). Detection takes the 512-bit FMA rate; some cores issue them at
  // another (an Emerald Rapids core: vdpbf16ps at half a cycle's worth, vpdpbusd at 1.5, against
  // two 512-bit FMAs), which `adaptcore calibrate` measures.
  double dot_bf16_per_cycle = 2.0;
  double dot_int8_per_cycle = 2.0;
  // Tile products (TDPBF16PS, TDPBUSD: 16 x 16 outputs over 16 groups) one core's AMX unit
  // completes per cycle: one in 16 cycles by design; measured by `adaptcore calibrate` on an AMX
  // host (an Emerald Rapids core: one in 16.6). Priced only for the amx level's tile.
  double amx_tiles_per_cycle = 1.0 / 16.0;
  // Cost of waking the thread pool and joining it, microseconds (fork + join).
  double fork_join_us = 3.0;
  // A core reading B in place from L3: kc rows a row stride apart, a few lines of each per
  // column tile. Up to l3_row_streams rows the prefetchers follow them at the full L3 rate;
  // past it the share falls as l3_row_streams / rows down to a floor, the rate at which the
  // core fetches rows nothing prefetches (its outstanding misses over the L3 latency):
  // l3_row_share_paged for a stride that is a multiple of 4 KiB (the rows also share a few
  // L1 sets), l3_row_share for others. Measured by `adaptcore calibrate` (its row-stream
  // probe); the defaults are the worst measured on any host (docs/MODEL.md, "Profile fields").
  double l3_row_streams = 8.0;
  double l3_row_share_paged = 0.19;
  double l3_row_share = 0.19;
  // A register tile re-reading an in-place B sliver that stays in L2 but not in L1, because its
  // rows, a multiple of 4 KiB apart, pile into a few L1 sets: the share of its packed rate it
  // keeps while every depth step's row comes from L2 (the row tiles after the first of each
  // column tile). Measured by `adaptcore calibrate` (its paged re-read probe: the level's
  // in-place plans on B rows 16 KiB apart against one line further apart, the loss over the
  // re-reading tiles' compute on packed panels); 1 (no loss) where not measured.
  double l2_row_share_paged = 1.0;
  // The same for rows off the page whose sliver leaves L1 by its size (a kc x nr sliver of more
  // lines than L1 keeps beside A), re-read by many row tiles: the share of its packed rate each
  // re-reading tile keeps. Measured by `adaptcore calibrate` (its long-row re-read probe: the
  // level's in-place plan over one and over kLongRowTiles row tiles of a B in L3, the extra
  // tiles' time against their compute at the packed rate; docs/MODEL.md M36); 1 where not
  // measured.
  double l2_row_share_long = 1.0;
  // A decode core (3-16 rows) reading B in place from DRAM: beyond B at the stream rate and its
  // compute, the extra time as a multiple of its FMAs at the peak rate (the FMAs fill the
  // window the misses would use; docs/MODEL.md M23). Measured by `adaptcore calibrate` (the
  // level's in-place plan of one row tile on a B beyond L3); 0 (no loss) where not measured.
  double dram_in_place_loss = 0.0;
  // The same core's B read in place from DRAM with Plan::prefetch_b over a column block of more
  // than kReadAheadTiles tiles (each tile asks for the one that many tiles on, a line a row a
  // depth step): its rate as a share of the stream rate, the FMAs beside it counted apart
  // (docs/MODEL.md M34). Measured by the same probe (B's time at the stream rate over the run's
  // time less its compute); 0 where not measured (the loss above prices those cores then).
  double dram_in_place_share = 0.0;
  // The rows of C up to which a core reading B in place from DRAM (its rows at least
  // dram_self_streaming_row_bytes long) leaves B's rows to the hardware prefetchers
  // (Plan::prefetch_b off): its tile issues B's loads as fast as the core can and the prefetchers
  // follow the depth block's row streams, where software requests for the next block only compete
  // with them. Measured by `adaptcore calibrate` (its self-streaming probe: one row tile of 3 to 8
  // rows over a B beyond L3, in place with and without the read-ahead and packed; docs/MODEL.md
  // M24); 2 where not measured (one or two rows stream by themselves on every host measured, M11).
  int dram_self_streaming_rows = 2;
  // A core of one or two rows that leaves B's rows to the hardware prefetchers (Plan::prefetch_b
  // off) reading a depth block of more rows than the prefetchers follow (kStreamsTracked): its
  // rate falls as (kStreamsTracked / rows)^few_row_stream_exponent. Measured by `adaptcore
  // calibrate` (its few-row stream probe: one row over a B beyond L3 in depth blocks of
  // kStreamsTracked and of four times as many rows, the exponent that turns the one time into the
  // other; docs/MODEL.md M35); 0.25 where not measured (F3's fourth root, fitted on Zen 4).
  double few_row_stream_exponent = 0.25;
  // The shortest run of B's row (bytes of a core's columns) that those rows stream by
  // themselves over (measured by the same probe on rows of 8, 4 and 2 KiB); 16 KiB where not
  // measured (one row over 2.7 KiB rows ran twice as long without the read-ahead on Zen 4, M11).
  std::int64_t dram_self_streaming_row_bytes = 16384;
  // Packing throughput per core, GB/s of source data read.
  double pack_gbs = 20.0;
  // A packer copying a block out of DRAM (a cold B, or A): its rate as a share of the core's
  // stream rate (bw_dram_core_gbs), before the ramp each contiguous run costs. Measured by
  // `adaptcore calibrate` (its DRAM packing probe: the level's pack_b over a B beyond L3 in the
  // blocks a packed plan packs, 8 KiB runs); 0.5 where not measured (the copy write-allocates
  // its destination, halving the rate on the hosts the model was first fitted on; a Zen 3 core
  // packs at its stream rate: docs/MODEL.md M27).
  double dram_pack_share = 0.5;
  // A register-tile kernel call's fixed cycles, once per tile and depth block, beside its C
  // tile's load and store: the arguments, the loop's set-up and drain, and the first loads of
  // the tile's A panel and B sliver, which the loop of the call before did not ask for.
  // Measured by `adaptcore calibrate` (its kernel call probe: the level's packed tiles over 32
  // row tiles of an A block in L2, depth blocks of 32 against 256; docs/MODEL.md M31); 12
  // where not measured (F13, fitted on Zen 4).
  double kernel_call_cycles = 12.0;

  // The best level of the kernel registry (built into this library) the features allow, and
  // whether they allow a level.
  Isa best_isa() const noexcept;
  bool supports(Isa isa) const noexcept;
  // fp32 lanes of a level's widest fp32 vectors (16, 8, or 4 for the portable kernels, which
  // compilers vectorise with 128-bit vectors).
  static int fp32_lanes(Isa isa) noexcept;
  // Vector FMAs per cycle at a width in bits (at most 128: the 128-bit rate), and on a level's
  // widest fp32 vectors.
  double fma_per_cycle_at(int vector_bits) const noexcept;
  double fma_per_cycle(Isa isa) const noexcept;
  // fp32 FMA peak of one core in GFLOP/s on a level.
  double peak_gflops_per_core(Isa isa) const noexcept;
};

// Detects the running machine. Thread-safe; result cached after the first call.
const HardwareProfile& detected_hardware();
// The profile a context starts from: detected_hardware() with the measured fields of the
// profile shipped for this CPU's microarchitecture (keyed by CPUID vendor, family and model;
// the row-stream terms of the vendor's nearest when none matches) over it; `source` names the
// shipped profile. Thread-safe; cached after the first call.
const HardwareProfile& default_hardware();

// The profile path that names detection alone, without the shipped profile
// (Context::load_hardware_profile, ADAPTCORE_HW_PROFILE).
inline constexpr const char* kDetectedProfile = "detected";

// JSON round trip. Missing keys keep the base's values, so a file may override a few fields.
// A profile is one JSON object and nothing after it, at most 1 MiB, in a regular file; it may
// not claim an ISA feature the running CPU lacks. Failures are InvalidProfile (OutOfMemory when
// an allocation fails) with the reason in `error`; nothing throws.
std::string to_json(const HardwareProfile& hw);
Status profile_from_json(const std::string& text, const HardwareProfile& base, HardwareProfile& out,
                         std::string* error = nullptr) noexcept;
Status load_profile_file(const std::string& path, const HardwareProfile& base, HardwareProfile& out,
                         std::string* error = nullptr) noexcept;

}  // namespace adaptcore
