#include "exec/executor_wq.hpp"

#include <algorithm>

#include "adaptcore/adaptcore.hpp"
#include "core/int_math.hpp"
#include "core/post_ops.hpp"
#include "exec/engine_scope.hpp"
#include "exec/grid_tasks.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore {
namespace {

// Where the split activations of the call live (one buffer for all threads: every thread
// reads every row tile of its grid row).
struct SplitBuffer {
  std::int8_t* parts;
  float* scale;
  std::int32_t* comp;
  float* row_factor;
  std::size_t tile_parts_bytes, tile_meta;  // per tile: parts bytes, groups x mr entries
  int mr;

  kernels::WqTileA tile(int64_t t) const noexcept {
    const auto ut = static_cast<std::size_t>(t);
    return {parts + ut * tile_parts_bytes, scale + ut * tile_meta, comp + ut * tile_meta,
            row_factor + ut * static_cast<std::size_t>(mr), mr};
  }
};

// Quantizes rows [r0, r1) of op(A) (r1 may reach into the last tile's padding, which is
// zeroed). staging holds k floats.
void split_rows(const WqProblem& p, const kernels::WqKernels& ks, const SplitBuffer& buf,
                int64_t r0, int64_t r1, float* staging) {
  const int64_t k = p.k();
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t t = r / buf.mr;
    const kernels::WqTileA tile = buf.tile(t);
    kernels::WqQuantizeArgs q;
    q.k = k;
    q.group = p.w->act_group;
    q.parts = p.parts;
    q.offset = p.w->offset();
    q.parts_out = const_cast<std::int8_t*>(tile.parts);
    q.scale_out = const_cast<float*>(tile.scale);
    q.comp_out = const_cast<std::int32_t*>(tile.comp);
    q.row_factor_out = const_cast<float*>(tile.row_factor);
    q.mr = buf.mr;
    q.row = static_cast<int>(r % buf.mr);
    q.tile_quads = ks.tile_quads;
    if (r >= p.m) {  // padding row of the last tile: zeros
      std::fill(staging, staging + k, 0.0f);
      q.x = staging;
    } else if (!p.a_bf16 && p.a_cs == 1) {
      q.x = static_cast<const float*>(p.a) + r * p.a_rs;
    } else {
      for (int64_t c = 0; c < k; ++c) {
        const int64_t at = r * p.a_rs + c * p.a_cs;
        staging[c] = p.a_bf16 ? bf16_to_float(static_cast<const std::uint16_t*>(p.a)[at])
                              : static_cast<const float*>(p.a)[at];
      }
      q.x = staging;
    }
    ks.quantize(q);
  }
}

// The kernels a plan runs: the table's own (Plan::tile 0) or the vector kernels beside a matrix
// engine's (1); null for another tile.
const kernels::WqKernels* kernels_of(const Plan& plan, const kernels::WqKernels& ks) {
  if (plan.tile == 0) return &ks;
  return plan.tile == 1 ? ks.below : nullptr;
}

// Whether the plan can run on these kernels: its row tile sizes the split buffer they read.
bool plan_matches(const Plan& plan, const WqProblem& prob, const kernels::WqKernels& ks) {
  return plan.kind == PlanKind::WeightQuantized && !plan.transpose_c &&
         plan.mr == ks.mr(prob.parts) && plan.nr == kWqNr && plan.pm >= 1 && plan.pn >= 1 &&
         plan.pk == 1 && plan.mc >= 1 && plan.kc >= prob.w->act_group &&
         plan.kc % prob.w->act_group == 0 && plan.quantize_threads >= 1 &&
         plan.quantize_threads <= plan.threads();
}

}  // namespace

