#include "model/lowp_model.hpp"

#include <algorithm>
#include <cmath>

namespace adaptcore {
namespace {

constexpr double kLoadsPerCycle = 2.0;
constexpr double kDotLatency = 5.0;  // cycles; vdpbf16ps / vpdpbusd, one per accumulator per step
constexpr double kKernelEfficiency = 0.94;
// The portable int8 kernel: scalar-ish code the compiler vectorises with 16-bit multiplies;
// about a quarter of a 4-lane vector's multiply-adds per cycle (used only where nothing else
// exists, so a rough figure suffices for ranking its own candidates).
constexpr double kGenericInt8Macs = 4.0;

double ceil_div(double a, double b) { return std::ceil(a / b); }

}  // namespace

double LowpModel::level_gbs(double bytes, int threads) const noexcept {
  if (bytes <= static_cast<double>(hw_.l1d_bytes)) return hw_.bw_l1_gbs;
  if (bytes <= static_cast<double>(hw_.l2_bytes)) return hw_.bw_l2_gbs;
  if (bytes <= static_cast<double>(hw_.l3_bytes)) return hw_.bw_l3_gbs;
  return std::min(hw_.bw_dram_core_gbs, hw_.bw_dram_total_gbs / threads);
}

double LowpModel::macs_per_cycle() const noexcept {
  if (ks_.dtype == DType::U8S8 && ks_.macs_per_lane < 4.0)  // the portable kernel
    return kGenericInt8Macs;
  return hw_.fma_per_cycle(ks_.isa) * ks_.lanes * ks_.macs_per_lane;
}

double LowpModel::cycles_per_group(int m, int nr) const noexcept {
  const double nv = std::ceil(static_cast<double>(nr) / ks_.lanes);
  const double instrs = m * nv;
  const double loads = nv + m;
  // Instructions per cycle: the path's rate in multiply-adds over the work of one instruction.
  const double per_cycle = macs_per_cycle() / (ks_.lanes * ks_.macs_per_lane);
  return std::max({instrs / per_cycle, loads / kLoadsPerCycle, kDotLatency});
}

CostBreakdown LowpModel::predict_dot(const ShapeKey& key, const Plan& p) const noexcept {
  CostBreakdown c;
  const double eb = input_bytes(key.dtype);
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const int threads = p.threads();
  const double m_t = std::min(m, ceil_div(ceil_div(m, p.mr), p.pm) * p.mr);
  const double n_t = std::min(n, ceil_div(ceil_div(n, p.nr), p.pn) * p.nr);
  // Every tile walks k in 64-byte vectors: rows + cols loads and rows x cols dot instructions
  // per vector, each accumulator once (its latency bounds a small tile), then a horizontal sum
  // per output (about a dozen cycles of shuffles and adds).
  const double chunks = ceil_div(k, ks_.lanes * ks_.macs_per_lane);
  const double per_cycle = macs_per_cycle() / (ks_.lanes * ks_.macs_per_lane);
  auto tile_cycles = [&](double rows, double cols) {
    const double per = std::max({rows * cols / per_cycle, (rows + cols) / kLoadsPerCycle, kDotLatency});
    return chunks * per + 12.0 * rows * cols + 20.0;
  };
  const double cycles = tiled_cycles(m_t, n_t, p.mr, p.nr, tile_cycles);
  c.compute_us = cycles / (hw_.freq_ghz * 1e3) / kKernelEfficiency;
  // B once, as nr sequential streams from where it lies; then every tile streams its rows
  // and columns, (mr + nr) k values, from the level holding them: past L1 a 4 x 4 tile's 64
  // KiB at K = 4096 bf16 is L2 traffic that grows with M (measured 2 threads, 4096 x 4096 NT:
  // 153 GFLOP/s at M = 8, 2.4x the packed path, but 246 against 285 at M = 64 and 249 against
  // 370 at M = 256).
  // The tile streams do not hide under the dot products (8 streams of 64-byte loads, each
  // used once: measured ~30 cycles per step of a 4 x 4 tile at M = 256 against 16 of issue).
  const double b_bytes = eb * n_t * k;
  const double tiles = ceil_div(m_t, p.mr) * ceil_div(n_t, p.nr);
  const double tile_bytes = eb * (p.mr + p.nr) * k;
  const double b_us = b_bytes / (level_gbs(eb * n * k, threads) * 1e3);
  const double stream_us = tiles * tile_bytes / (level_gbs(tile_bytes, threads) * 1e3);
  c.memory_us = b_us + stream_us;
  if (threads > 1) c.sync_us = hw_.fork_join_us;
  c.bound = c.compute_us >= b_us ? "compute" : "memory";
  c.total_us = std::max(c.compute_us, b_us) + stream_us + c.sync_us;
  return c;
}

CostBreakdown LowpModel::predict(const ShapeKey& key, const Plan& p) const noexcept {
  if (p.dot) return predict_dot(key, p);
  CostBreakdown c;
  const double eb = input_bytes(key.dtype);
  const double m = static_cast<double>(key.m), n = static_cast<double>(key.n),
               k = static_cast<double>(key.k);
  const double mr = p.mr, nr = p.nr;
  const int threads = p.threads();
  const double m_t = std::min(m, ceil_div(ceil_div(m, mr), p.pm) * mr);
  const double n_t = std::min(n, ceil_div(ceil_div(n, nr), p.pn) * nr);
  const double kc = std::min(static_cast<double>(p.kc), k);
  const double mc = std::min(static_cast<double>(p.mc), m_t);
  const double nc = std::min(static_cast<double>(p.nc), n_t);
  const double k_blocks = ceil_div(k, kc);
  const double m_blocks = ceil_div(m_t, mc);
  const double n_blocks = ceil_div(n_t, nc);
  const double grp = ks_.group;

  // Compute: group steps of every register tile (partial groups padded), per-call C traffic.
  const double full_rows = std::floor(m_t / mr), tail_rows = m_t - full_rows * mr;
  const double col_tiles = ceil_div(n_t, nr);
  double row_cycles = full_rows * cycles_per_group(p.mr, p.nr);
  if (tail_rows > 0) row_cycles += cycles_per_group(static_cast<int>(tail_rows), p.nr);
  // In-place B: the row loads and unpacks of each group step and column tile, which every
  // row tile of the block repeats.
  if (!p.pack_b && ks_.direct_b != nullptr)
    row_cycles += ceil_div(m_t, mr) * ks_.direct_b->shuffle_cycles;
  const double groups = k_blocks * ceil_div(kc, grp);
  const double tiles = ceil_div(m_t, mr) * col_tiles;
  const double call_cycles = 12.0 + 1.5 * mr * std::ceil(nr / ks_.lanes);
  c.compute_us = (groups * row_cycles * col_tiles + k_blocks * tiles * call_cycles) /
                 (hw_.freq_ghz * 1e3) / kKernelEfficiency;

  // Memory: packed panels are 4 bytes per group (eb x group bytes of source), read from the
  // level holding them; C (4 bytes an element) once per depth block.
  auto us = [](double bytes, double gbs) { return bytes / (gbs * 1e3); };
  const double pw = 4.0 / grp;  // packed bytes per k value
  const double b_panel = pw * kc * nc, a_block = pw * kc * mc;
  double mem = 0.0;
  if (p.pack_b) {
    mem += us(m_blocks * pw * k * n_t, level_gbs(b_panel, threads));
  } else {
    // In place: B once from where it lies, as kc row streams when that is DRAM (the direct
    // kernels prefetch along the rows, but the stream term still fits the measurements); the
    // other row tiles re-read the kc x nr sliver from the level that keeps it despite set
    // conflicts (rows ldb apart: a 4 KiB distance piles a 256-deep int8 sliver into one L1
    // set; measured 4 row tiles at 16 x 4096 x 4096 running 3x over their compute).
    const double bytes = eb * k * n_t;
    const double gbs = level_gbs(bytes, threads);
    const bool from_dram = bytes > static_cast<double>(hw_.l3_bytes);
    mem += us(bytes, gbs * (from_dram ? dram_row_stream_efficiency(kc) : 1.0));
    const double sliver = eb * kc * nr, row_bytes = eb * nr, page = static_cast<double>(hw_.page_bytes);
    const int ld = key.b_ld_log2;
    double reuse_gbs = hw_.bw_l3_gbs;
    if (stays_resident(sliver, static_cast<double>(hw_.l1d_bytes), hw_.l1d_ways, ld, row_bytes, page))
      reuse_gbs = hw_.bw_l1_gbs;
    else if (stays_resident(sliver, static_cast<double>(hw_.l2_bytes), hw_.l2_ways, ld, row_bytes, page))
      reuse_gbs = hw_.bw_l2_gbs;
    mem += us((ceil_div(m_t, mr) - 1) * bytes, reuse_gbs);
  }
  mem += us(col_tiles * pw * m_t * k, level_gbs(a_block, threads) == hw_.bw_l1_gbs
                                          ? hw_.bw_l1_gbs
                                          : hw_.bw_l2_gbs);
  // C: read and written once per depth block. A core's C share that stays in half its L2
  // streams alongside the kernels; a larger one is reloaded tile by tile at each call, a
  // latency-bound burst the core waits for (the fp32 model's rule; measured here too: at
  // 2048^3 on one core, bf16 512-deep blocks run 10% slower than 1024-deep ones).
  const double c_share = 4.0 * m_t * n_t;
  const double c_us = us(k_blocks * 8.0 * m_t * n_t, level_gbs(c_share, threads));
  double exposed = 0.0;
  if (c_share <= 0.5 * static_cast<double>(hw_.l2_bytes) || k_blocks == 1)
    mem += c_us;
  else
    exposed += c_us;
  c.memory_us = mem + exposed;

  // Packing: every source byte of B once, of A once per B panel, at the packing rate (from
  // DRAM, half the source bandwidth as for fp32).
  const double src_b = p.pack_b ? eb * k * n_t : 0.0, src_a = eb * m_t * k;
  auto copy_gbs = [&](double bytes) {  // a copy out of DRAM also write-allocates its target
    const double bw = level_gbs(bytes, threads);
    return bytes > static_cast<double>(hw_.l3_bytes) ? bw / 2 : bw;
  };
  const double b_bw = copy_gbs(eb * k * n_t), a_bw = copy_gbs(eb * m_t * k);
  c.pack_us = us(src_b, std::min(hw_.pack_gbs, b_bw)) + us(n_blocks * src_a, std::min(hw_.pack_gbs, a_bw));
  if (threads > 1) c.sync_us = hw_.fork_join_us;
  c.bound = c.compute_us >= c.memory_us ? "compute" : "memory";
  c.total_us = std::max(c.compute_us, mem) + exposed + c.pack_us + c.sync_us;
  return c;
}

}  // namespace adaptcore
