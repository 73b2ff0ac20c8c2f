// Analytical performance model of a CPU target. Predicts a blocked or dot plan's time from the
// hardware profile and the type configuration (element sizes, packed granularity, register
// tiles, the kernel instruction's rate) without running anything: one model for every data
// type. See docs/MODEL.md for the derivation of each term.
#pragma once

#include <cmath>

#include "adaptcore/hardware.hpp"
#include "core/shape_key.hpp"
#include "plan/plan.hpp"
#include "plan/type_config.hpp"

namespace adaptcore {

struct BlockedShare;
struct BlockedTraffic;

struct CostBreakdown {
  double compute_us = 0;  // FMA issue, load-port and latency bound of the busiest core
  double memory_us = 0;   // slowest memory level's traffic of the busiest core
  double pack_us = 0;     // packing (not overlapped with compute)
  double sync_us = 0;     // fork/join of the pool, split-K reduction
  double total_us = 0;
  const char* bound = "compute";  // which term dominates
};

// The combination rule of docs/MODEL.md, "Terms": the prefetchers overlap the overlapped memory
// traffic with the FMAs, the exposed traffic, packing and synchronisation add to it:
//   total = max(compute, overlapped) + exposed + pack + sync
// Sets memory_us (overlapped + exposed), bound and total_us from the other terms of c.
void combine_terms(CostBreakdown& c, double overlapped_us, double exposed_us) noexcept;

// Share of the DRAM bandwidth a core gets when it reads `rows` rows of a matrix side by side,
// each a separate stream (an in-place B sliver kc rows deep): past about 8 streams the hardware
// prefetchers lose some, (8 / rows)^0.25 (fitted: docs/MODEL.md F3); 1 for 8 or fewer.
double dram_row_stream_efficiency(double rows) noexcept;
// The same for a core of one or two rows whose own loads stream B (no software read-ahead):
// (kStreamsTracked / rows)^HardwareProfile::few_row_stream_exponent (docs/MODEL.md M35).
double few_row_stream_efficiency(const HardwareProfile& hw, double rows) noexcept;
// Share of the L3 read rate a core gets reading `rows` rows of B in place at once, each a
// separate stream (HardwareProfile::l3_row_streams and the shares after it); `paged`: the row
// stride is a multiple of 4 KiB.
double l3_row_stream_share(const HardwareProfile& hw, double rows, bool paged) noexcept;
// Whether a block of rows (row_bytes each, 2^stride_log2 bytes apart) stays in a cache of
// cache_bytes and `ways` while other data streams through: within half the capacity its set
// conflicts leave it (rows a page apart pile into few sets; see cpu_model.cpp).
bool stays_resident(double block_bytes, double cache_bytes, int ways, int stride_log2,
                    double row_bytes, double page_bytes) noexcept;
// A packed block's extent along its operand's contiguous direction, in bytes: the run a read
// from DRAM restarts the prefetchers on. A block spanning the core's whole share is one
// stream (the cores read a row's shares side by side): no run (infinity).
double run_bytes(double eb, double block, double share) noexcept;

// Cycles of an m_t x n_t block cut into mr x nr tiles: the full tiles, then the row, column
// and corner tails, each priced by tile_cycles(rows, cols).
template <class TileCycles>
double tiled_cycles(double m_t, double n_t, int mr, int nr, TileCycles tile_cycles) {
  const double full_r = std::floor(m_t / mr), tail_r = m_t - full_r * mr;
  const double full_c = std::floor(n_t / nr), tail_c = n_t - full_c * nr;
  double cycles = full_r * full_c * tile_cycles(mr, nr);
  if (tail_r > 0) cycles += full_c * tile_cycles(tail_r, nr);
  if (tail_c > 0) cycles += full_r * tile_cycles(mr, tail_c);
  if (tail_r > 0 && tail_c > 0) cycles += tile_cycles(tail_r, tail_c);
  return cycles;
}

class CpuModel {
 public:
  CpuModel(const HardwareProfile& hw, const TypeConfig& cfg) : hw_(hw), cfg_(cfg) {}
  CostBreakdown predict(const ShapeKey& key, const Plan& plan) const noexcept;

  // Cycles per packed step (one group of k values) of an m x nr register tile: instruction
  // issue, load ports, accumulator latency.
  double cycles_per_step(double m, double nr, double lanes, double rate,
                         bool chained) const noexcept;

