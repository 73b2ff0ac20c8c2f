#include "targets/ascend/pipeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace adaptcore::ascend {
namespace {

double d(int64_t v) { return static_cast<double>(v); }

// Bytes a strided read of `rows` segments of seg bytes moves, whole sectors, in the average.
double read_bytes(double rows, double seg, int64_t pitch, int64_t sector) {
  if (pitch % sector == 0) return rows * std::ceil(seg / d(sector)) * d(sector);
  const int64_t g = std::gcd(pitch % sector, sector);
  return rows * std::ceil((seg + d(sector - g)) / d(sector)) * d(sector);
}

}  // namespace

NpuCost predict(const AscendProfile& hw, const AscendShape& s, const TilingPlan& p) noexcept {
  NpuCost c;
  const double e = elem_bytes(p.dtype);
  const int c0 = c0_elems(p.dtype);
  const int ck = p.dtype == InDType::Int8 ? hw.cube_k_int8 : hw.cube_k_fp16;
  const double cyc = 1e-3 / hw.freq_ghz;  // us per cycle
  const int64_t tiles_m = ceil_div(s.m, p.base_m), tiles_n = ceil_div(s.n, p.base_n);
  const int64_t tiles = tiles_m * tiles_n;
  const int64_t kiters = ceil_div(s.k, p.base_k);
  const int cores = std::max(1, p.used_cores);

  // Work of the busiest core: blocks and K iterations.
  double blocks = 0, iters = 0;
  bool atomic = false;
  switch (p.dist) {
    case Distribution::DataParallel:
      blocks = d(ceil_div(tiles, cores));
      iters = blocks * d(kiters);
      break;
    case Distribution::SplitK: {
      const int64_t slice = round_up(ceil_div(s.k, p.split_k), p.base_k);
      const int64_t slices = ceil_div(s.k, slice);
      blocks = d(ceil_div(tiles * slices, cores));
      iters = blocks * d(slice / p.base_k);
      atomic = slices > 1;
      break;
    }
    case Distribution::StreamK: {
      const int64_t waves = tiles / cores, tail = tiles - waves * cores;
      const double tail_iters = std::ceil(d(tail * kiters) / cores);
      blocks = d(waves) + (tail > 0 ? std::ceil(tail_iters / d(kiters)) + 1 : 0);
      iters = d(waves * kiters) + tail_iters;
      atomic = tail > 0;
      break;
    }
  }

  // Block extents of the busiest core: full blocks (an edge block is smaller, but the core
  // that sets the kernel's time is one with full blocks), padded to fractals.
  const double mb = d(std::min<int64_t>(p.base_m, s.m)), nb = d(std::min<int64_t>(p.base_n, s.n));
  const double mpad = std::ceil(mb / 16) * 16, npad = std::ceil(nb / 16) * 16;
  const double kb = std::min<double>(p.base_k, d(s.k));
  const double kpad = std::ceil(kb / c0) * c0;
  const double step = std::min<double>(p.step_k, d(kiters));

  // Device memory: which GM reads come from HBM, which from L2.
  const double a_bytes = d(s.m) * d(s.k) * e, b_bytes = d(s.k) * d(s.n) * e;
  const double c_bytes = d(s.m) * d(s.n) * 4;
  const double loaded = a_bytes * d(tiles_n) + b_bytes * d(tiles_m);
  double hbm = a_bytes + b_bytes;
  if (a_bytes + b_bytes + c_bytes > d(hw.l2_bytes)) {
    // B panels are re-read for every group of `swizzle` block rows unless B stays in L2; A rows
    // of a group are reused while the group walks N.
    const double b_reads = b_bytes <= 0.5 * d(hw.l2_bytes) ? 1.0 : d(ceil_div(tiles_m, p.swizzle));
    hbm = a_bytes + b_bytes * b_reads;
  }
  hbm = std::min(hbm, loaded);
  const double l2_reads = loaded - hbm;
  c.hbm_bytes = hbm + c_bytes;
  c.memory_us = (hbm + c_bytes) / (hw.hbm_gbs * 1e3) + l2_reads / (hw.l2_gbs * 1e3);
  const double hit = loaded > 0 ? l2_reads / loaded : 0;
  // A core's reads are capped by its mover and by its share of the source (HBM or L2).
  const double mover_gbs = hw.gm_to_l1_bytes_per_cycle * hw.freq_ghz;
  const double mte2_gbs = 1.0 / (hit / std::min(mover_gbs, hw.l2_gbs / cores) +
                                 (1 - hit) / std::min(mover_gbs, hw.hbm_gbs / cores));

  // GM->L1 bytes and segments per K iteration, from the stored layout (or the aligned copy).
  auto operand = [&](bool relayout, bool k_contig, int64_t pitch_el, double rows_b, double& bytes,
                     double& segs) {
    const double chunk_k = kb * step;
    if (relayout) {
      bytes = std::ceil(rows_b / 16) * 16 * std::ceil(chunk_k / c0) * c0 * e;
      segs = std::ceil(chunk_k / c0);
    } else if (k_contig) {
      const bool whole = d(pitch_el) == chunk_k;
      segs = whole ? 1 : rows_b;
      bytes = whole ? rows_b * chunk_k * e
                    : read_bytes(rows_b, chunk_k * e, static_cast<int64_t>(d(pitch_el) * e),
                                 hw.gm_sector_bytes);
    } else {
      const bool whole = d(pitch_el) == rows_b;
      segs = whole ? 1 : chunk_k;
      bytes = whole ? rows_b * chunk_k * e
                    : read_bytes(chunk_k, rows_b * e, static_cast<int64_t>(d(pitch_el) * e),
                                 hw.gm_sector_bytes);
    }
    bytes /= step;  // per K iteration
    segs /= step;
  };
  double ab = 0, as = 0, bb = 0, bs = 0;
  operand(p.relayout_a, !s.trans_a, s.pitch_a(), mb, ab, as);
  operand(p.relayout_b, s.trans_b, s.pitch_b(), nb, bb, bs);
  const double t_mte2 =
      (ab + bb) / (mte2_gbs * 1e3) +
      ((as + bs) * hw.gm_row_overhead_cycles + 2 * hw.move_latency_cycles / step) * cyc;
  const double t_mte1 =
      (mpad + npad) * kpad * e / (hw.l1_to_l0_bytes_per_cycle * hw.freq_ghz * 1e3);
  const double t_cube = (mpad / 16) * (npad / 16) * (kpad / ck) * cyc;
  const double fix_gbs = std::min(hw.l0c_to_gm_bytes_per_cycle * hw.freq_ghz, hw.l2_gbs / cores);
  const double t_fix = mb * nb * 4 / (fix_gbs * 1e3) +
                       (hw.move_latency_cycles + mb * hw.gm_row_overhead_cycles) * cyc;

  const bool db = p.db_l1 && p.db_l0;
  const double per_block_iters = blocks > 0 ? iters / blocks : 0;
  const double fill = t_mte2 * step + t_mte1;  // the first stage's loads before the cube starts
  double block_time = 0;
  if (db) {
    // Double-buffered L1 lets MTE2 stream across block boundaries: per block the loads, the
    // cube path (with the FixPipe drain in it unless L0C is double-buffered, when the drain
    // overlaps the next block) and the drain itself; the slowest sets the pace.
    const double loads = per_block_iters * t_mte2;
    const double cube_path = per_block_iters * std::max(t_cube, t_mte1) + (p.db_l0c ? 0 : t_fix);
    block_time = std::max({loads, cube_path, t_fix});
  } else {
    block_time = fill + per_block_iters * (t_mte2 + t_mte1 + t_cube) + t_fix;
  }
  c.pipeline_us = fill + blocks * block_time + (p.db_l0c ? t_fix : 0);
  c.launch_us = hw.launch_us;

  // Pre-pass kernel: relayout copies (read + write through UB) and zero-fill of atomic blocks.
  double pre_bytes = 0;
  if (p.relayout_a) pre_bytes += 2 * a_bytes;
  if (p.relayout_b) pre_bytes += 2 * b_bytes;
  if (atomic) pre_bytes += c_bytes;
  if (pre_bytes > 0) {
    const double ub_gbs = std::min(hw.ub_bytes_per_cycle * hw.freq_ghz * hw.ai_cores, hw.hbm_gbs);
    c.prepass_us = hw.launch_us + pre_bytes / (ub_gbs * 1e3);
  }

  const double core_us = std::max(c.pipeline_us, c.memory_us);
  c.total_us = c.prepass_us + c.launch_us + core_us;
  if (c.memory_us >= c.pipeline_us)
    c.bound = "hbm";
  else if (t_cube >= t_mte2 && t_cube >= t_mte1)
    c.bound = "cube";
  else if (t_mte2 >= t_mte1)
    c.bound = "mte2";
  else
    c.bound = "mte1";
  if (t_fix > per_block_iters * std::max({t_mte2, t_mte1, t_cube})) c.bound = "fix";
  if (c.launch_us + c.prepass_us > core_us) c.bound = "launch";
  return c;
}

}  // namespace adaptcore::ascend
