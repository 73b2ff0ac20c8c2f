#include "model/cpu_model.hpp"
#include "core/int_math.hpp"
#include "model/model_constants.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace adaptcore {

using namespace model_constants;

namespace {

// Bytes of a block of rows, row_bytes each and 2^stride_log2 bytes apart, that a cache of
// `bytes` with `ways` can hold at once. Rows whose distance is a multiple of many cache lines
// all start in the same few sets: with a 16 KiB row distance a 32 KiB 8-way L1 keeps barely
// more than one line per row. The set index is a physical address: the bits above the page
// offset come from wherever each page lies, so rows a page or more apart are spread over the
// page colours (size / ways / page) instead of piling into one set. (A 1 MiB 8-way L2 with
// 4 KiB pages: 32 colours, so a 256-row sliver keeps its rows.)
double effective_capacity(double bytes, int ways, int stride_log2, double row_bytes,
                          double page_bytes) {
  const double sets = bytes / (64.0 * ways);
  const int page_log2 = std::countr_zero(static_cast<std::uint64_t>(page_bytes));
  const int conflict_log2 = std::min(stride_log2, page_log2);
  double distinct = sets;  // rows not line-aligned spread over every set
  if (conflict_log2 >= 6)
    distinct = std::max(1.0, sets / std::min(sets, std::ldexp(1.0, conflict_log2 - 6)));
  const double sets_used = std::min(sets, distinct * std::ceil(row_bytes / 64.0));
  return sets_used * ways * 64.0;
}

}  // namespace

void combine_terms(CostBreakdown& c, double overlapped_us, double exposed_us) noexcept {
  c.memory_us = overlapped_us + exposed_us;
  c.bound = c.compute_us >= c.memory_us ? "compute" : "memory";
  c.total_us = std::max(c.compute_us, overlapped_us) + exposed_us + c.pack_us + c.sync_us;
}

bool stays_resident(double block_bytes, double cache_bytes, int ways, int stride_log2,
                    double row_bytes, double page_bytes) noexcept {
  return block_bytes <=
         kResidentShare * effective_capacity(cache_bytes, ways, stride_log2, row_bytes, page_bytes);
}

double run_bytes(double eb, double block, double share) noexcept {
  return block >= share ? std::numeric_limits<double>::infinity() : eb * block;
}

double dram_row_stream_efficiency(double rows) noexcept {
  return std::min(1.0, std::sqrt(std::sqrt(kStreamsTracked / rows)));
}

double few_row_stream_efficiency(const HardwareProfile& hw, double rows) noexcept {
  return std::min(1.0, std::pow(kStreamsTracked / rows, hw.few_row_stream_exponent));
}

double l3_row_stream_share(const HardwareProfile& hw, double rows, bool paged) noexcept {
  if (rows <= hw.l3_row_streams) return 1.0;
  return std::max(paged ? hw.l3_row_share_paged : hw.l3_row_share, hw.l3_row_streams / rows);
}

bool CpuModel::c_stays_in_l2(double c_bytes) const noexcept {
  return c_bytes <= kResidentShare * static_cast<double>(hw_.l2_bytes);
}

double CpuModel::cold_c_bytes(double c_bytes) const noexcept {
  // Its reads for ownership (also when beta is 0); a C that stays in L2 goes back to memory
  // after the call, as later calls evict it, a larger one is written back during the call.
  return c_stays_in_l2(c_bytes) ? c_bytes : 2 * c_bytes;
}

double CpuModel::dram_gbs(int threads) const noexcept {
  return std::min(hw_.bw_dram_core_gbs, hw_.bw_dram_total_gbs / threads);
}

double CpuModel::level_gbs(double bytes, int threads) const noexcept {
  if (bytes <= static_cast<double>(hw_.l1d_bytes)) return hw_.bw_l1_gbs;
  if (bytes <= static_cast<double>(hw_.l2_bytes)) return hw_.bw_l2_gbs;
  if (bytes <= static_cast<double>(hw_.l3_bytes)) return hw_.bw_l3_gbs;
  return dram_gbs(threads);
}

double CpuModel::n_split_sharing_us(const ShapeKey& key, const Plan& p, double rows,
                                    double passes) const noexcept {
  // The key does not hold ldc; N a multiple of a line stands for it (C stored densely, as
  // callers mostly do, from an aligned allocation).
  if (p.pn <= 1 || key.n % 16 == 0) return 0.0;
  return rows * passes * kFalseSharingCycles / (hw_.freq_ghz * 1e3);
}