Status execute(const Plan& plan, const WqProblem& prob, const kernels::WqKernels& table,
               ThreadPool& pool) noexcept {
  if (prob.m == 0) return Status::Ok;
  const kernels::WqKernels* chosen = kernels_of(plan, table);
  if (chosen == nullptr || !plan_matches(plan, prob, *chosen)) return Status::InternalError;
  const kernels::WqKernels& ks = *chosen;
  const detail::QuantizedWeightsImpl& w = *prob.w;
  const int mr = plan.mr;
  const int threads = plan.threads();
  const int64_t tiles = ceil_div(prob.m, int64_t{mr});
  SplitBuffer buf{};
  buf.mr = mr;
  buf.tile_parts_bytes = static_cast<std::size_t>(kernels::wq_tile_quads(w.k, ks.tile_quads)) *
                         static_cast<std::size_t>(mr) * static_cast<std::size_t>(prob.parts) * 4;
  buf.tile_meta = static_cast<std::size_t>(w.groups) * static_cast<std::size_t>(mr);
  const auto ut = static_cast<std::size_t>(tiles);
  ScratchLayout scratch;
  const std::size_t parts = scratch.shared(ut * buf.tile_parts_bytes);
  const std::size_t scale = scratch.shared(ut * buf.tile_meta * 4);
  const std::size_t comp = scratch.shared(ut * buf.tile_meta * 4);
  const std::size_t row_factor = scratch.shared(ut * static_cast<std::size_t>(mr) * 4);
  // One row of k fp32 values per task (bf16 or strided A).
  const std::size_t staging = scratch.per_task(static_cast<std::size_t>(w.k) * 4);
  // The row block's tiles' fp32 sums between depth blocks (WqArgs::partial).
  const int64_t block_tiles = std::max<int64_t>(1, plan.mc / mr);
  const std::size_t tile_sums = static_cast<std::size_t>(mr) * kWqNr;
  const std::size_t partial =
      scratch.per_task(static_cast<std::size_t>(std::min(block_tiles, tiles)) * tile_sums * 4);
  if (!scratch.reserve(threads)) return Status::OutOfMemory;
  buf.parts = reinterpret_cast<std::int8_t*>(scratch.shared_at(parts));
  buf.scale = reinterpret_cast<float*>(scratch.shared_at(scale));
  buf.comp = reinterpret_cast<std::int32_t*>(scratch.shared_at(comp));
  buf.row_factor = reinterpret_cast<float*>(scratch.shared_at(row_factor));
  auto staging_of = [&](int tid) { return reinterpret_cast<float*>(scratch.task(tid) + staging); };
  auto partial_of = [&](int tid) { return reinterpret_cast<float*>(scratch.task(tid) + partial); };

  // The split: O(mk), on the plan's quantizing threads, each a run of whole tiles.
  run_tasks(pool, plan.quantize_threads, [&](int tid) {
    const Range rows = split_range(tiles * mr, mr, plan.quantize_threads, tid);
    split_rows(prob, ks, buf, rows.begin, rows.end, staging_of(tid));
  });

  // The product: row tiles x weight panels of each task's cell, row blocks of mc rows outer
  // (a block's activations stay cached while the core's panels stream past), and within a
  // panel depth blocks of kc (Plan::kc, whole activation groups) over every tile of the block,
  // so that a deep panel's block and the next one's prefetch fit the L2 beside the
  // activations.
  const bool int4 = w.int4();
  // Panels are numbered from the call's first column (WqProblem::col0, a panel boundary).
  const int64_t first_panel = prob.col0 / kWqNr, n = prob.n();
  const int64_t group_quads = w.act_group / 4;
  const int64_t block_quads = std::min(w.quads, plan.kc / 4);
  const int64_t depth_blocks = ceil_div(w.quads, block_quads);
  const std::int64_t quad_bytes = int4 ? 64 : 128;
  const std::int64_t a_quad_bytes = static_cast<std::int64_t>(mr) * prob.parts * 4;
  // The post-ops of the level these kernels run with.
  const kernels::IsaKernels* post_isa = kernels::kernels_for(ks.isa);
  const kernels::PostOpsFn post_fn =
      prob.post != nullptr && !prob.post->empty() && post_isa != nullptr ? post_isa->post_ops
                                                                         : nullptr;
  run_tasks(pool, threads, [&](int tid) {
    const Block blk = grid_cell(plan, tid, prob.m, n, w.k, mr, kWqNr).block;
    if (blk.empty()) return;
    const EngineScope engine(ks.begin, ks.end);
    const int64_t t0 = blk.m0 / mr, t1 = ceil_div(blk.m1, int64_t{mr});
    const int64_t p0 = blk.n0 / kWqNr, p1 = ceil_div(blk.n1, kWqNr);
    float* const sums = partial_of(tid);
    kernels::WqArgs args{};
    args.quads_per_group = group_quads;
    args.c_rs = prob.c_rs, args.c_cs = prob.c_cs;
    args.beta = prob.beta;  // the output op's (exec/epilogue.hpp, "Weight-quantized GEMM")
    for (int64_t tb = t0; tb < t1; tb += block_tiles) {
      const int64_t te = std::min(t1, tb + block_tiles);
      const int64_t r0 = tb * mr, r1 = std::min(prob.m, te * mr);  // the block's rows
      const int64_t row_tiles = te - tb, block_rows = r1 - r0;
      for (int64_t pnl = p0; pnl < p1; ++pnl) {
        const int64_t wp = first_panel + pnl;  // the panel of the weights
        const std::uint8_t* const panel = w.panel(wp);
        args.w_col_scale = w.col_scale ? w.col_scale.get() + wp * 32 : nullptr;
        args.n = static_cast<int>(std::min<int64_t>(32, n - pnl * 32));
        for (int64_t d = 0; d < depth_blocks; ++d) {
          const int64_t q0 = d * block_quads, qn = std::min(block_quads, w.quads - q0);
          const int64_t g0 = q0 / group_quads, gn = ceil_div(qn, group_quads);
          const bool last = d + 1 == depth_blocks;
          args.quads = qn;
          args.w = panel + q0 * quad_bytes;
          args.w_group_scale =
              w.group_scale ? w.group_scale.get() + (wp * w.groups + g0) * 32 : nullptr;
          args.resume = d > 0;
          args.finish = last;
          // Plans that say so (Plan::prefetch_b, wq_planner.cpp: int8 panels, 3 rows a block
          // or more, two depth blocks and the block's activations within the L2): each row
          // tile brings its share of the next depth block (of this panel, or the next panel's
          // first) into L2 (WqArgs::w_prefetch), so the DRAM stream runs under every tile's
          // dot products instead of stalling the first (2 threads, 8 x 14336 x 4096 W8A16 from
          // memory: 2.81-2.93 ms without, 2.46-2.59 ms with; one thread, 3 and 4 rows:
          // 3.07-3.28 against 2.57-2.87 ms). One row is the stream alone, where the prefetches
          // only compete with the hardware prefetcher; int4 panels, half the bytes, are bound
          // by the dot products.
          const std::uint8_t* next = !last          ? args.w + qn * quad_bytes
                                     : pnl + 1 < p1 ? w.panel(wp + 1)
                                                    : nullptr;
          const int64_t next_quads = !last ? std::min(block_quads, w.quads - q0 - qn) : block_quads;
          const int per_group =
              plan.prefetch_b && block_rows >= 3 && next != nullptr && !int4
                  ? static_cast<int>(ceil_div(next_quads * quad_bytes / 64, row_tiles * gn))
                  : 0;
          for (int64_t t = tb; t < te; ++t) {
            args.w_prefetch = per_group > 0 ? next + (t - tb) * per_group * gn * 64 : nullptr;
            args.prefetch_lines = per_group;
            const int m = static_cast<int>(std::min<int64_t>(mr, prob.m - t * mr));
            kernels::WqTileA a = buf.tile(t);
            a.parts += q0 * a_quad_bytes;
            a.scale += g0 * mr;
            a.comp += g0 * mr;
            args.a = a;
            args.partial = sums + static_cast<std::size_t>(t - tb) * tile_sums;
            args.c = prob.c + t * mr * prob.c_rs + pnl * 32 * prob.c_cs;
            ks.get(prob.parts, int4, m)(args);
          }
        }
      }
      // The epilogue over the row block just finished (its rows x the core's columns, in L2
      // for decode-sized blocks).
      if (post_fn != nullptr) {
        if (!prob.post_transposed)
          post_fn(*prob.post, prob.c + r0 * prob.c_rs + blk.n0, prob.c_rs, r0, r1, blk.n0, blk.n1);
        else
          post_fn(*prob.post, prob.c + blk.n0 * prob.c_cs + r0, prob.c_cs, blk.n0, blk.n1, r0, r1);
      }
    }
  });
  return Status::Ok;
}

}  // namespace adaptcore
