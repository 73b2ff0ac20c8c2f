// The terms of a blocked (register-tile) plan's predicted time, one function per term of
// docs/MODEL.md, "Terms": the busiest core's share, compute, memory per operand and level,
// packing, synchronisation, and the combination in CpuModel::predict_blocked.
#include <algorithm>
#include <bit>
#include <cmath>

#include "core/int_math.hpp"
#include "model/cpu_model.hpp"
#include "model/model_constants.hpp"

namespace adaptcore {

using namespace model_constants;

// The busiest core's share of the problem and the plan's blocking within it (docs/MODEL.md,
// "Notation"): the model prices that core, the others finish no later.
struct BlockedShare {
  double m = 0, n = 0, k = 0;  // the problem
  double mr = 0, nr = 0;       // the register tile
  int threads = 1;
  double eb = 0;   // source bytes per element
  double pw = 0;   // packed bytes per k value
  double grp = 0;  // k values per packed step
  double m_t = 0, n_t = 0, k_t = 0;
  double kc = 0, mc = 0, nc = 0;
  double k_blocks = 0, m_blocks = 0, n_blocks = 0;
  double steps = 0;  // packed steps of the depth loop
  double row_tiles = 0, col_tiles = 0;
  bool direct_b = false;  // B in place by a tile of its own (TypeConfig::in_place_b false)
  // The executor sweeps each depth block row tile by row tile across its columns (plan.hpp,
  // sweeps_block): every row tile reads the whole B block.
  bool sweeps = false;
};

// Memory traffic of the busiest core: what the prefetchers overlap with the FMAs, and what the
// core waits for.
struct BlockedTraffic {
  double overlapped_us = 0;
  double exposed_us = 0;
};

namespace {

double transfer_us(double bytes, double gbs) { return bytes / (gbs * 1e3); }

// Cycles of the store at the end of a kernel call, per tile of `rows` rows and `live` vectors.
// A row store costs per vector; the transposed store interleaves the tile's rows (C's columns)
// per live vector, with permutes that grow with the row count up to the wide form's fixed
// register transpose.
double store_cycles(double rows, double live, bool transposed) {
  if (!transposed) return kStoreCyclesPerVector * rows * live;
  if (rows > kTransposedStoreWideRows)
    return (kTransposedStoreWideFixedCycles + kTransposedStoreWideRowCycles * rows) * live;
  return (kTransposedStoreFixedCycles +
          kTransposedStorePermuteCycles * rows * std::ceil(rows / 2)) *
         live;
}

// A kernel call's own cycles, once per depth block: its fixed cycles (the profile's
// kernel_call_cycles, M31) and the C tile's load and store.
double call_cycles(double fixed, double rows, double live, bool transposed) {
  return fixed + store_cycles(rows, live, transposed);
}

// The row tiles of one column of the share: `tall_count` tiles of `tall_rows` and
// `short_count` of `short_rows`. Packed A runs whole mr-row panels and the tail; A read in
// place runs tiles of even heights (the executor's split: 13 rows of 6 as 5 + 4 + 4).
struct RowSplit {
  double tall_count, tall_rows, short_count, short_rows;
};

RowSplit row_split(const BlockedShare& s, const Plan& p, double full_rows, double tail_rows,
                   double tail_m) {
  RowSplit r{full_rows, s.mr, tail_rows > 0 ? 1.0 : 0.0, tail_m};
  if (!p.pack_a) {
    r.tall_rows = std::ceil(s.m_t / s.row_tiles);
    r.tall_count = s.m_t - (r.tall_rows - 1.0) * s.row_tiles;
    r.short_count = s.row_tiles - r.tall_count;
    r.short_rows = r.tall_rows - 1.0;
  }
  return r;
}

// Where a re-read block lies: the smallest cache whose effective capacity (set conflicts of
// rows `2^ld_log2` bytes apart) keeps it, overlapped with the FMAs; else L3, as it was just
// read (the victim of L2), a latency-bound re-read; a block larger than the core's share of L3
// has left it by the time it is read again, and comes from DRAM (`dram_gbs`; docs/MODEL.md
// M19).
struct ReReadLevel {
  double gbs;
  bool cached;
};

ReReadLevel reread_level(const HardwareProfile& hw, double block, int ld_log2, double row_bytes,
                         double dram_gbs) {
  const double page = static_cast<double>(hw.page_bytes);
  if (stays_resident(block, static_cast<double>(hw.l1d_bytes), hw.l1d_ways, ld_log2, row_bytes,
                     page))
    return {hw.bw_l1_gbs, true};
  if (stays_resident(block, static_cast<double>(hw.l2_bytes), hw.l2_ways, ld_log2, row_bytes, page))
    return {hw.bw_l2_gbs, true};
  if (block > static_cast<double>(hw.l3_bytes)) return {dram_gbs, false};
  return {hw.bw_l3_gbs, false};
}

// The cache lines a sliver of kc rows of row_bytes each holds, rows 2^ld_log2 bytes apart:
// a row starts at a multiple of 2^ld_log2 within its line (every start alike), and spans the
// lines from its first byte to its last.
double sliver_lines(double kc, double row_bytes, int ld_log2) noexcept {
  const int step = 1 << std::min(ld_log2, 6);
  double lines = 0;
  for (int start = 0; start < 64; start += step)
    lines += std::floor((start + row_bytes - 1) / 64.0) + 1;
  return kc * lines / (64 / step);
}

}  // namespace

// The busiest core's share: the grid hands out whole register panels, so the core with the
// most panels is the one every other core waits for.
BlockedShare CpuModel::blocked_share(const ShapeKey& key, const Plan& p) const noexcept {
  BlockedShare s;
  s.m = static_cast<double>(key.m);
  s.n = static_cast<double>(key.n);
  s.k = static_cast<double>(key.k);
  s.mr = p.mr;
  s.nr = p.nr;
  s.threads = p.threads();
  s.eb = cfg_.in_bytes;
  s.pw = cfg_.packed_bytes_per_k();
  s.grp = cfg_.group;
  // Whole register panels, rounded up.
  s.m_t = std::min(s.m, ceil_div(ceil_div(s.m, s.mr), p.pm) * s.mr);
  s.n_t = std::min(s.n, ceil_div(ceil_div(s.n, s.nr), p.pn) * s.nr);
  s.k_t = ceil_div(s.k, p.pk);
  s.kc = std::min(static_cast<double>(p.kc), s.k_t);
  s.mc = std::min(static_cast<double>(p.mc), s.m_t);
  s.nc = std::min(static_cast<double>(p.nc), s.n_t);
  s.k_blocks = ceil_div(s.k_t, s.kc);
  s.m_blocks = ceil_div(s.m_t, s.mc);
  s.n_blocks = ceil_div(s.n_t, s.nc);
  // Whole groups per depth block, the last block's short.
  const double last_kc = s.k_t - (s.k_blocks - 1.0) * s.kc;
  // A matrix-engine tile's panels are padded to whole depth blocks (TypeConfig, TileShape).
  const double db = p.tile >= 0 && p.tile < cfg_.tile_count && !p.is_dot()
                        ? static_cast<double>(cfg_.tile(p.tile).depth_block)
                        : 1.0;
  s.steps = (s.k_blocks - 1.0) * std::ceil(ceil_div(s.kc, s.grp) / db) * db +
            std::ceil(ceil_div(last_kc, s.grp) / db) * db;
  s.row_tiles = ceil_div(s.m_t, s.mr);
  s.col_tiles = ceil_div(s.n_t, s.nr);
  s.direct_b = !p.pack_b && !cfg_.in_place_b;
  s.sweeps = sweeps_block(static_cast<int64_t>(s.kc), static_cast<int64_t>(s.nc), p.nr,
                          p.prefetch_b && !p.pack_b, p.tail == TailStrategy::Padded);
  return s;
}

// Every register tile of the share, each depth step at its tile's rate, plus each kernel
// call's set-up and store once per depth block. A row tail (masked) runs a kernel of its own
// row count; a column tail of B read in place loads and multiplies only its live vectors
// (packed panels are padded: every vector is used).
double CpuModel::blocked_compute_us(const BlockedShare& s, const Plan& p) const noexcept {
  const double full_rows = std::floor(s.m_t / s.mr);
  const double tail_rows = s.m_t - full_rows * s.mr;
  const double full_cols = std::floor(s.n_t / s.nr);
  const double tail_cols = p.pack_b || s.direct_b ? s.nr : s.n_t - full_cols * s.nr;
  const double tail_m = p.tail == TailStrategy::Masked ? tail_rows : s.mr;
  // The tile's vectors (a narrow tile of a wide path has fewer lanes, at its own rate).
  const TileShape shape = p.tile >= 0 && p.tile < cfg_.tile_count ? cfg_.tile(p.tile) : TileShape{};
  const double lanes = cfg_.lanes_of(shape), rate = cfg_.rate_of(shape);
  if (shape.engine) return engine_compute_us(s, full_cols, rate);
  const RowSplit r = row_split(s, p, full_rows, tail_rows, tail_m);
  const bool has_short = r.short_count > 0 && r.short_rows > 0;
  const bool chained = ceil_div(s.kc, s.grp) >= static_cast<double>(kernels::kChainedMinSteps);
  // One step, and one call, of every row tile of a column `cols` wide.
  auto step_cycles = [&](double cols) {
    return r.tall_count * cycles_per_step(r.tall_rows, cols, lanes, rate, chained) +
           (has_short ? r.short_count * cycles_per_step(r.short_rows, cols, lanes, rate, chained)
                      : 0.0);
  };
  auto column_call_cycles = [&](double cols) {
    const double live = std::ceil(cols / lanes);
    const double fixed = hw_.kernel_call_cycles;
    return r.tall_count * call_cycles(fixed, r.tall_rows, live, p.transpose_c) +
           (has_short ? r.short_count * call_cycles(fixed, r.short_rows, live, p.transpose_c)
                      : 0.0);
  };
  double row_cycles = full_cols * step_cycles(s.nr);  // one step of every tile of the share
  double calls = full_cols * column_call_cycles(s.nr);
  if (s.col_tiles > full_cols) {
    row_cycles += step_cycles(tail_cols);
    calls += column_call_cycles(tail_cols);
  }
  // The direct-B tile's row loads and interleaving of each step and column tile, which every
  // row tile of the block repeats.
  if (s.direct_b) row_cycles += s.row_tiles * s.col_tiles * cfg_.direct_b_cycles;
  double cycles = s.steps * row_cycles + s.k_blocks * calls;
  if (p.tail == TailStrategy::Padded) {
    const double edge_tiles =
        (tail_rows > 0 ? s.col_tiles : 0) + (std::fmod(s.n_t, s.nr) > 0 ? s.row_tiles : 0);
    cycles += s.k_blocks * edge_tiles * s.mr * s.nr / lanes * kCopyOutCyclesPerVector;
  }
  return cycles / (hw_.freq_ghz * 1e3) / kKernelEfficiency;
}

// A matrix-engine tile (TypeConfig, TileShape::engine) over the share: every row tile a whole
// 16-row tile product per 16 columns, whatever rows it uses, at the engine's rate (`rate`, in
// vector instructions of one step), or at the rate its tile loads feed it, whichever is slower:
// per step, 16 rows of A (4 bytes each) from the level holding the packed A block and the
// columns of the B sliver (kc x nr) from the level holding it, which the executor's order has
// every row tile meet again (L1 where the depth block lets it fit), through the same load ports.
// Per call and depth block, the tiles' stores and the epilogue's row stores of the whole tile;
// per task, the configuration.
double CpuModel::engine_compute_us(const BlockedShare& s, double full_cols,
                                   double rate) const noexcept {
  const double steps_per_block = s.steps / s.k_blocks;
  auto bytes_per_cycle = [&](double resident_bytes) {
    const double l1 = static_cast<double>(hw_.l1d_bytes), l2 = static_cast<double>(hw_.l2_bytes);
    const double gbs = resident_bytes <= kResidentShare * l1   ? hw_.bw_l1_gbs
                       : resident_bytes <= kResidentShare * l2 ? hw_.bw_l2_gbs
                                                               : hw_.bw_l3_gbs;
    return gbs / hw_.freq_ghz;
  };
  const double a_block = 4.0 * steps_per_block * std::ceil(s.mc / s.mr) * s.mr;
  const double a_feed = 4.0 * kEngineTileRows / bytes_per_cycle(a_block);
  auto step_cycles = [&](double cols) {
    const double tiles = std::ceil(cols / kEngineTileRows);
    const double b_feed =
        4.0 * kEngineTileRows * tiles / bytes_per_cycle(4.0 * steps_per_block * s.nr);
    return std::max(kEngineTileRows * tiles / rate, a_feed + b_feed);
  };
  auto call_cycles_of = [&](double cols) {
    const double tiles = std::ceil(cols / kEngineTileRows);
    return kCallCycles + kEngineTileStoreCycles * tiles +
           kStoreCyclesPerVector * kEngineTileRows * tiles;
  };
  const double tail_cols = s.col_tiles > full_cols ? 1.0 : 0.0;
  const double per_row_tile_step = full_cols * step_cycles(s.nr) + tail_cols * step_cycles(s.nr);
  const double per_row_tile_call = (full_cols + tail_cols) * call_cycles_of(s.nr);
  const double cycles =
      s.row_tiles * (s.steps * per_row_tile_step + s.k_blocks * per_row_tile_call);
  return cycles / (hw_.freq_ghz * 1e3) / kKernelEfficiency + kEngineConfigureUs;
}

// Plan::prefetch_c issues a prefetch per line of the core's C and per tile, on top of the
// kernels' instructions.
double CpuModel::prefetch_c_us(const BlockedShare& s) const noexcept {
  return s.m_t * std::ceil(4 * s.n_t / 64 + s.col_tiles) * kPrefetchCycles / (hw_.freq_ghz * 1e3);
}

// A packer reads its source at the packing rate, at most the source's bandwidth. A copy out
// of DRAM keeps HardwareProfile::dram_pack_share of the stream rate, and each run of `run`
// bytes restarts the prefetchers. The share was measured on a packer streaming blocks far
// past L2; a core's pack of `bytes` within its L2 is over in the ramp of its streams and keeps
// the default (F7's half: on Zen 3 the measured share moved such packs ahead of in-place and
// dot plans that ran 1.2-2x faster, M27). A transposing packer runs at its measured share of
// the rate.
double CpuModel::pack_gbs(double src_gbs, bool transposing, double run, double share, int threads,
                          double bytes) const noexcept {
  const double dram_bw = dram_gbs(threads);
  double src = src_gbs;
  if (src_gbs == dram_bw) {
    const bool streams = bytes > static_cast<double>(hw_.l2_bytes);
    const double dram_share = streams ? hw_.dram_pack_share : kSmallPackDramShare;
    src = dram_bw * dram_share / (1 + kDramRunRampBytes / run);
  }
  return std::min(transposing ? hw_.pack_gbs * share : hw_.pack_gbs, src);
}

// B packed once per core, from where it starts the call (ShapeKey::cold: DRAM), in runs along
// its contiguous direction (row-major: nc elements; column-major, a transposing copy: kc).
double CpuModel::pack_b_us(const ShapeKey& key, const BlockedShare& s) const noexcept {
  const double b_src_bw = source_gbs(key, s.eb * s.k_t * s.n_t, s.threads);
  const double run = key.b_row_unit ? run_bytes(s.eb, s.nc, s.n_t) : run_bytes(s.eb, s.kc, s.k_t);
  const double bytes = s.eb * s.k_t * s.n_t;
  return transfer_us(bytes, pack_gbs(b_src_bw, !key.b_row_unit, run, cfg_.transposing_pack_b_share,
                                     s.threads, bytes));
}

// A packed once per column panel (nc), in runs along its contiguous direction (row-major, a
// transposing copy: kc; column-major: mc).
double CpuModel::pack_a_us(const ShapeKey& key, const BlockedShare& s) const noexcept {
  const double a_src_bw = source_gbs(key, s.eb * s.m_t * s.k_t, s.threads);
  const double run = key.a_row_unit ? run_bytes(s.eb, s.kc, s.k_t) : run_bytes(s.eb, s.mc, s.m_t);
  const double bytes = s.eb * s.m_t * s.k_t;
  return transfer_us(s.n_blocks * bytes, pack_gbs(a_src_bw, key.a_row_unit, run,
                                                  cfg_.transposing_pack_share, s.threads, bytes));
}

// Prepacked panels (PackedWeights) read in place: a depth block of a panel is one contiguous
// run of kc x nr values, which the prefetchers stream under the FMAs, losing a ramp per run
// from DRAM. The later A blocks re-read the kc x nc block from the level holding it, as a
// packed B's. The other row tiles of an A block meet each run again: from L1 or L2 while it
// stays there, else from L3 or memory, which the tile waits for.
void CpuModel::prepacked_b_traffic(const ShapeKey& key, const BlockedShare& s,
                                   BlockedTraffic& t) const noexcept {
  const double dram_bw = dram_gbs(s.threads);
  const double b_src_bw = source_gbs(key, s.eb * s.k_t * s.n_t, s.threads);
  const double run = s.eb * s.kc * s.nr;
  t.overlapped_us +=
      transfer_us(s.eb * s.k_t * s.n_t,
                  b_src_bw == dram_bw ? b_src_bw / (1 + kPanelRunRampBytes / run) : b_src_bw);
  if (s.m_blocks > 1)
    t.overlapped_us += transfer_us((s.m_blocks - 1) * s.pw * s.k_t * s.n_t,
                                   level_gbs(s.pw * s.kc * s.nc, s.threads));
  const double reuse = (ceil_div(s.mc, s.mr) - 1.0) * s.m_blocks * s.eb * s.k_t * s.n_t;
  if (reuse > 0) {
    const double l1 = static_cast<double>(hw_.l1d_bytes), l2 = static_cast<double>(hw_.l2_bytes);
    if (run <= kResidentShare * l1)
      t.overlapped_us += transfer_us(reuse, hw_.bw_l1_gbs);
    else if (run <= kResidentShare * l2)
      t.overlapped_us += transfer_us(reuse, hw_.bw_l2_gbs);
    else
      t.exposed_us += transfer_us(reuse, level_gbs(run, s.threads));
  }
}

// The packed B panel is read once per A block, from L2 or L3 depending on nc.
void CpuModel::packed_b_traffic(const BlockedShare& s, BlockedTraffic& t) const noexcept {
  t.overlapped_us +=
      transfer_us(s.m_blocks * s.pw * s.k_t * s.n_t, level_gbs(s.pw * s.kc * s.nc, s.threads));
}

// Whether a core reads its in-place B from DRAM ahead by column tiles at the probe's rate (M34):
// the executor's Plan::prefetch_b over a column block of more than kReadAheadTiles tiles asks for
// the tile that many on, across the rows the tiles walk, for a core of enough rows that the read
// goes through the tile's depth steps (F29's condition) and no more than kDramInPlaceMaxRows (a
// taller core has more FMAs to each line than the probe's tile, and lost to B packed at 32 rows
// and more: 0.80-0.93x). Over rows a page multiple apart the tiles' lines pile into a few L2
// sets (M22) and lose more than the probe's rows a line off the page, so those keep the terms
// below; a profile without the probe's figure too.
bool CpuModel::reads_ahead_by_tiles(const ShapeKey& key, const BlockedShare& s,
                                    const Plan& p) const noexcept {
  const int page_log2 = std::countr_zero(static_cast<std::uint64_t>(hw_.page_bytes));
  return hw_.dram_in_place_share > 0 && p.prefetch_b && !p.pack_b && s.m_t >= kReadAheadMinRows &&
         s.m_t <= kDramInPlaceMaxRows &&
         std::min(s.nc, s.n_t) > static_cast<double>(kReadAheadTiles * p.nr) &&
         key.b_ld_log2 < page_log2 && s.eb * s.n >= kSeparateRowBytes &&
         reads_ahead_in_tile(static_cast<int64_t>(s.kc), static_cast<int64_t>(s.nr * s.eb)) &&
         source_gbs(key, s.eb * s.k_t * s.n_t, s.threads) == dram_gbs(s.threads);
}

// Share of B's source bandwidth an in-place B's first read gets as kc concurrent row streams
// (docs/MODEL.md, "Memory, exposed"): from DRAM, or from L3 for a warm core of one or two rows
// without software prefetches, whose little compute does not cover the streams. Past
// kStreamsTracked the prefetchers lose some; with one row panel every run of the core's n_t
// columns also restarts them (with more, their compute covers the restarts). Rows closer than
// kSeparateRowBytes are one stream.
double CpuModel::b_stream_share(const ShapeKey& key, const BlockedShare& s,
                                const Plan& p) const noexcept {
  // Read ahead by column tiles: the rate the probe measured beside a tile's FMAs, which holds
  // the whole of what such a core loses (M34).
  if (reads_ahead_by_tiles(key, s, p)) return hw_.dram_in_place_share;
  const double dram_bw = dram_gbs(s.threads);
  const double b_src_bw = source_gbs(key, s.eb * s.k_t * s.n_t, s.threads);
  const bool warm_l3 =
      !key.cold && !p.prefetch_b && b_src_bw < hw_.bw_l2_gbs && s.m_t <= kWarmStreamingRows;
  // The direct-B tile prefetches along every row in software: its rows lose the hardware
  // streams only when B is too large for any cache.
  const bool b_streams =
      warm_l3 || (s.direct_b ? level_gbs(s.eb * s.k_t * s.n_t, s.threads) : b_src_bw) == dram_bw;
  double streams = 1.0;
  if (b_streams && s.eb * s.n >= kSeparateRowBytes) {
    // A core of one or two rows whose own loads stream B falls off at the profile's measured
    // rate past the rows the prefetchers follow (M35); taller or reading-ahead cores keep F3.
    const bool own_loads = !p.prefetch_b && s.m_t <= kWarmStreamingRows;
    streams = own_loads ? few_row_stream_efficiency(hw_, s.kc) : dram_row_stream_efficiency(s.kc);
    // Read ahead through the tile's depth steps (Plan::prefetch_b, the executor's rule in
    // plan.hpp): its rows come at the full rate while the next block, asked for a block
    // traversal early, stays in half of L2 until the tile reads it, for a core of enough rows
    // that its FMAs cover the requests (F29).
    // The next block is one column block (Plan::nc) wide; its rows are asked for in software,
    // so a narrow block's short runs do not restart the hardware streams (F5 below).
    const bool read_ahead =
        p.prefetch_b && !p.pack_b && s.m_t >= kReadAheadMinRows &&
        reads_ahead_in_tile(static_cast<int64_t>(s.kc), static_cast<int64_t>(s.nr * s.eb));
    if (read_ahead) {
      const double held_rows = 0.5 * static_cast<double>(hw_.l2_bytes) / (s.eb * s.nc);
      streams = std::max(streams, std::min(1.0, std::min(kReadAheadRows, held_rows) / s.kc));
    }
    if (s.row_tiles <= 1 && !(read_ahead && s.nc < s.n_t))
      streams /= 1 + kDramRunRampBytes / run_bytes(s.eb, s.n_t, s.n);
  }
  return streams;
}

// A warm B read in place from L3 as kc rows a row stride apart comes at the profile's share of
// the L3 rate for that many rows (l3_row_stream_share): a throughput the kernel's FMAs overlap
// with, so it costs only where it is slower than they are (an Emerald Rapids core: 5.3 GB/s for
// 256 rows 16 KiB apart, far below what its FMAs consume; a Zen 4 core keeps more than half of
// its L3 rate, which the FMAs of four and more rows cover). Added to the overlapped terms beside
// the first read that in_place_b_traffic already counts at the full rate.
double CpuModel::l3_row_streams_us(const ShapeKey& key, const BlockedShare& s,
                                   const Plan& p) const noexcept {
  const double bytes = s.eb * s.k_t * s.n_t;
  // A core of one or two rows without software prefetches pays its row streams from L3 in
  // b_stream_share already (F10).
  const bool few_rows = !p.prefetch_b && s.m_t <= kWarmStreamingRows;
  if (key.cold || few_rows || s.eb * s.n < kSeparateRowBytes ||
      source_gbs(key, bytes, s.threads) != hw_.bw_l3_gbs)
    return 0.0;
  const double share = l3_row_stream_share(hw_, s.kc, key.b_ld_log2 >= 12);
  if (share >= 1.0) return 0.0;
  const double slow = transfer_us(bytes, hw_.bw_l3_gbs * share);
  // The direct-B tile's first read is overlapped already: only the difference adds.
  return s.direct_b ? slow - transfer_us(bytes, hw_.bw_l3_gbs) : slow;
}

// Rows a page or more apart: once a re-read sliver spans more pages than the first-level TLB
// holds, every row of every re-read misses it. The direct-B tile's row loads feed several
// cycles of interleaving each, which cover the miss.
double CpuModel::tlb_miss_us(const ShapeKey& key, const BlockedShare& s) const noexcept {
  if (s.direct_b || key.b_ld_log2 < 12 || s.kc <= kDtlbEntries) return 0.0;
  return (s.row_tiles - 1) * s.col_tiles * s.k_t * kDtlbMissCycles / (hw_.freq_ghz * 1e3);
}

// A sliver whose rows leave L1 while the row tiles re-read them: the row tiles after the first
// read every depth step's row from L2, and keep HardwareProfile::l2_row_share_paged of their
// rate (calibrate's paged re-read probe; a Zen 3 core keeps about half, docs/MODEL.md M22).
// The loss is the time those tiles wait. Two ways out of L1: rows a multiple of 4 KiB apart
// piling into a few of its sets (a sliver that would stay in L1 but for its stride, M22), or
// short rows a line or two apart whose sliver holds more lines than L1 keeps (M29: a packed
// sliver of the same bytes is one stream the prefetchers keep ahead of the tiles), re-read by
// kShortRowRereadTiles row tiles or more. And long rows off the page whose sliver holds more
// lines than L1 keeps, re-read by as many tiles: those keep l2_row_share_long (M36; their rows
// are separate streams, each tile's loads from L2 a row apart).
double CpuModel::paged_reread_us(const ShapeKey& key, const BlockedShare& s,
                                 double compute_us) const noexcept {
  const double share = hw_.l2_row_share_paged;
  if ((share >= 1.0 && hw_.l2_row_share_long >= 1.0) || s.direct_b || !key.b_row_unit) return 0.0;
  const double page = static_cast<double>(hw_.page_bytes);
  const int page_log2 = std::countr_zero(static_cast<std::uint64_t>(hw_.page_bytes));
  const double block = s.eb * s.kc * s.nr, l1 = static_cast<double>(hw_.l1d_bytes);
  // Per A block, the first of its row tiles reads the sliver, the others re-read it.
  const double block_tiles = std::ceil(s.mc / s.mr);
  if (block_tiles <= 1) return 0.0;
  bool leaves_l1 = false;
  if (key.b_ld_log2 >= page_log2) {
    leaves_l1 = !stays_resident(block, l1, hw_.l1d_ways, key.b_ld_log2, s.eb * s.nr, page) &&
                stays_resident(block, l1, hw_.l1d_ways, 0, s.eb * s.nr, page);
  } else if (s.eb * s.n >= kSeparateRowBytes) {
    // Long rows: a sliver of half of L1 or more, or over more pages than half the first-level
    // TLB (a row a page, at 4 KiB rows and longer; A's and C's rows take their own), is re-read
    // from L2 at the measured share by the row tiles after the first kLongRowFreeTiles, which
    // find it still close, in calls of kLongRowRereadRows rows or more (M36: not the core's
    // block, or splitting 64 rows over two cores escapes the term and loses 0.85x).
    const double lines = 64.0 * sliver_lines(s.kc, s.eb * s.nr, key.b_ld_log2);
    const double pages = s.kc * std::min(1.0, s.eb * s.n / page);
    const bool leaves = (lines >= kResidentShare * l1 || pages > kResidentShare * kDtlbEntries) &&
                        lines <= kResidentShare * static_cast<double>(hw_.l2_bytes);
    const double share_long = hw_.l2_row_share_long;
    if (!leaves || share_long >= 1.0 || s.m < kLongRowRereadRows) return 0.0;
    return compute_us * std::max(0.0, block_tiles - kLongRowFreeTiles) / block_tiles *
           (1.0 / std::max(share_long, 0.01) - 1.0);
  } else if (block_tiles >= kShortRowRereadTiles) {
    const double lines = 64.0 * sliver_lines(s.kc, s.eb * s.nr, key.b_ld_log2);
    leaves_l1 =
        lines > kResidentShare * l1 && lines <= kResidentShare * static_cast<double>(hw_.l2_bytes);
  }
  if (!leaves_l1 || share >= 1.0) return 0.0;
  return compute_us * (block_tiles - 1) / block_tiles * (1.0 / std::max(share, 0.01) - 1.0);
}

// B read in place: the kc x nr sliver comes from B's level for the first row panel, then from
// the level that keeps it for the others. A B that does not stay in L2 is read as kc rows ldb
// apart, a new TLB entry and prefetch stream per depth step that the core cannot overlap with
// its FMAs: exposed. The direct-B tile prefetches along B's rows in software, so its streams
// and its re-reads from L3 overlap the kernel (docs/LOWP.md, "In-place B").
void CpuModel::in_place_b_traffic(const ShapeKey& key, const BlockedShare& s, const Plan& p,
                                  double compute_us, BlockedTraffic& t) const noexcept {
  const double bytes = s.eb * s.k_t * s.n_t;
  const double b_src_bw = source_gbs(key, bytes, s.threads);
  const bool cached = !key.cold && s.eb * s.k * s.n <= static_cast<double>(hw_.l2_bytes);
  const double first_us = transfer_us(bytes, b_src_bw * b_stream_share(key, s, p));
  // Plan::prefetch_b asks for every depth block but the first a whole block traversal ahead.
  // Cores that split N and share the DRAM stream then hide those reads where the FMAs take
  // longer than the streams: fully from twice as long on, not at all where the streams are as
  // long (the tile then issues loads as fast as the core can, and the prefetches only take
  // load slots). One core alone, cores over M that each read all of B, and cores of more than
  // kAheadCoverRows rows (whose packing is spread over more rows) measured no faster in place
  // than packed (docs/MODEL.md M16).
  // A host whose cores lose most of a stream's rate over rows a stride apart (an Emerald
  // Rapids core keeps 0.19 of it at 16 KiB: issue 40's in-place losses there) gets no credit,
  // nor does one whose cores measured that the read-ahead does not overlap their FMAs (the
  // in-place DRAM loss, M23: on Zen 3, 64 x 1408 x 2048 over two cores split over N ran its
  // in-place plans in 3.6-4.6 ms against 2.1-2.3 predicted with the credit, M26).
  const double row_share = std::min(hw_.l3_row_share_paged, hw_.l3_row_share);
  const bool credited = p.prefetch_b && !s.direct_b && s.threads > 1 && p.pm == 1 && p.pk == 1 &&
                        s.m_t <= kAheadCoverRows && row_share >= kAheadCoverRowShare &&
                        hw_.dram_in_place_loss <= 0 && first_us > 0;
  const double cover = credited ? std::clamp(compute_us / first_us - 1.0, 0.0, 1.0) : 0.0;
  const double ahead = cover * (s.k_blocks - 1) / s.k_blocks;
  (cached || s.direct_b ? t.overlapped_us : t.exposed_us) += first_us * (1 - ahead);
  t.overlapped_us += first_us * ahead;
  // The row tiles after the first re-read B: the kc x nr sliver, which the executor's column
  // tile order has them meet in turn; swept (a shallow block, M33), the whole kc x nc block,
  // which every row tile reads across, its kc rows separate streams beyond L2.
  const double reread_cols = s.sweeps ? s.nc : s.nr;
  const ReReadLevel level = reread_level(hw_, s.eb * s.kc * reread_cols, key.b_ld_log2,
                                         s.eb * reread_cols, dram_gbs(s.threads));
  const double rows_share = s.sweeps && level.gbs == hw_.bw_l3_gbs
                                ? l3_row_stream_share(hw_, s.kc, key.b_ld_log2 >= 12)
                                : 1.0;
  (level.cached || s.direct_b ? t.overlapped_us : t.exposed_us) +=
      transfer_us((s.row_tiles - 1) * bytes, level.gbs * rows_share);
  t.exposed_us += tlb_miss_us(key, s);
  t.exposed_us += paged_reread_us(key, s, compute_us);
  // A core streaming B from DRAM under its own FMAs: the profile's measured loss, a multiple of
  // the FMAs at the peak rate of its first kDramInPlaceMaxRows rows (M23; not of its compute,
  // whose depth-block overheads issue no FMAs). Measured with the read-ahead: a core that
  // leaves its rows to the hardware prefetchers (dram_self_streaming_rows, M24) does not pay
  // it, nor do fewer rows (F10). A taller core reading ahead pays about the loss of that many
  // rows, not of all of its own: the first read of B is what waits (M28), over rows at least
  // kTallInPlaceLossRowBytes long; one that does not read ahead was not measured.
  // Rows closer than kSeparateRowBytes are one prefetch stream (F9), not the row streams the
  // probe read (16 KiB apart): 7 x 41 x 3299 and 8 x 85 x 8158 on Zen 3, one core, cold, ran in
  // place in 60 and 318 us, their stream and compute, where the loss priced them at 88 and 457
  // (M27).
  const bool one_stream = s.eb * s.n < kSeparateRowBytes;
  const bool self_streams =
      !p.prefetch_b && s.m_t <= static_cast<double>(hw_.dram_self_streaming_rows);
  if (b_src_bw == dram_gbs(s.threads) && !s.direct_b && !self_streams && !one_stream &&
      s.m_t > kWarmStreamingRows &&
      (s.m_t <= kDramInPlaceMaxRows || (p.prefetch_b && s.eb * s.n >= kTallInPlaceLossRowBytes)) &&
      hw_.dram_in_place_loss > 0 && !reads_ahead_by_tiles(key, s, p)) {
    const double rows = std::min(s.m_t, kDramInPlaceMaxRows);
    const double fma_us = 2.0 * rows * s.n_t * s.k_t / (hw_.peak_gflops_per_core(key.isa) * 1e3);
    t.exposed_us += fma_us * hw_.dram_in_place_loss;
  }
  t.overlapped_us += l3_row_streams_us(key, s, p);
}

// The packed A block is read once per column tile, from L1 when it fits there, else L2.
void CpuModel::packed_a_traffic(const BlockedShare& s, BlockedTraffic& t) const noexcept {
  const double a_bw =
      level_gbs(s.pw * s.mc * s.kc, s.threads) == hw_.bw_l1_gbs ? hw_.bw_l1_gbs : hw_.bw_l2_gbs;
  t.overlapped_us += transfer_us(s.col_tiles * s.pw * s.m_t * s.k_t, a_bw);
}

// A read in place, once from its level and again for every column panel. Rows of an A that
// does not stay in L2 are separate streams the prefetchers lose track of: exposed like
// in-place B. From DRAM a row-major A is read in runs of a depth block per row, and every run
// restarts the prefetchers like a packer's (split over K, a core's run ends where the other's
// begins: runs of kc against the whole row k); unlike a packer's, a row tile reads its rows'
// runs at once, so their ramps overlap: one ramp per kInPlaceARunRows runs (F30, M18).
void CpuModel::in_place_a_traffic(const ShapeKey& key, const BlockedShare& s, bool b_streams,
                                  BlockedTraffic& t) const noexcept {
  const double dram_bw = dram_gbs(s.threads);
  const double bytes = s.eb * s.m_t * s.k_t;
  const double a_src_bw = source_gbs(key, bytes, s.threads);
  const bool cached = !key.cold && s.eb * s.m * s.k <= static_cast<double>(hw_.l2_bytes);
  const double rows_at_once = std::min(kInPlaceARunRows, s.m_t);
  const double a_bw =
      a_src_bw == dram_bw && key.a_row_unit
          ? dram_bw / (1 + kDramRunRampBytes / (rows_at_once * run_bytes(s.eb, s.kc, s.k)))
          : a_src_bw;
  (cached ? t.overlapped_us : t.exposed_us) += transfer_us(bytes, a_bw);
  // Re-reads: the m_t x kc block, rows lda apart for a row-major A (packed-like contiguous
  // columns otherwise).
  const double block = s.eb * s.m_t * s.kc;
  const int ld = key.a_row_unit ? key.a_ld_log2 : 0;
  const double row_bytes = key.a_row_unit ? s.eb * s.kc : block;
  const ReReadLevel level = reread_level(hw_, block, ld, row_bytes, dram_bw);
  const double rereads_us = transfer_us((s.col_tiles - 1) * bytes, level.gbs);
  if (level.cached) {
    t.overlapped_us += rereads_us;
    return;
  }
  // From L3 each call of a row-major A re-reads its rows' runs of a depth block: over a few
  // column tiles the prefetchers follow a run once it has started, so the call waits for the
  // start of its runs, one ramp per kInPlaceARunRows of them as on the first read (F30), and the
  // rest streams under the FMAs (M32), beside a B packed per call (`b_streams`: its panels are
  // one stream). Beside B's own rows read in place (the streams the prefetchers follow are few)
  // or prepacked panels (not measured), re-read by more column tiles (a wider C), blocks of all
  // the cores beyond the resident share of one core's L3 (F35), from memory (M19), or a
  // column-major A's block (runs of whole columns), it stays exposed: measured so.
  // (Past L2, a block within the share is in L3: reread_level.)
  const bool streams = b_streams && key.a_row_unit && s.col_tiles <= kStreamedReReadTiles &&
                       block * s.threads <= kResidentShare * static_cast<double>(hw_.l3_bytes);
  const double exposed =
      streams ? std::min(1.0, kDramRunRampBytes / (rows_at_once * run_bytes(s.eb, s.kc, s.k)))
              : 1.0;
  t.exposed_us += rereads_us * exposed;
  t.overlapped_us += rereads_us * (1.0 - exposed);
}

// C (32-bit accumulators), read and written once per depth block. A core's share of C that
// stays in its L2 streams alongside the kernels; a larger one is reloaded tile by tile at the
// start of each kernel call, a latency-bound burst the core waits for. A shallow depth block
// ends before the C lines it stores could arrive from beyond L2, so C's traffic is exposed
// unless the executor prefetches the next tile's lines (Plan::prefetch_c). Rows of C closer
// than kSeparateRowBytes are one stream the hardware prefetches by itself (stored transposed,
// C's rows are the key's m columns of C^T). The first pass finds C where the residency puts it
// (cold: DRAM, charged by cold_c_bytes); the later passes in the level holding the share.
void CpuModel::c_traffic(const ShapeKey& key, const BlockedShare& s, const Plan& p,
                         BlockedTraffic& t) const noexcept {
  const double c_share = 4 * s.m_t * s.n_t;
  const double c_pass = 8 * s.m_t * s.n_t;  // C read and written once per depth block
  const bool c_fits = c_stays_in_l2(c_share);
  // From this depth the tiles ask for their C lines themselves (kernels::kWriteAheadMinSteps).
  const bool shallow = s.k_blocks == 1 && s.steps <= static_cast<double>(kPrefetchCSteps);
  const bool c_one_stream = 4 * (p.transpose_c ? s.m : s.n) < kSeparateRowBytes;
  const bool first_hidden =
      (c_fits && !key.cold) || c_one_stream || (s.k_blocks == 1 && (!shallow || p.prefetch_c));
  const double c_first = key.cold ? cold_c_bytes(c_share) : c_pass;
  (first_hidden ? t.overlapped_us : t.exposed_us) +=
      transfer_us(c_first, key.cold ? dram_gbs(s.threads) : level_gbs(c_share, s.threads));
  if (s.k_blocks > 1)
    (c_fits || c_one_stream ? t.overlapped_us : t.exposed_us) +=
        transfer_us((s.k_blocks - 1) * c_pass, level_gbs(c_share, s.threads));
}

// Split-K's second pass: another fork/join, and the deterministic reduction reading the pk
// partial results and writing C, over the threads, at L2 rate.
double CpuModel::split_k_reduction_us(const BlockedShare& s, const Plan& p) const noexcept {
  const double bytes = 4 * s.m * s.n * (p.pk + 1) / s.threads;
  return hw_.fork_join_us + transfer_us(bytes, hw_.bw_l2_gbs);
}

// Waking the pool's workers, the lines C's rows share at an N split's boundary, and split-K's
// reduction.
double CpuModel::blocked_sync_us(const ShapeKey& key, const BlockedShare& s,
                                 const Plan& p) const noexcept {
  double us = s.threads > 1 ? hw_.fork_join_us : 0.0;
  us += n_split_sharing_us(key, p, s.m_t, s.k_blocks);
  if (p.pk > 1) us += split_k_reduction_us(s, p);
  return us;
}

// The terms in the order the formula adds them up (docs/MODEL.md, "Terms"); each operand's
// traffic is added to the overlapped or the exposed part as its function decides.
CostBreakdown CpuModel::predict_blocked(const ShapeKey& key, const Plan& p) const noexcept {
  const BlockedShare s = blocked_share(key, p);
  CostBreakdown c;
  c.compute_us = blocked_compute_us(s, p);
  BlockedTraffic t;
  if (key.b_panel_nr != 0) {
    prepacked_b_traffic(key, s, t);
  } else if (p.pack_b) {
    c.pack_us += pack_b_us(key, s);
    packed_b_traffic(s, t);
  } else {
    in_place_b_traffic(key, s, p, c.compute_us, t);
  }
  if (p.pack_a) {
    c.pack_us += pack_a_us(key, s);
    packed_a_traffic(s, t);
  } else {
    in_place_a_traffic(key, s, p.pack_b, t);
  }
  c_traffic(key, s, p, t);
  if (p.prefetch_c) c.compute_us += prefetch_c_us(s);
  c.sync_us = blocked_sync_us(key, s, p);
  combine_terms(c, t.overlapped_us, t.exposed_us);
  return c;
}

}  // namespace adaptcore