double CpuModel::source_gbs(const ShapeKey& key, double bytes, int threads) const noexcept {
  if (key.cold) return dram_gbs(threads);
  if (bytes <= static_cast<double>(hw_.l3_bytes)) return level_gbs(bytes, threads);
  // Every operand of the call, C as 32-bit accumulators: a repeated call finds them in the L3
  // a hot loop keeps when they all fit it (docs/MODEL.md M1).
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const double footprint = cfg_.in_bytes * (m * k + k * n) + 4.0 * m * n;
  return footprint <= static_cast<double>(hw_.l3_warm_bytes) * threads ? hw_.bw_l3_gbs
                                                                       : dram_gbs(threads);
}

double CpuModel::cycles_per_step(double m, double nr, double lanes, double rate,
                                 bool chained) const noexcept {
  const double nv = std::ceil(nr / lanes);
  const double instrs = m * nv;
  const double loads = nv + m;  // B vectors + A broadcasts
  // A small tile's steps alternate between chains of accumulators, each waiting only for its
  // own (kernels::kChainedMinSteps: depth blocks of 16 steps and more).
  const double chains = chained ? std::max(1.0, std::ceil(cfg_.chained_vectors / instrs)) : 1.0;
  return std::max({instrs / rate, loads / kLoadsPerCycle, cfg_.latency_cycles / chains});
}

CostBreakdown CpuModel::predict(const ShapeKey& key, const Plan& p) const noexcept {
  CostBreakdown c;
  if (p.kind == PlanKind::Rows)
    c = predict_rows(key, p);
  else if (p.is_dot())
    c = predict_dot(key, p);
  else  // a transposed plan's fields describe C^T = op(B)^T op(A)^T: priced on its key
    c = predict_blocked(p.transpose_c ? transposed_key(key) : key, p);
  // The executor's set-up (core grid, scratch, task dispatch, the adapter), which a plan on
  // the small-problem executor does without.
  if (cfg_.dtype != DType::F32 || key.b_panel_nr != 0 ||
      !small_executor_runs(p, key.m, key.n, key.k, key.b_row_unit)) {
    c.sync_us += kExecutorSetupUs;
    c.total_us += kExecutorSetupUs;
  }
  return c;
}

