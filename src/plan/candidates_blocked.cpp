// Blocked plans: register tiles over cache blocks (BLIS's loop nest). The options: which tile,
// packing A or reading it in place, packing B or reading it in place (by the register tiles
// themselves, or by an in-place tile of its own where the kernels interleave B's rows), the
// depth block kc, the core grid (split-K where the kernels' partials can be reduced) and the
// tail strategy. Block sizes follow from the cache sizes and the packed element size, so one
// generator serves every data type.
#include <algorithm>
#include <array>

#include "core/int_math.hpp"
#include "kernels/ukernel.hpp"
#include "plan/candidates.hpp"
#include "plan/core_grid.hpp"

namespace adaptcore {
namespace {

// In-place B for decode shapes of at most 8 rows: 8-deep blocks besides 32-deep ones (B read
// from memory is kc concurrent row streams and the prefetchers follow only a few; see
// docs/MODEL.md, "Memory, exposed").
constexpr int64_t kKcDecode = 8, kKcStreaming = 32;
// In-place B beyond decode: a middle depth, whose B sliver (kc x nr) stays in L1 while every
// row tile of the block meets it, and its row streams from DRAM are few enough
// (docs/MODEL.md M10).
constexpr int64_t kKcInPlace = 64;
// In-place B read ahead through the tile's depth steps (reads_ahead_in_tile): the deepest block
// whose rows still come at the full rate (docs/MODEL.md F29), in column blocks narrow enough that
// the next block waits in half of L2 (a wide B at full width would need a shallow block).
constexpr int64_t kKcReadAhead = 128;
// Decode shapes: at most this many rows of C (the in-place B plans above, split-K below).
constexpr int64_t kDecodeRows = 8;
// Packed B for at most this many rows of C: their kernels' time is short beside the pack's,
// so the pack's runs decide (a shallower block over wider columns).
constexpr int64_t kPackedDecodeRows = 16;
// Transposed plans (Plan::transpose_c): for C of at most kTransposeCMaxN columns
// (candidates.hpp) and at least this many rows (a vector's worth).
constexpr int64_t kTransposeCMinM = 16;

// Whether a plan may prefetch in-place B's next depth block at all: B read in place, over
// several depth blocks, by kernels whose executor prefetches (the planner's rule below and the
// plan check share it).
bool may_prefetch_b(const ShapeKey& key, const TypeConfig& cfg, const Plan& p) {
  return cfg.prefetch_b && !p.pack_b && p.kc < key.k && key.b_panel_nr == 0;
}

// Whether the executor prefetches the next depth block of B read in place (Plan::prefetch_b):
// where B starts in DRAM (cold operands, or a core's B beyond the L3 a hot loop keeps,
// HardwareProfile::l3_warm_bytes) and the blocks are several. A core of few rows over long B
// rows is the exception: its tile issues B's loads as fast as the core can, the prefetchers
// follow the row streams, and the prefetch instructions only compete with them. How many rows
// and how long is the host's (HardwareProfile::dram_self_streaming_rows and _row_bytes: two
// rows over 16 KiB on Zen 4, whose prefetches win from three rows on, M11; six rows over 4 KiB
// on Zen 3, M24, M25).
bool prefetches_b(const ShapeKey& key, const HardwareProfile& hw, const TypeConfig& cfg,
                  const Plan& p, int64_t m_t, int64_t n_t) {
  if (!may_prefetch_b(key, cfg, p)) return false;
  const int64_t row_bytes = int64_t{cfg.in_bytes} * n_t;
  if (m_t <= hw.dram_self_streaming_rows && row_bytes >= hw.dram_self_streaming_row_bytes)
    return false;
  return key.cold || row_bytes * key.k > hw.l3_warm_bytes;
}

// How packed A blocks are packed: as 32-bit words by the path's fp32 packer where the key
// allows it (a group type, A row-major with rows on 4-byte boundaries; see APacking), else by
// the type's group packer.
APacking a_packing_for(const ShapeKey& key, const TypeConfig& cfg) {
  const bool words = cfg.group > 1 && key.a_row_unit && key.a_k_unit && key.a_ld_log2 >= 2;
  return words ? APacking::Words : APacking::Elements;
}

// The in-place tile of its own (low precision): one block of all the core's rows and columns,
// depths of 8 to 256 rows (the model's DRAM stream term decides), one core or N split.
void add_direct_b(const ShapeKey& key, const ShapeClass& cls, const TypeConfig& cfg,
                  std::vector<Plan>& out) {
  const TileShape t = cfg.direct_b;
  if (!t.exists() || !key.b_row_unit || key.m > cfg.direct_b_max_m) return;
  std::vector<std::pair<int, int>> grids{{1, 1}};
  if (cls.parallel != ParallelClass::Serial && key.threads > 1 &&
      key.n >= static_cast<int64_t>(key.threads) * t.nr)
    grids.emplace_back(1, key.threads);  // split N: each core streams its own columns
  for (const int64_t kc0 : {8, 16, 32, 64, 256}) {
    const int64_t kc = std::min<int64_t>(kc0, key.k);
    for (const auto& [pm, pn] : grids) {
      Plan p;
      p.isa = cfg.isa;
      p.mr = t.mr;
      p.nr = t.nr;
      p.pack_a = true;
      p.pack_b = false;
      p.a_packing = a_packing_for(key, cfg);
      p.kc = std::max<int64_t>(1, kc);
      p.mc = std::max<int64_t>(1, key.m);
      p.nc = std::max<int64_t>(1, ceil_div(ceil_div(key.n, int64_t{t.nr}), int64_t{pn}) * t.nr);
      p.pm = pm, p.pn = pn, p.pk = 1;
      p.cls = cls;
      out.push_back(p);
    }
    if (kc == key.k) break;
  }
}

// The register-tile plans of `key` (with `transposed`, the key of C^T for Plan::transpose_c:
// only tiles that store transposed, one depth slice, masked tails, no C prefetching).
void add_tile_plans(const ShapeKey& key, const ShapeClass& cls, const HardwareProfile& hw,
                    const TypeConfig& cfg, bool transposed, std::vector<Plan>& out) {
  const bool small = cls.capacity == CapacityClass::Registers || cls.capacity == CapacityClass::L1;
  const bool a_must_pack = !cfg.in_place_a;
  // Prepacked B (ShapeKey::b_panel_nr) is never packed again: its panels are read in place,
  // like a per-call packer's panels, over depth blocks of any depth.
  const bool panels = key.b_panel_nr != 0;
  const bool b_must_pack = !panels && (!cfg.in_place_b || !key.b_row_unit);
  const int threads = cls.parallel == ParallelClass::Serial ? 1 : key.threads;
  // Split-K where C has few tiles per core, and for decode shapes (m <= 8) at any N: there the
  // call streams B, and a core reading whole rows of half the depth keeps each row one
  // prefetch stream where a core reading half of every row restarts one per row
  // (docs/MODEL.md, "Memory, exposed"); the model weighs it against the reduction.
  const bool split_k = cfg.split_k && !transposed &&
                       (cls.parallel == ParallelClass::FewTiles ||
                        (cls.parallel == ParallelClass::ManyTiles && key.m <= kDecodeRows));
  const int64_t pw = 4 / cfg.group;  // packed bytes per k value

  for (int ti = 0; ti < cfg.tile_count; ++ti) {
    const int mr = cfg.tile(ti).mr, nr = cfg.tile(ti).nr;
    // Transposed: a tile whose rows hold all of C's columns (key.m here), so that a densely
    // stored C gets the store's run of rows; a C split over row tiles of C^T is stored row by
    // row, slower than the plain plan (docs/MODEL.md M12).
    if (transposed && (!cfg.tile(ti).transposed_c || mr < key.m)) continue;
    // Prepacked B: the tiles of the panels' width, which read them in place.
    if (panels && nr != key.b_panel_nr) continue;
    // A matrix-engine tile packs A its own way and B too, or reads prepacked panels (padded
    // to its depth blocks: core/lowp_problem.hpp) at depths of whole blocks; never C^T.
    const bool engine = cfg.tile(ti).engine;
    const int64_t engine_unit = cfg.depth_unit(cfg.tile(ti));
    if (engine && transposed) continue;
    // A narrow tile (fewer lanes than the path's) is for a C no wider than itself: over more
    // column tiles it re-reads A once per tile, and the wide tiles' masked last vector wastes
    // less than that (docs/MODEL.md M13).
    // (Panels of a narrow tile's width have no other tile to read them.)
    if (cfg.lanes_of(cfg.tile(ti)) < cfg.lanes && key.n > nr && !panels) continue;
    const std::vector<CoreGrid> grids = core_grids(threads, key.m, key.n, key.k, mr, nr, split_k);

    // kc: long enough to amortise loading and storing the C tile (its cost per depth step
    // falls as 1/kc), short enough that the A block and a B sliver stay in L2. The kernels
    // stream both slivers from L2 at full speed, so L1 does not bound kc. The same packed
    // bytes hold `group` times more depth for the narrow types.
    const int64_t kc_max =
        std::max<int64_t>(64, round_down_min1(hw.l2_bytes / (pw * (2 * mr + nr) * 8), 64));
    const int64_t kcs[2] = {std::min<int64_t>(256 * cfg.group, kc_max),
                            std::min<int64_t>(512 * cfg.group, kc_max)};

    for (int pack_a = 0; pack_a < 2; ++pack_a) {
      for (int pack_b = 0; pack_b < 2; ++pack_b) {
        if ((!pack_a && a_must_pack) || (!pack_b && b_must_pack)) continue;
        if (pack_b && panels) continue;
        // Small problems: packing cannot amortise; offer it only where it is required (also
        // for a row-major A under the only tile of prepacked panels' width, when that tile
        // is too tall to read it in place, below).
        const bool a_required = a_must_pack || (panels && key.a_row_unit && mr > 8);
        if (small && ((pack_a && !a_required) || (pack_b && !b_must_pack))) continue;
        // In-place row-major A needs one address register per row; past 8 rows the kernel
        // spills them inside its depth loop.
        if (!pack_a && key.a_row_unit && mr > 8) continue;
        std::array<int64_t, 5> opts{};
        std::size_t n_opts = 0;
        if (engine) {
          // Whole depth blocks of the engine (prepacked panels hold nothing between them);
          // besides the vector tiles' depths, the deepest whose B sliver (kc x nr) stays in L1
          // while the row tiles meet it.
          const int64_t kc_l1 = hw.l1d_bytes / 2 / (pw * nr);
          opts = {round_down_min1(kc_l1, engine_unit), round_down_min1(kcs[0], engine_unit),
                  round_down_min1(kcs[1], engine_unit)};
          n_opts = 3;
        } else if (pack_b) {
          // Decode rows: also half the depth over twice the columns (nc follows kc below), so
          // the pack out of memory reads runs twice as long (docs/MODEL.md M30).
          opts = {kcs[0], kcs[1], kcs[0] / 2}, n_opts = key.m <= kPackedDecodeRows ? 3 : 2;
        } else if (panels) {
          // Contiguous panels: no row streams to keep short; the whole depth makes each
          // panel one run (from DRAM every run restarts the prefetchers). Plus the deepest
          // block at which all the rows and two runs fit in L2 (one A block below), where the
          // whole depth does not.
          const int64_t kc_fit = round_down_min1(
              hw.l2_bytes / (pw * (round_up(key.m, int64_t{mr}) + 2 * nr)), 64 * cfg.group);
          opts = {kKcInPlace, kcs[0], kcs[1], key.k, kc_fit}, n_opts = 4;
          if (kc_fit > kcs[1] && kc_fit < key.k) n_opts = 5;
        } else if (key.m <= kDecodeRows) {
          opts = {kKcDecode, kKcStreaming, kcs[0], kKcReadAhead}, n_opts = cfg.prefetch_b ? 4 : 3;
        } else {
          opts = {kKcStreaming, kKcInPlace, kcs[0], kKcReadAhead}, n_opts = cfg.prefetch_b ? 4 : 3;
        }
        std::array<int64_t, 5> used{};
        std::size_t n_used = 0;
        for (std::size_t kci = 0; kci < n_opts; ++kci) {
          int64_t kc = opts[kci];
          if (key.k <= kc + kc / 4) kc = key.k;  // one depth block; avoid a thin remainder
          const auto used_end = used.begin() + static_cast<std::ptrdiff_t>(n_used);
          if (std::find(used.begin(), used_end, kc) != used_end) continue;  // same as before
          used[n_used++] = kc;
          for (const CoreGrid& g : grids) {
            // Prepacked weights split over M would have every core stream all of them: with
            // columns enough for every core, split N or K (docs/MODEL.md M14).
            if (panels && g.pm > 1 && key.n >= int64_t{threads} * nr) continue;
            const int64_t m_t = core_share(key.m, mr, g.pm);
            const int64_t n_t = core_share(key.n, nr, g.pn);
            Plan p;
            p.isa = cfg.isa;
            p.tile = ti;
            p.mr = mr;
            p.nr = nr;
            p.pack_a = pack_a != 0;
            p.pack_b = pack_b != 0;
            if (p.pack_a && !engine) p.a_packing = a_packing_for(key, cfg);
            p.kc = std::max<int64_t>(1, kc);
            // mc: the packed A block (mc x kc) and the B sliver it meets (kc x nr) share L2
            // with C lines and the next sliver: both in a third of L2 (docs/MODEL.md,
            // "Blocking"). nc: the packed B panel in half of this core's L3 share.
            const int64_t a_room = hw.l2_bytes / 3 - pw * p.kc * nr;
            p.mc =
                p.pack_a
                    ? std::min(m_t, round_down_min1(std::max<int64_t>(0, a_room) / (pw * p.kc), mr))
                    : m_t;
            // Prepacked panels: the core's columns in one block, or (one plan more) in blocks
            // of a packed B's width, which stay in L3 while every A block meets them.
            const int64_t nc_l3 = std::min(n_t, round_down_min1(hw.l3_bytes / (2 * pw * p.kc), nr));
            p.nc = p.pack_b ? nc_l3 : n_t;
            // The decode rows' shallower block: the core's columns in even blocks of at most
            // the L3 share, whole tiles each (4096 columns in one block of 4104, not 4080 and
            // a 16-column block of 64-byte runs).
            const bool decode_block = pack_b && !engine && !panels && kci == 2;
            if (decode_block) {
              const int64_t share = std::max<int64_t>(nr, hw.l3_bytes / (2 * pw * p.kc));
              p.nc = round_up(ceil_div(n_t, ceil_div(n_t, share)), int64_t{nr});
            }
            p.mc = std::max<int64_t>(1, p.mc);
            p.nc = std::max<int64_t>(1, p.nc);
            p.pm = g.pm, p.pn = g.pn, p.pk = g.pk;
            p.cls = cls;
            p.tail = TailStrategy::Masked;
            p.prefetch_b = prefetches_b(key, hw, cfg, p, m_t, n_t);
            p.transpose_c = transposed;
            out.push_back(p);
            // In-place B read ahead through the tile: the same depth over column blocks whose
            // next block fits half of L2, where the core's whole width would not.
            if (p.prefetch_b && p.kc >= kKcStreaming &&
                reads_ahead_in_tile(p.kc, int64_t{cfg.in_bytes} * nr)) {
              const int64_t nc_ahead =
                  round_down_min1(hw.l2_bytes / 2 / (int64_t{cfg.in_bytes} * p.kc), nr);
              if (nc_ahead < n_t) {
                // Blocks of even widths (4096 columns at most 4080 wide: 2 x 2048, not
                // 4080 + 16), whole tiles each.
                int64_t blocks = ceil_div(n_t, nc_ahead), nc = 0;
                while ((nc = round_up(ceil_div(n_t, blocks), int64_t{nr})) > nc_ahead) ++blocks;
                Plan q = p;
                q.nc = nc;
                out.push_back(q);
              }
            }
            if (panels && nc_l3 < n_t && key.m > p.mc) {
              Plan q = p;
              q.nc = nc_l3;
              out.push_back(q);
            }
            // Prepacked panels over a deep block with a few row tiles more than the A block's
            // third of L2 holds: all the core's rows in one block when they and two of the
            // panels' runs fit in L2, so each run read from memory is met by every row tile
            // while it is in L2; split as mc allows, a short second block re-reads the runs
            // from L3 (docs/MODEL.md M15).
            if (panels && p.pack_a && m_t > p.mc &&
                pw * (round_up(m_t, int64_t{mr}) + 2 * nr) * p.kc <= hw.l2_bytes) {
              Plan q = p;
              q.mc = m_t;
              out.push_back(q);
            }
            if (transposed) continue;
            // One shallow depth block: the same plan prefetching C (Plan::prefetch_c). Deeper
            // tiles ask for their C lines themselves.
            static_assert(kPrefetchCSteps == kernels::kWriteAheadMinSteps);
            if (ceil_div(key.k, int64_t{cfg.group}) <= kPrefetchCSteps && p.kc >= key.k) {
              Plan q = p;
              q.prefetch_c = true;
              out.push_back(q);
            }
            const bool has_tail = key.m % mr != 0 || key.n % nr != 0;
            if (cfg.padded_tail && p.pack_a && p.pack_b && has_tail) {
              p.tail = TailStrategy::Padded;
              out.push_back(p);
            }
          }
        }
      }
    }
  }
}

}  // namespace

void add_blocked_candidates(const ShapeKey& key, const ShapeClass& cls, const HardwareProfile& hw,
                            const TypeConfig& cfg, std::vector<Plan>& out) {
  add_tile_plans(key, cls, hw, cfg, false, out);
  if (key.b_panel_nr != 0) return;  // prepacked B: the register tiles of its width only
  add_direct_b(key, cls, cfg, out);
  // A C of a few columns and more rows than a vector holds: the transposed problem, whose
  // vectors run along C's rows (Plan::transpose_c).
  if (key.n <= kTransposeCMaxN && key.m > key.n && key.m >= kTransposeCMinM)
    add_tile_plans(transposed_key(key), cls, hw, cfg, true, out);
}

std::string check_blocked_plan(const ShapeKey& given, const Plan& p, const TypeConfig& cfg) {
  if (p.transpose_c) {
    // Only a C of a few columns (what the candidates make, and what a SwiGlu post-op's
    // deferral assumes: post_op_call.cpp).
    if (given.n > kTransposeCMaxN) return "C stored transposed for a C of more than 15 columns";
    if (p.tile < 0 || p.tile >= cfg.tile_count || !cfg.tile(p.tile).transposed_c)
      return "C stored transposed by a tile without transposed-store kernels";
    if (p.pk != 1) return "split-K in a plan that stores C transposed";
    if (p.tail != TailStrategy::Masked) return "padded tail in a plan that stores C transposed";
    if (p.prefetch_c) return "C prefetching in a plan that stores C transposed";
  }
  // A transposed plan describes the problem C^T = op(B)^T op(A)^T.
  const ShapeKey key = p.transpose_c ? transposed_key(given) : given;
  if (!p.pack_a && !cfg.in_place_a) return "A read in place by kernels that need it packed";
  // Column blocks of whole register tiles (or the whole of C): prepacked panels are addressed
  // panel by panel, and a fused SwiGlu needs its pairs in one block.
  if (p.nc % p.nr != 0 && p.nc < key.n) return "column block not a whole number of tiles";
  if (!p.pack_b && !key.b_row_unit) return "B read in place but its rows are not contiguous";
  if (key.b_panel_nr != 0 && (p.pack_b || p.nr != key.b_panel_nr || p.transpose_c))
    return "prepacked B not read in place by tiles of its panels' width";
  if (!p.pack_b && !cfg.in_place_b && key.b_panel_nr == 0) {
    if (!cfg.direct_b.exists()) return "B read in place by a path without in-place kernels";
    if (p.tile != 0 || p.mr != cfg.direct_b.mr || p.nr != cfg.direct_b.nr)
      return "mr x nr does not match the in-place tile";
  } else {
    if (p.tile < 0 || p.tile >= cfg.tile_count)
      return "tile index " + std::to_string(p.tile) + " out of range for " + to_string(cfg.dtype) +
             " on " + to_string(cfg.isa);
    const TileShape& t = cfg.tile(p.tile);
    if (p.mr != t.mr || p.nr != t.nr)
      return "mr x nr " + std::to_string(p.mr) + "x" + std::to_string(p.nr) +
             " does not match tile " + std::to_string(p.tile) + " (" + std::to_string(t.mr) + "x" +
             std::to_string(t.nr) + ")";
  }
  if (p.a_packing == APacking::Words && (!p.pack_a || a_packing_for(key, cfg) != APacking::Words))
    return "A packed as words where A is not packed or its rows are not groups of words";
  if (!p.is_dot() && p.tile >= 0 && p.tile < cfg.tile_count && cfg.tile(p.tile).engine) {
    if (!p.pack_a || p.a_packing != APacking::Elements || (!p.pack_b && key.b_panel_nr == 0))
      return "a matrix-engine tile without both operands packed by its own packers";
    if (p.kc < key.k && p.kc % cfg.depth_unit(cfg.tile(p.tile)) != 0)
      return "a matrix-engine tile over depth blocks that are not whole blocks of its own";
  }
  if (p.pk != 1 && !cfg.split_k) return "split-K on a path whose kernels cannot reduce partials";
  if (p.tail == TailStrategy::Padded && !cfg.padded_tail) return "padded tail on a path without it";
  if (p.tail == TailStrategy::Padded && !(p.pack_a && p.pack_b))
    return "padded tail without packing both operands";
  if (p.prefetch_c && (p.kc < key.k || ceil_div(key.k, int64_t{cfg.group}) > kPrefetchCSteps))
    return "C prefetching in a plan that is not one shallow depth block";
  if (p.prefetch_b && !may_prefetch_b(key, cfg, p))
    return "B prefetching in a plan that does not read B in place over several depth blocks";
  return "";
}

}  // namespace adaptcore
