#include "model/cpu_model.hpp"
#include "core/int_math.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace adaptcore {
namespace {

// Micro-architecture constants that are the same on every x86 core this library targets.
constexpr double kLoadsPerCycle = 2.0;      // vector loads (broadcasts included) per cycle
constexpr double kKernelEfficiency = 0.94;  // loop overhead, front end, C-tile traffic stalls
// Data TLB: first-level entries, and the cycles a first-level miss that hits the second level
// costs. A sliver whose rows are a page or more apart touches a page per depth step.
constexpr double kDtlbEntries = 64.0;
constexpr double kDtlbMissCycles = 7.0;
// A block counts as resident in a cache only within half its conflict-free capacity: the
// other operands and C stream through the same sets.
constexpr double kResidentShare = 0.5;
// Concurrent row streams from DRAM the hardware prefetchers follow at full bandwidth.
constexpr double kStreamsTracked = 8.0;
// Bandwidth a packer loses at the start of every contiguous run it reads from DRAM: the
// prefetchers restart on each run, so its first lines arrive at memory latency (about 100 ns,
// 800 bytes at a core's packing rate). Fitted to int8 B of 4096 x 14336 packed by one thread in
// row runs of 3072 / 2048 / 1024 bytes: 1.31 / 1.38 / 1.83x the time of whole rows
// (docs/MODEL.md, "Packing out of DRAM").
constexpr double kDramRunRampBytes = 800.0;
// The same for a register tile streaming prepacked panels from DRAM, run by run (a depth block
// of a panel, kc x nr values): the tile's loads wait for the stream to start again. Fitted to
// 1 x 24576 x 4096 cold, one core, nr = 32, the panels in huge pages: 2.7 us per 64 KiB run
// (kc = 512) and 15.7 us per 512 KiB (kc = 4096), about 24 KiB of a run's bandwidth lost.
constexpr double kPanelRunRampBytes = 24.0 * 1024;
// A cache line written by two cores in turn: the transfer and the store waiting for it.
constexpr double kFalseSharingCycles = 80.0;
// The dot-product loop's set-up per core and call.
constexpr double kDotLoopCycles = 40.0;
// Rows of an operand closer than this are one prefetch stream, not one per row (a dense B of
// at most 256 fp32 columns read in place; e.g. cold 11 x 54 x 297 runs in 6.9 us in place
// against 12.7 us packed).
constexpr double kSeparateRowBytes = 1024.0;
// Rows of a core up to which a warm B read in place from L3 is bound by its row streams
// (predict_blocked): the compute of more rows covers them.
constexpr double kWarmStreamingRows = 2.0;
// Issue cost of one software prefetch instruction, in cycles.
constexpr double kPrefetchCycles = 0.5;
// The executor's set-up, which the small-problem executor does without: one core, warm, whole
// calls of 18 x 2 x 2 took 116 ns through the executor (63 of them in execute()) and 81 ns
// for a plan of the small executor whose execute() alone took 86 ns.
constexpr double kExecutorSetupUs = 0.05;
// The transposed store (Plan::transpose_c) of a C stored densely, per vector of the tile (16
// rows of C) and row of C^T (column of C): its share of the M * ceil(M / 2) two-source
// permutes and masked moves that interleave the M columns into M vectors of C's run (M = the
// tile's rows), and a fixed part (one core, K = 1, 3072 rows: 10 cycles a vector for one
// column, 23 for four, 67 for eight).
constexpr double kTransposedStoreFixedCycles = 4.0;
constexpr double kTransposedStorePermuteCycles = 2.0;
// Past 8 columns of C the store is the 16 x 16 register transpose and 16 masked row stores per
// vector, whatever the column count, and a little per column (one core, K = 1, 3072 rows, the
// 14x32 tile: 77 cycles a vector for 9 columns, 82 for 12, 91 for 14, with the tile's calls
// and its loads and FMAs in those figures).
constexpr int kTransposedStoreWideRows = 8;
constexpr double kTransposedStoreWideFixedCycles = 44.0;
constexpr double kTransposedStoreWideRowCycles = 2.8;

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

bool stays_resident(double block_bytes, double cache_bytes, int ways, int stride_log2,
                    double row_bytes, double page_bytes) noexcept {
  return block_bytes <=
         kResidentShare * effective_capacity(cache_bytes, ways, stride_log2, row_bytes, page_bytes);
}

double dram_row_stream_efficiency(double rows) noexcept {
  return std::min(1.0, std::sqrt(std::sqrt(kStreamsTracked / rows)));
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
  // Every operand of the call, C as 32-bit accumulators (warm, one core, 8 x 6577 x 239 with
  // B's 6.3 MiB read in place: 229-244 us with kc = 239, 310 us with the kc = 8 the DRAM
  // pricing chose).
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
  // small tile), then a horizontal sum per output: about 4 cycles each, as the sums of a tile
  // overlap, and 8 a call (a loop of 4x4 tiles, k = 16: 81 cycles a tile; 4x1, k = 24: 38;
  // 1x1, k = 16: 9).
  const double chunks = ceil_div(k, cfg_.lanes * cfg_.macs_per_lane);
  auto tile_cycles = [&](double rows, double cols) {
    const double per = std::max(
        {rows * cols / cfg_.instr_per_cycle, (rows + cols) / kLoadsPerCycle, cfg_.latency_cycles});
    return chunks * per + 4.0 * rows * cols + 8.0;
  };
  // Plus the dot loop's set-up, once per core (its operand views and output target): a whole
  // 1 x 1 x 1 call through it took 36 ns against 27 through a register tile.
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
  // The copy (TypeConfig::dot_pack_cycles: element by element 2 cycles each, 64 x 7 x 4096
  // copied its 28,672 in 16 us; AVX-512 transposes in registers).
  if (p.pack_b)
    c.pack_us = std::max(
        b_bytes / (std::min(hw_.pack_gbs * cfg_.transposing_pack_b_share, b_src_gbs) * 1e3),
        cfg_.dot_pack_cycles * n_t * k / (hw_.freq_ghz * 1e3));
  // The loop runs column tiles outer, row tiles inner: a column tile's nr x k sliver stays
  // close while every row tile streams its mr rows of A, which come from the level holding
  // the core's whole A (64 x 7 x 4096, 2 column tiles: A's 1 MiB re-read from L3, not L2).
  // Cold, the first of A's passes (one per column tile) comes from DRAM instead; the others
  // from where the first left it.
  const double b_tile_bytes = eb * p.nr * k;
  const double a_bytes = eb * m_t * k, a_level_gbs = level_gbs(a_bytes, threads);
  const double col_tiles = ceil_div(n_t, p.nr);
  // Warm, A's first pass and the tiles' B streams from L1 or L2 run under the instructions
  // (the prefetchers keep a few rows ahead); from L3 or DRAM the core waits for them (192 x 4
  // x 128 warm, one core, A's 96 KiB in L2: 2.7 us, the instructions' 2.8 us, where adding the
  // streams said 4.2). A's re-reads for the later column tiles are hidden only while A stays
  // resident in L2: counted from the whole L2, the planner took dot tiles for 256 x 4096 x 1024
  // NT (1 MiB of A a core; 0.90x the packed register tile). Cold, every row a tile starts is a
  // miss the tile waits for (hiding those, 74 cold two-thread plans changed to dot plans ran
  // 0.82x the time).
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
  c.memory_us = b_us + hidden_us + exposed_us;
  if (threads > 1) c.sync_us = hw_.fork_join_us;
  // Split over N, the boundary lines of C's rows move between the cores as a register-tile
  // grid's do, once (warm 66 x 8 x 300, 2 threads, N split 4 + 4: 4.3 us a call back to back
  // through the API, 3.3 us on one core).
  c.sync_us += n_split_sharing_us(key, p, m_t, 1.0);
  c.bound = c.compute_us >= c.memory_us ? "compute" : "memory";
  c.total_us = std::max(c.compute_us, b_us + hidden_us) + exposed_us + c.pack_us + c.sync_us;
  return c;
}

// What a row of the row kernel costs beyond its lines, in cycles: its set-up and the two
// partial lines at its ends, ordinary stores whose reads for ownership come from memory (cold,
// 2 threads: 3000 x 100 x 2 took 115 ns a row, 2000 x 130 x 1 130 ns, 1000 x 260 x 1 170 ns,
// 127 x 2039 x 1 about 700 ns, whose 128 lines are most of it). Prefetching the partial lines
// of a row a few rows ahead shortened the short rows by 10-15% but lengthened 3443 x 317 x 1 by
// 40%, so the kernel does not.
constexpr double kRowsRowCycles = 250.0;

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
  const double mem_us = 4.0 * m_t * n / (dram_bw * 1e3) + b_bytes / (b_src * 1e3) +
                        (m_t - 1.0) * b_bytes / (level_gbs(b_bytes, 1) * 1e3) +
                        a_bytes / (a_src * 1e3);
  c.memory_us = mem_us;
  if (threads > 1) c.sync_us = hw_.fork_join_us;
  c.bound = c.compute_us >= mem_us ? "compute" : "memory";
  c.total_us = std::max(c.compute_us, mem_us) + c.sync_us;
  return c;
}

