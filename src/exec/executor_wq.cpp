#include "exec/executor_wq.hpp"

#include <algorithm>
#include <cstring>

#include "adaptcore/adaptcore.hpp"
#include "exec/workspace.hpp"

namespace adaptcore {
namespace {

std::size_t round64(std::size_t bytes) { return (bytes + 63) / 64 * 64; }

// Where the split activations of the call live (one buffer for all threads: every thread
// reads every row tile of its grid row).
struct SplitBuffer {
  std::int8_t* parts;
  float* scale;
  std::int32_t* comp;
  float* row_factor;
  float* staging;  // one row of k fp32 values per thread (bf16 or strided A)
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

}  // namespace

Status execute(const Plan& plan, const WqProblem& prob, const kernels::WqKernels& ks,
                  ThreadPool& pool) noexcept {
  if (prob.m == 0) return Status::Ok;
  // The plan must be for this table: its row tile sizes the split buffer the kernels read.
  if (plan.mr != ks.mr(prob.parts) || plan.pm < 1 || plan.pn < 1 || plan.mc < 1)
    return Status::InternalError;
  const detail::QuantizedWeightsImpl& w = *prob.w;
  const int mr = plan.mr;
  const int threads = std::max(1, plan.threads());
  const int64_t tiles = (prob.m + mr - 1) / mr;
  const auto groups = static_cast<std::size_t>(w.groups);
  SplitBuffer buf{};
  buf.mr = mr;
  buf.tile_parts_bytes = static_cast<std::size_t>(w.quads) * static_cast<std::size_t>(mr) *
                         static_cast<std::size_t>(prob.parts) * 4;
  buf.tile_meta = groups * static_cast<std::size_t>(mr);
  const auto ut = static_cast<std::size_t>(tiles);
  const std::size_t parts_bytes = round64(ut * buf.tile_parts_bytes);
  const std::size_t meta_bytes = round64(ut * buf.tile_meta * 4);
  const std::size_t rf_bytes = round64(ut * static_cast<std::size_t>(mr) * 4);
  const std::size_t staging_bytes = round64(static_cast<std::size_t>(w.k) * 4);
  const std::size_t total = parts_bytes + 2 * meta_bytes + rf_bytes +
                            staging_bytes * static_cast<std::size_t>(threads);
  auto* base = reinterpret_cast<std::uint8_t*>(Workspace::local().reserve(total / 4));
  if (base == nullptr) return Status::OutOfMemory;
  buf.parts = reinterpret_cast<std::int8_t*>(base);
  buf.scale = reinterpret_cast<float*>(base + parts_bytes);
  buf.comp = reinterpret_cast<std::int32_t*>(base + parts_bytes + meta_bytes);
  buf.row_factor = reinterpret_cast<float*>(base + parts_bytes + 2 * meta_bytes);
  buf.staging = reinterpret_cast<float*>(base + parts_bytes + 2 * meta_bytes + rf_bytes);
  auto staging = [&](int tid) {
    return buf.staging + static_cast<std::size_t>(tid) * staging_bytes / 4;
  };

  // The split: O(mk), spread over the threads by whole tiles when there is enough of it.
  const int64_t rows = tiles * mr;
  const int split_threads =
      (tiles >= threads && prob.m * w.k >= (int64_t{1} << 16)) ? threads : 1;
  if (split_threads == 1) {
    split_rows(prob, ks, buf, 0, rows, staging(0));
  } else {
    pool.run(split_threads, [&](int tid) {
      const int64_t t0 = tiles * tid / split_threads, t1 = tiles * (tid + 1) / split_threads;
      split_rows(prob, ks, buf, t0 * mr, t1 * mr, staging(tid));
    });
  }

  const bool int4 = w.int4();
  const int64_t qpg = w.act_group / 4;
  const int pm = plan.pm, pn = plan.pn;
  const int64_t block_tiles = std::max<int64_t>(1, plan.mc / mr);
  auto worker = [&](int tid) {
    const int tm = tid / pn, tn = tid % pn;
    const int64_t t0 = tiles * tm / pm, t1 = tiles * (tm + 1) / pm;
    const int64_t p0 = w.panels * tn / pn, p1 = w.panels * (tn + 1) / pn;
    kernels::WqArgs args{};
    args.quads = w.quads;
    args.quads_per_group = qpg;
    args.c_rs = prob.c_rs, args.c_cs = prob.c_cs;
    args.beta = prob.beta;
    for (int64_t tb = t0; tb < t1; tb += block_tiles) {
      const int64_t te = std::min(t1, tb + block_tiles);
      for (int64_t pnl = p0; pnl < p1; ++pnl) {
        args.w = w.panel(pnl);
        args.w_group_scale = w.group_scale ? w.group_scale.get() + pnl * w.groups * 32 : nullptr;
        args.w_col_scale = w.col_scale ? w.col_scale.get() + pnl * 32 : nullptr;
        args.n = static_cast<int>(std::min<int64_t>(32, w.n - pnl * 32));
        for (int64_t t = tb; t < te; ++t) {
          const int m = static_cast<int>(std::min<int64_t>(mr, prob.m - t * mr));
          args.a = buf.tile(t);
          args.c = prob.c + t * mr * prob.c_rs + pnl * 32 * prob.c_cs;
          ks.get(prob.parts, int4, m)(args);
        }
      }
    }
  };
  if (threads == 1)
    worker(0);
  else
    pool.run(threads, worker);
  return Status::Ok;
}

}  // namespace adaptcore