CostBreakdown CpuModel::predict_dot(const ShapeKey& key, const Plan& p) const noexcept {
  CostBreakdown c;
  const double eb = cfg_.in_bytes;
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const int threads = p.threads();
  const double m_t = std::min(m, ceil_div(ceil_div(m, p.mr), p.pm) * p.mr);
  const double n_t = std::min(n, ceil_div(ceil_div(n, p.nr), p.pn) * p.nr);
  // Every tile walks k in vectors (lanes x multiply-adds per lane k values): rows + cols loads
  // and rows x cols instructions per vector, each accumulator once (its latency bounds a
  // small tile), then a horizontal sum per output, cheaper than its instructions as the sums
  // of a tile overlap, and a fixed part per tile (fitted: docs/MODEL.md F17).
  const double chunks = ceil_div(k, cfg_.lanes * cfg_.macs_per_lane);
  auto tile_cycles = [&](double rows, double cols) {
    const double per = std::max(
        {rows * cols / cfg_.instr_per_cycle, (rows + cols) / kLoadsPerCycle, cfg_.latency_cycles});
    return chunks * per + kDotSumCycles * rows * cols + kDotTileCycles;
  };
  // Plus the dot loop's set-up, once per core (its operand views and output target; F18).
  const double cycles = tiled_cycles(m_t, n_t, p.mr, p.nr, tile_cycles) + kDotLoopCycles;
  c.compute_us = cycles / (hw_.freq_ghz * 1e3) / kKernelEfficiency;

  // B once, as nr sequential streams from where it lies; then every tile streams its rows and
  // columns, (mr + nr) k values, from the level holding them, not hidden under the
  // instructions (8 streams of 64-byte loads, each used once; docs/MODEL.md, "Dot-product plans").
  // A packed B (a narrow row-major B transposed by each core for its columns) is read once
  // by the packer instead, at the transposing packer's rate, and then lies in cache.
  const double b_bytes = eb * n_t * k;
  const double tiles = ceil_div(m_t, p.mr) * ceil_div(n_t, p.nr);
  // Cold operands (ShapeKey::cold) are first read from DRAM whatever their size, and C's
  // lines are fetched for writing from there too.
  const double b_src_gbs = source_gbs(key, eb * k * n, threads);
  const double b_us = p.pack_b ? 0.0 : b_bytes / (b_src_gbs * 1e3);
  // The copy, at least TypeConfig::dot_pack_cycles per element (element by element, or a
  // transpose in registers on AVX-512; docs/MODEL.md M2). Out of DRAM it is a packer like the
  // blocked plans' (pack_gbs): it write-allocates its block as it reads, in runs of the core's
  // columns (docs/MODEL.md M18).
  if (p.pack_b) {
    const double copy_gbs = pack_gbs(b_src_gbs, true, run_bytes(eb, n_t, n),
                                     cfg_.transposing_pack_b_share, threads, b_bytes);
    c.pack_us =
        std::max(b_bytes / (copy_gbs * 1e3), cfg_.dot_pack_cycles * n_t * k / (hw_.freq_ghz * 1e3));
  }
  // The loop runs column tiles outer, row tiles inner: a column tile's nr x k sliver stays
  // close while every row tile streams its mr rows of A, which come from the level holding
  // the core's whole A, not from the level one tile's rows would fit (docs/MODEL.md M2).
  // Cold, the first of A's passes (one per column tile) comes from DRAM instead; the others
  // from where the first left it.
  const double b_tile_bytes = eb * p.nr * k;
  const double a_bytes = eb * m_t * k, a_level_gbs = level_gbs(a_bytes, threads);
  const double col_tiles = ceil_div(n_t, p.nr);
  // Warm, A's first pass and the tiles' B streams from L1 or L2 run under the instructions
  // (the prefetchers keep a few rows ahead); from L3 or DRAM the core waits for them. A's
  // re-reads for the later column tiles are hidden only while A stays resident in L2 (half of
  // it: counted from the whole L2, the planner took dot tiles where the packed register tile
  // is faster). Cold, every row a tile starts is a miss the tile waits for (docs/MODEL.md,
  // "Dot-product plans", M3).
  double hidden_us = 0, exposed_us = 0;
  auto stream = [&](double bytes, double gbs) {
    (!key.cold && gbs >= hw_.bw_l2_gbs ? hidden_us : exposed_us) += bytes / (gbs * 1e3);
  };
  stream(a_bytes, source_gbs(key, a_bytes, threads));
  // A's later passes come from the level where the core's A stays resident (within half a
  // cache: B's tiles and C pass through it too); from L1 or L2 they run under the FMAs like
  // the first.
  const double a_resident_gbs = level_gbs(a_bytes / kResidentShare, threads);
  stream((col_tiles - 1.0) * a_bytes, key.cold ? a_level_gbs : a_resident_gbs);
  stream(tiles * b_tile_bytes, level_gbs(b_tile_bytes, threads));
  if (key.cold) exposed_us += cold_c_bytes(4 * m_t * n_t) / (dram_gbs(threads) * 1e3);
  if (threads > 1) c.sync_us = hw_.fork_join_us;
  // Split over N, the boundary lines of C's rows move between the cores as a register-tile
  // grid's do, once (F8).
  c.sync_us += n_split_sharing_us(key, p, m_t, 1.0);
  combine_terms(c, b_us + hidden_us, exposed_us);
  return c;
}

CostBreakdown CpuModel::predict_rows(const ShapeKey& key, const Plan& p) const noexcept {
  CostBreakdown c;
  const double eb = cfg_.in_bytes;
  const double n = static_cast<double>(key.n), k = static_cast<double>(key.k);
  const int threads = p.threads();
  const double m_t = ceil_div(static_cast<double>(key.m), static_cast<double>(p.pm));
  // Per row: its whole lines and the two partial ones at its ends; each a chain of k loads of
  // B and k multiply-adds, or its store, whichever is longer, plus the row's set-up.
  const double chunks = std::ceil(n / cfg_.lanes) + 1.0;
  const double per_chunk = std::max({k / cfg_.instr_per_cycle, 2.0 * k / kLoadsPerCycle, 1.0});
  c.compute_us =
      m_t * (chunks * per_chunk + kRowsRowCycles) / (hw_.freq_ghz * 1e3) / kKernelEfficiency;
  // C goes to memory through non-temporal stores, whatever the residency: once, no read. B's
  // k rows are read once from their level, then for every other row from the cache holding
  // them; A once.
  const double dram_bw = dram_gbs(threads);
  const double b_bytes = eb * k * n;
  const double a_bytes = eb * m_t * k;
  const double b_src = source_gbs(key, b_bytes, threads);
  const double a_src = source_gbs(key, eb * static_cast<double>(key.m) * k, threads);
  const double mem_us =
      kStreamingStoreCost * 4.0 * m_t * n / (dram_bw * 1e3) + b_bytes / (b_src * 1e3) +
      (m_t - 1.0) * b_bytes / (level_gbs(b_bytes, 1) * 1e3) + a_bytes / (a_src * 1e3);
  if (threads > 1) c.sync_us = hw_.fork_join_us;
  combine_terms(c, mem_us, 0.0);
  return c;
}

}  // namespace adaptcore