CostBreakdown CpuModel::predict_blocked(const ShapeKey& key, const Plan& p) const noexcept {
  CostBreakdown c;
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const double mr = p.mr, nr = p.nr;
  const int threads = p.threads();
  const double eb = cfg_.in_bytes;              // source bytes per element
  const double pw = cfg_.packed_bytes_per_k();  // packed bytes per k value
  const double grp = cfg_.group;

  // Busiest core's share: whole register panels, rounded up.
  const double m_t = std::min(m, ceil_div(ceil_div(m, mr), p.pm) * mr);
  const double n_t = std::min(n, ceil_div(ceil_div(n, nr), p.pn) * nr);
  const double k_t = ceil_div(k, p.pk);
  const double kc = std::min(static_cast<double>(p.kc), k_t);
  const double mc = std::min(static_cast<double>(p.mc), m_t);
  const double nc = std::min(static_cast<double>(p.nc), n_t);
  const double k_blocks = ceil_div(k_t, kc);
  const double m_blocks = ceil_div(m_t, mc);
  const double n_blocks = ceil_div(n_t, nc);
  // Packed steps of the depth loop: whole groups per depth block, the last block's short.
  const double last_kc = k_t - (k_blocks - 1.0) * kc;
  const double steps = (k_blocks - 1.0) * ceil_div(kc, grp) + ceil_div(last_kc, grp);

  // --- Compute: every register tile of the share, each step at the tile's rate. A row tail
  // (masked) runs a kernel of its own row count; a column tail of B read in place loads and
  // multiplies only its live vectors (packed panels are padded: every vector is used).
  const double full_rows = std::floor(m_t / mr);
  const double tail_rows = m_t - full_rows * mr;
  const double full_cols = std::floor(n_t / nr);
  const bool direct_b = !p.pack_b && !cfg_.in_place_b;  // B in place by a tile of its own
  const double tail_cols = p.pack_b || direct_b ? nr : n_t - full_cols * nr;
  const double col_tiles = ceil_div(n_t, nr);
  const double row_tiles = ceil_div(m_t, mr);
  const double tail_m = p.tail == TailStrategy::Masked ? tail_rows : mr;
  // The tile's vectors (a narrow tile of a wide path has fewer lanes, at its own rate).
  const TileShape shape = p.tile >= 0 && p.tile < cfg_.tile_count ? cfg_.tile(p.tile) : TileShape{};
  const double lanes = cfg_.lanes_of(shape), rate = cfg_.rate_of(shape);
  // The row tiles of a column: packed A, whole mr-row panels and the tail; A read in place,
  // tiles of even heights (the executor's split: 13 rows of 6 as 5 + 4 + 4).
  double tall_count = full_rows, tall_rows = mr;
  double short_count = tail_rows > 0 ? 1.0 : 0.0, short_rows = tail_m;
  if (!p.pack_a) {
    tall_rows = std::ceil(m_t / row_tiles);
    tall_count = m_t - (tall_rows - 1.0) * row_tiles;
    short_count = row_tiles - tall_count;
    short_rows = tall_rows - 1.0;
  }
  // Per step and per kernel call (C tile load and store, loop set-up) of every tile of one
  // column width, summed over the row tiles.
  const bool chained = ceil_div(kc, grp) >= static_cast<double>(kernels::kChainedMinSteps);
  auto step_cycles = [&](double cols) {
    return tall_count * cycles_per_step(tall_rows, cols, lanes, rate, chained) +
           (short_count > 0 && short_rows > 0
                ? short_count * cycles_per_step(short_rows, cols, lanes, rate, chained)
                : 0.0);
  };
  // A row store costs per vector of the tile; the transposed store per vector of C^T's rows,
  // whatever the tile's row count.
  auto store_cycles = [&](double rows, double live) {
    if (!p.transpose_c) return 1.5 * rows * live;
    if (rows > kTransposedStoreWideRows)
      return (kTransposedStoreWideFixedCycles + kTransposedStoreWideRowCycles * rows) * live;
    return (kTransposedStoreFixedCycles +
            kTransposedStorePermuteCycles * rows * std::ceil(rows / 2)) *
           live;
  };
  auto call_cycles = [&](double cols) {
    const double live = std::ceil(cols / lanes);
    return tall_count * (12.0 + store_cycles(tall_rows, live)) +
           (short_count > 0 && short_rows > 0
                ? short_count * (12.0 + store_cycles(short_rows, live))
                : 0.0);
  };
  double row_cycles = full_cols * step_cycles(nr);  // one step of every tile of the share
  double calls = full_cols * call_cycles(nr);
  if (col_tiles > full_cols) {
    row_cycles += step_cycles(tail_cols);
    calls += call_cycles(tail_cols);
  }
  // The direct-B tile's row loads and interleaving of each step and column tile, which every
  // row tile of the block repeats.
  if (direct_b) row_cycles += row_tiles * col_tiles * cfg_.direct_b_cycles;
  double cycles = steps * row_cycles + k_blocks * calls;
  if (p.tail == TailStrategy::Padded) {
    const double edge_tiles =
        (tail_rows > 0 ? col_tiles : 0) + (std::fmod(n_t, nr) > 0 ? row_tiles : 0);
    cycles += k_blocks * edge_tiles * mr * nr / lanes * 2.0;  // scratch copy-out
  }
  c.compute_us = cycles / (hw_.freq_ghz * 1e3) / kKernelEfficiency;

  // --- Memory: bytes each level delivers to the busiest core, at that level's bandwidth.
  const double dram_bw = dram_gbs(threads);
  auto bw_of = [&](double bytes) { return level_gbs(bytes, threads); };
  auto us = [](double bytes, double gbs) { return bytes / (gbs * 1e3); };
  double mem_us = 0;      // overlapped with compute
  double exposed_us = 0;  // latency-bound traffic the core waits for
  double pack_us = 0;
  // Operands start where they fit: a hot loop keeps small matrices cached, large ones stream.
  // The part of each operand this core reads decides its level: with B split over two cores,
  // each core's half can stay in its own L3 although the whole B would not.
  // Cold operands (ShapeKey::cold) start in DRAM whatever their size.
  const double a_src_bw = source_gbs(key, eb * m_t * k_t, threads);
  const double b_src_bw = source_gbs(key, eb * k_t * n_t, threads);
  const double page = static_cast<double>(hw_.page_bytes);
  // Packing reads the source at the packing rate, at most the source's bandwidth; a copy out
  // of DRAM also write-allocates its destination (half the source bandwidth). A packer that
  // transposes (fp32 A row-major, B column-major) runs at half rate.
  // From DRAM, a panel read in runs of `run` bytes (the packed block's extent along the
  // operand's contiguous direction) loses a ramp per run; a run that is the whole extent of the
  // matrix (all threads' shares of a row, read side by side) is one stream.
  auto run_bytes = [&](double block, double share) {
    return block >= share ? std::numeric_limits<double>::infinity() : eb * block;
  };
  auto pack_rate = [&](double src_bw, bool transposing, double run, double share) {
    double src = src_bw;
    if (src_bw == dram_bw) src = dram_bw / 2 / (1 + kDramRunRampBytes / run);
    return std::min(transposing ? hw_.pack_gbs * share : hw_.pack_gbs, src);
  };

  if (key.b_panel_nr != 0) {
    // Prepacked panels (PackedWeights) read in place: a depth block of a panel is one
    // contiguous run of kc x nr values, as a packed B's panel, which the prefetchers stream.
    // The first A block reads the core's panels from where they lie, under its FMAs; the
    // others re-read the kc x nc block from the level holding it, as a packed B's.
    const double run = eb * kc * nr;
    mem_us += us(eb * k_t * n_t,
                 b_src_bw == dram_bw ? b_src_bw / (1 + kPanelRunRampBytes / run) : b_src_bw);
    if (m_blocks > 1) mem_us += us((m_blocks - 1) * pw * k_t * n_t, bw_of(pw * kc * nc));
    // The other row tiles of an A block meet each kc x nr run again: from L1 or L2 while it
    // stays there, else from L3 (or memory), which the tile waits for (16 x 8192 x 28672 cold,
    // two threads, kc = 28672: 7.3 MiB runs read by three row tiles each, 49.6 ms against 42.4
    // for oneDNN).
    const double reuse = (ceil_div(mc, mr) - 1.0) * m_blocks * eb * k_t * n_t;
    if (reuse > 0) {
      const double l1 = static_cast<double>(hw_.l1d_bytes), l2 = static_cast<double>(hw_.l2_bytes);
      if (run <= kResidentShare * l1)
        mem_us += us(reuse, hw_.bw_l1_gbs);
      else if (run <= kResidentShare * l2)
        mem_us += us(reuse, hw_.bw_l2_gbs);
      else
        exposed_us += us(reuse, bw_of(run));
    }
  } else if (p.pack_b) {
    const double run = key.b_row_unit ? run_bytes(nc, n_t) : run_bytes(kc, k_t);
    pack_us += us(eb * k_t * n_t,
                  pack_rate(b_src_bw, !key.b_row_unit, run, cfg_.transposing_pack_b_share));
    // The packed panel is read once per A block, from L2 or L3 depending on nc.
    mem_us += us(m_blocks * pw * k_t * n_t, bw_of(pw * kc * nc));
  } else {
    // In place: the kc x nr sliver comes from B's level for the first row panel, then from
    // L1 (if it fits half of it) or L2 for the others. A B that does not stay in L2 is read
    // as kc rows ldb apart (a page or more): a new TLB entry and prefetch stream per depth
    // step, which the core cannot overlap with its FMAs, so that traffic is exposed. From
    // DRAM the sliver is kc concurrent row streams, and past about 8 the prefetchers lose
    // some (docs/MODEL.md, "Memory, exposed"); from L3 the stream count does not matter.
    // An in-place tile of its own (direct_b) prefetches along B's rows in software, so its
    // streams, and its re-reads from L3, overlap the kernel (docs/LOWP.md, "In-place B").
    // From DRAM each of the core's rows of B is a run of its n_t columns, and every run
    // restarts the prefetchers like a packer's (below); a core reading whole rows (N not
    // split) reads one stream.
    const double bytes = eb * k_t * n_t;
    const bool cached = !key.cold && eb * k * n <= static_cast<double>(hw_.l2_bytes);
    // The direct-B tile prefetches along every row in software: its rows lose the hardware
    // streams only when B is too large for any cache (a cold B that would fit L3 does not:
    // bf16 4 x 1408 x 2048 cold, kc = 256 370 us against 631 us for kc = 16).
    // The register tiles' in-place B is prefetched a depth block ahead while the first row
    // panel computes; with more row panels their compute covers the restart of each run
    // (validate-model, cold, 2 threads: 10 x 1024 x 11008 and 15 x 1024 x 1024 ran 1.67x
    // faster in place with kc = 32 than the packed plans the ramp made the model prefer).
    // A warm B beyond L2 read without software prefetches (it stays in the L3 a hot loop
    // keeps: Plan::prefetch_b is off) by a core of one or two rows is kc row streams from L3
    // that little compute covers, lost past about 8 as from DRAM (warm, one core, 1 x 2048 x
    // 1408: kc = 8 157 us, kc = 256 237 us; two threads, 1 and 2 x 4096 x 512 and
    // x 6577 x 239: kc = 8 1.14-1.34x faster than 256). From four rows on the compute covers
    // them (two threads, 4 x 4096 x 512, 4 x 768 x 2048: kc = 256 1.4x faster than 8).
    double streams = 1.0;
    const bool warm_l3 =
        !key.cold && !p.prefetch_b && b_src_bw < hw_.bw_l2_gbs && m_t <= kWarmStreamingRows;
    const bool b_streams = warm_l3 || (direct_b ? bw_of(eb * k_t * n_t) : b_src_bw) == dram_bw;
    if (b_streams && eb * n >= kSeparateRowBytes) {
      streams = dram_row_stream_efficiency(kc);
      if (row_tiles <= 1) streams /= 1 + kDramRunRampBytes / run_bytes(n_t, n);
    }
    (cached || direct_b ? mem_us : exposed_us) += us(bytes, b_src_bw * streams);
    // Reuse of the kc x nr sliver by the other row panels, from the level that holds it
    // despite set conflicts; beyond L2 every reuse is a latency-bound re-read.
    const double sliver = eb * kc * nr;
    const int ld = key.b_ld_log2;
    const double reuse = (row_tiles - 1) * bytes;
    if (stays_resident(sliver, static_cast<double>(hw_.l1d_bytes), hw_.l1d_ways, ld, eb * nr, page))
      mem_us += us(reuse, hw_.bw_l1_gbs);
    else if (stays_resident(sliver, static_cast<double>(hw_.l2_bytes), hw_.l2_ways, ld, eb * nr,
                            page))
      mem_us += us(reuse, hw_.bw_l2_gbs);
    else  // just read, so in L3 at worst (the victim of L2)
      (direct_b ? mem_us : exposed_us) += us(reuse, hw_.bw_l3_gbs);
    // Rows a page or more apart: once a sliver spans more pages than the first-level TLB
    // holds, every row of every re-read misses it. The direct-B tile's row loads feed
    // several cycles of interleaving each, which cover a miss that hits the second-level TLB
    // (bf16 64 x 4096 x 14336, 2 threads: kc = 256 runs in 0.8x the time of kc = 64).
    if (!direct_b && ld >= 12 && kc > kDtlbEntries)
      exposed_us += (row_tiles - 1) * col_tiles * k_t * kDtlbMissCycles / (hw_.freq_ghz * 1e3);
  }
  if (p.pack_a) {
    const double run = key.a_row_unit ? run_bytes(kc, k_t) : run_bytes(mc, m_t);
    pack_us += us(n_blocks * eb * m_t * k_t,
                  pack_rate(a_src_bw, key.a_row_unit, run, cfg_.transposing_pack_share));
    const double a_bw = bw_of(pw * mc * kc) == hw_.bw_l1_gbs ? hw_.bw_l1_gbs : hw_.bw_l2_gbs;
    mem_us += us(col_tiles * pw * m_t * k_t, a_bw);
  } else {
    // In place: A is re-read for every column panel. Rows of an A that does not stay in L2
    // are separate streams the prefetchers lose track of: exposed like in-place B.
    // From DRAM, a row-major A is read in runs of a depth block per row, and every run
    // restarts the prefetchers like a packer's (1533 x 18 x 6082 cold: kc = 32 2.3x slower).
    const double bytes = eb * m_t * k_t;
    const bool cached = !key.cold && eb * m * k <= static_cast<double>(hw_.l2_bytes);
    // (Split over K, a core's run ends where the other's begins: runs of kc against the
    // whole row k.)
    const double a_bw = a_src_bw == dram_bw && key.a_row_unit
                            ? dram_bw / (1 + kDramRunRampBytes / run_bytes(kc, k))
                            : a_src_bw;
    (cached ? mem_us : exposed_us) += us(bytes, a_bw);
    // Re-reads for the other column panels: the m_t x kc block, rows lda apart for a
    // row-major A (packed-like contiguous columns otherwise).
    const double block = eb * m_t * kc;
    const int ld = key.a_row_unit ? key.a_ld_log2 : 0;
    const double row_bytes = key.a_row_unit ? eb * kc : block;
    const double reuse = (col_tiles - 1) * bytes;
    if (stays_resident(block, static_cast<double>(hw_.l1d_bytes), hw_.l1d_ways, ld, row_bytes,
                       page))
      mem_us += us(reuse, hw_.bw_l1_gbs);
    else if (stays_resident(block, static_cast<double>(hw_.l2_bytes), hw_.l2_ways, ld, row_bytes,
                            page))
      mem_us += us(reuse, hw_.bw_l2_gbs);
    else
      exposed_us += us(reuse, hw_.bw_l3_gbs);
  }
  // C (32-bit accumulators): read and written once per depth block. A core's share of C that
  // stays in its L2 streams alongside the kernels; a larger one is reloaded tile by tile at the
  // start of each kernel call, a latency-bound burst the core waits for (docs/MODEL.md, "Memory,
  // exposed"). A shallow depth block (a few steps per tile) ends before the C lines it stores could
  // arrive from beyond L2, so C's traffic is exposed unless the executor prefetches the next
  // tile's lines (Plan::prefetch_c), which costs an instruction per line.
  const double c_share = 4 * m_t * n_t;
  const double c_pass = 8 * m_t * n_t;  // C read and written once per depth block
  const bool c_fits = c_stays_in_l2(c_share);
  const bool shallow = k_blocks == 1 && steps <= static_cast<double>(kPrefetchCSteps);
  // Rows of C closer than kSeparateRowBytes are one stream the hardware prefetches by itself.
  // (Stored transposed, C's rows are the key's m columns of C^T.)
  const bool c_one_stream = 4 * (p.transpose_c ? m : n) < kSeparateRowBytes;
  // The first pass finds C where the residency puts it (cold: DRAM); the later passes find it
  // in the level holding the core's share, where it stays after the first.
  const bool first_hidden =
      (c_fits && !key.cold) || c_one_stream || (k_blocks == 1 && (!shallow || p.prefetch_c));
  const double c_first = key.cold ? cold_c_bytes(c_share) : c_pass;
  (first_hidden ? mem_us : exposed_us) += us(c_first, key.cold ? dram_bw : bw_of(c_share));
  if (k_blocks > 1)
    (c_fits || c_one_stream ? mem_us : exposed_us) += us((k_blocks - 1) * c_pass, bw_of(c_share));
  if (p.prefetch_c)
    c.compute_us +=
        m_t * std::ceil(4 * n_t / 64 + col_tiles) * kPrefetchCycles / (hw_.freq_ghz * 1e3);
  c.memory_us = mem_us + exposed_us;
  c.pack_us = pack_us;

  // --- Synchronisation: waking the pool; split-K adds a second pass that reduces partials.
  if (threads > 1) c.sync_us += hw_.fork_join_us;
  // A grid that splits N moves the boundary lines of C's rows between the cores once per row
  // and depth block (187 x 82 x 6 warm, 2 threads: 5.7 us split over N, 3.1 us on one core).
  c.sync_us += n_split_sharing_us(key, p, m_t, k_blocks);
  if (p.pk > 1) {
    const double bytes = 4 * m * n * (p.pk + 1) / threads;
    c.sync_us += hw_.fork_join_us + us(bytes, hw_.bw_l2_gbs);
  }

  const double overlap = std::max(c.compute_us, mem_us);
  c.bound = c.compute_us >= mem_us + exposed_us ? "compute" : "memory";
  c.total_us = overlap + exposed_us + c.pack_us + c.sync_us;
  return c;
}

}  // namespace adaptcore