 private:
  // One core's share of DRAM bandwidth when `threads` cores stream at once.
  double dram_gbs(int threads) const noexcept;
  // Whether a core's share of C (bytes) stays in its L2: within the resident share of it.
  bool c_stays_in_l2(double c_bytes) const noexcept;
  // What a core's share of C (bytes) costs a call in DRAM traffic when it starts in memory.
  double cold_c_bytes(double c_bytes) const noexcept;
  // Bandwidth of the level where a block of `bytes` stays resident.
  double level_gbs(double bytes, int threads) const noexcept;
  // A grid splitting N has both cores store into the line straddling their boundary in every
  // row of C when C's rows are not whole lines: the cost of `passes` passes over the core's
  // `rows` rows (0 when the plan does not split N or N is a multiple of a line).
  double n_split_sharing_us(const ShapeKey& key, const Plan& p, double rows,
                            double passes) const noexcept;
  // Bandwidth of the level an operand share of `bytes` starts a call in: DRAM for a cold key;
  // for a warm one, the level holding it, where a repeated call finds in L3 whatever its
  // operands leave room for in the L3 a hot loop keeps (l3_warm_bytes a core), beyond the
  // capped share (l3_bytes) that blocking within a call counts on.
  double source_gbs(const ShapeKey& key, double bytes, int threads) const noexcept;
  CostBreakdown predict_blocked(const ShapeKey& key, const Plan& plan) const noexcept;
  // The blocked plan's terms (blocked_terms.cpp; docs/MODEL.md, "Terms"), each of the busiest
  // core: its share and blocking, the compute term, packing, memory traffic by operand (added
  // to the overlapped or the exposed part) and synchronisation.
  BlockedShare blocked_share(const ShapeKey& key, const Plan& p) const noexcept;
  double blocked_compute_us(const BlockedShare& s, const Plan& p) const noexcept;
  double engine_compute_us(const BlockedShare& s, double full_cols, double rate) const noexcept;
  double prefetch_c_us(const BlockedShare& s) const noexcept;
  // `bytes`: the core's source for this pack (the measured DRAM share applies past L2).
  double pack_gbs(double src_gbs, bool transposing, double run, double share, int threads,
                  double bytes) const noexcept;
  double pack_b_us(const ShapeKey& key, const BlockedShare& s) const noexcept;
  double pack_a_us(const ShapeKey& key, const BlockedShare& s) const noexcept;
  void prepacked_b_traffic(const ShapeKey& key, const BlockedShare& s,
                           BlockedTraffic& t) const noexcept;
  void packed_b_traffic(const BlockedShare& s, BlockedTraffic& t) const noexcept;
  double b_stream_share(const ShapeKey& key, const BlockedShare& s, const Plan& p) const noexcept;
  bool reads_ahead_by_tiles(const ShapeKey& key, const BlockedShare& s,
                            const Plan& p) const noexcept;
  double l3_row_streams_us(const ShapeKey& key, const BlockedShare& s,
                           const Plan& p) const noexcept;
  double tlb_miss_us(const ShapeKey& key, const BlockedShare& s) const noexcept;
  double paged_reread_us(const ShapeKey& key, const BlockedShare& s,
                         double compute_us) const noexcept;
  void in_place_b_traffic(const ShapeKey& key, const BlockedShare& s, const Plan& p,
                          double compute_us, BlockedTraffic& t) const noexcept;
  void packed_a_traffic(const BlockedShare& s, BlockedTraffic& t) const noexcept;
  void in_place_a_traffic(const ShapeKey& key, const BlockedShare& s, bool b_streams,
                          BlockedTraffic& t) const noexcept;
  void c_traffic(const ShapeKey& key, const BlockedShare& s, const Plan& p,
                 BlockedTraffic& t) const noexcept;
  double split_k_reduction_us(const BlockedShare& s, const Plan& p) const noexcept;
  double blocked_sync_us(const ShapeKey& key, const BlockedShare& s, const Plan& p) const noexcept;
  CostBreakdown predict_dot(const ShapeKey& key, const Plan& plan) const noexcept;
  CostBreakdown predict_rows(const ShapeKey& key, const Plan& plan) const noexcept;

  const HardwareProfile& hw_;
  const TypeConfig& cfg_;
};

}  // namespace adaptcore
