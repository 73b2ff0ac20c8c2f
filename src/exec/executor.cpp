#include "exec/executor.hpp"
#include "core/int_math.hpp"

#include <algorithm>
#include <cstring>

#include "exec/workspace.hpp"

namespace adaptcore {
namespace {

using kernels::AMode;
using kernels::UKernelArgs;


// Half-open range of part `idx` of `parts` when `total` is split in whole units of `unit`.
void split(int64_t total, int64_t unit, int parts, int idx, int64_t& begin, int64_t& end) {
  const int64_t units = ceil_div(total, unit);
  const int64_t per = ceil_div(units, parts);
  begin = std::min(total, idx * per * unit);
  end = std::min(total, (idx + 1) * per * unit);
}

// One core's block of C: rows [m0, m1), cols [n0, n1), depth [k0, k1).
struct Block {
  int64_t m0, m1, n0, n1, k0, k1;
};

struct Scratch {
  float* pack_a;  // ceil(mc / mr) * mr * kc floats
  float* pack_b;  // ceil(nc / nr) * nr * kc floats
};

// The cache-blocked loop nest of one core (BLIS order): jc -> pc -> [pack B] -> ic ->
// [pack A] -> jr -> ir -> micro-kernel. Writes C = alpha * A B + beta * C for its block.
void run_block(const Plan& p, const GemmProblem& g, const kernels::IsaKernels& ks,
               const Block& blk, float* c, int64_t ldc, float alpha, float beta,
               const Scratch& s) {
  const auto& tile = ks.tiles[static_cast<std::size_t>(p.tile)];
  const int mr = p.mr, nr = p.nr;
  const AMode direct_mode = g.a_row_unit() ? AMode::RowUnit : AMode::ColUnit;
  alignas(64) float edge[kernels::kMaxMr * 64];  // scratch tile for the padded tail strategy

  for (int64_t jc = blk.n0; jc < blk.n1; jc += p.nc) {
    const int64_t nb = std::min(p.nc, blk.n1 - jc);
    for (int64_t pc = blk.k0; pc < blk.k1; pc += p.kc) {
      const int64_t kb = std::min(p.kc, blk.k1 - pc);
      const float beta_eff = pc == blk.k0 ? beta : 1.0f;
      const float* b_base = g.b + pc * g.b_rs + jc * g.b_cs;
      if (p.pack_b) ks.pack_b(kb, nb, b_base, g.b_rs, g.b_cs, nr, s.pack_b);

      for (int64_t ic = blk.m0; ic < blk.m1; ic += p.mc) {
        const int64_t mb = std::min(p.mc, blk.m1 - ic);
        const float* a_base = g.a + ic * g.a_rs + pc * g.a_cs;
        if (p.pack_a) ks.pack_a(mb, kb, a_base, g.a_rs, g.a_cs, mr, s.pack_a);

        UKernelArgs args{};
        args.k = kb;
        args.alpha = alpha;
        // B read in place: ask for this panel's rows of the next depth block now, a whole
        // block traversal (every other panel) before the kernel needs them. B rows from DRAM
        // are one prefetch stream each and the hardware follows only a few, so short blocks
        // over long rows otherwise wait on every miss.
        const int64_t kb_next = ic == blk.m0 && !p.pack_b && g.b_cs == 1
                                    ? std::min(p.kc, blk.k1 - pc - kb) : 0;
        for (int64_t jr = 0; jr < nb; jr += nr) {
          const int nv = static_cast<int>(std::min<int64_t>(nr, nb - jr));
          args.b = p.pack_b ? s.pack_b + jr * kb : b_base + jr;
          args.ldb = p.pack_b ? nr : g.b_rs;
          if (kb_next > 0) {
            const float* next = b_base + kb * g.b_rs + jr;
            for (int64_t r = 0; r < kb_next; ++r)
              for (int64_t col = 0; col < nv; col += 16)
                __builtin_prefetch(next + r * g.b_rs + col, 0, 2);
          }
          for (int64_t ir = 0; ir < mb; ir += mr) {
            const int mv = static_cast<int>(std::min<int64_t>(mr, mb - ir));
            AMode mode;
            if (p.pack_a) {
              args.a = s.pack_a + ir * kb;
              args.a_stride = mr;
              mode = AMode::ColUnit;
            } else {
              args.a = a_base + ir * g.a_rs;
              args.a_stride = direct_mode == AMode::ColUnit ? g.a_cs : g.a_rs;
              mode = direct_mode;
            }
            float* cp = c + (ic + ir - blk.m0) * ldc + (jc + jr - blk.n0);
            if (p.tail == TailStrategy::Padded && (mv < mr || nv < nr)) {
              // Full tile on the zero-padded panels into scratch, then merge the valid part.
              args.c = edge;
              args.ldc = nr;
              args.beta = 0.0f;
              args.n = nr;
              tile.get(mode, mr)(args);
              for (int i = 0; i < mv; ++i) {
                float* row = cp + i * ldc;
                const float* e = edge + i * nr;
                if (beta_eff == 0.0f) {
                  for (int j = 0; j < nv; ++j) row[j] = e[j];
                } else {
                  for (int j = 0; j < nv; ++j) row[j] = e[j] + beta_eff * row[j];
                }
              }
            } else {
              args.c = cp;
              args.ldc = ldc;
              args.beta = beta_eff;
              args.n = nv;
              tile.get(mode, mv)(args);
            }
          }
        }
      }
    }
  }
}

// Dot-product plans: column groups outer (B read once, in order), row groups inner (A stays
// cached), each tile one kernel call over the whole depth.
void run_dot_block(const GemmProblem& g, const kernels::IsaKernels& ks, const Block& blk) {
  kernels::DotArgs args{};
  args.k = g.k;
  args.lda = g.a_rs;
  args.ldb = g.b_cs;
  args.ldc = g.ldc;
  args.alpha = g.alpha;
  args.beta = g.beta;
  for (int64_t j = blk.n0; j < blk.n1; j += kernels::kDotNr) {
    const int nv = static_cast<int>(std::min<int64_t>(kernels::kDotNr, blk.n1 - j));
    args.b = g.b + j * g.b_cs;
    for (int64_t i = blk.m0; i < blk.m1; i += kernels::kDotMr) {
      const int mv = static_cast<int>(std::min<int64_t>(kernels::kDotMr, blk.m1 - i));
      args.a = g.a + i * g.a_rs;
      args.c = g.c + i * g.ldc + j;
      ks.dot->get(mv, nv)(args);
    }
  }
}

// Whether the plan's tile is one of this table's, with its shape: the plan may come from a
// cache or a file filled for another table (a profile change racing a call), and a tile run
// with another tile's mr x nr leaves part of C unwritten. Cheap: a few compares per call.
bool plan_matches(const Plan& p, const kernels::IsaKernels& ks) {
  if (p.pm < 1 || p.pn < 1 || p.pk < 1) return false;
  if (p.is_dot()) return ks.dot != nullptr && p.mr == kernels::kDotMr && p.nr == kernels::kDotNr;
  if (p.tile < 0 || static_cast<std::size_t>(p.tile) >= ks.tiles.size()) return false;
  const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(p.tile)];
  return p.mr == t.mr && p.nr == t.nr && p.mc >= 1 && p.nc >= 1 && p.kc >= 1;
}

}  // namespace

bool execute_single_tile(const Plan& p, const GemmProblem& g,
                         const kernels::IsaKernels& ks) noexcept {
  if (p.threads() != 1 || !plan_matches(p, ks)) return false;  // execute() reports a mismatch
  if (p.is_dot()) {  // one thread: the dot loop needs neither the pool nor a workspace
    run_dot_block(g, ks, Block{0, g.m, 0, g.n, 0, g.k});
    return true;
  }
  if (p.pack_a || p.pack_b || g.m > p.mr || g.n > p.nr || g.k > p.kc) return false;
  const AMode mode = g.a_row_unit() ? AMode::RowUnit : AMode::ColUnit;
  UKernelArgs args{};
  args.k = g.k;
  args.a = g.a;
  args.a_stride = mode == AMode::ColUnit ? g.a_cs : g.a_rs;
  args.b = g.b;
  args.ldb = g.b_rs;
  args.c = g.c;
  args.ldc = g.ldc;
  args.alpha = g.alpha;
  args.beta = g.beta;
  args.n = static_cast<int>(g.n);
  ks.tiles[static_cast<std::size_t>(p.tile)].get(mode, static_cast<int>(g.m))(args);
  return true;
}

void scale_c(const GemmProblem& g) noexcept {
  for (int64_t i = 0; i < g.m; ++i) {
    float* row = g.c + i * g.ldc;
    if (g.beta == 0.0f) {
      std::memset(row, 0, static_cast<std::size_t>(g.n) * sizeof(float));
    } else if (g.beta != 1.0f) {
      for (int64_t j = 0; j < g.n; ++j) row[j] *= g.beta;
    }
  }
}

Status execute(const Plan& p, const GemmProblem& g, const kernels::IsaKernels& ks,
               ThreadPool& pool) noexcept {
  if (!plan_matches(p, ks)) return Status::InternalError;
  const int threads = p.threads();
  if (p.is_dot()) {
    pool.run(threads, [&](int tid) {
      Block blk{};
      split(g.m, p.mr, p.pm, tid / p.pn, blk.m0, blk.m1);
      split(g.n, p.nr, p.pn, tid % p.pn, blk.n0, blk.n1);
      if (blk.m0 < blk.m1 && blk.n0 < blk.n1) run_dot_block(g, ks, blk);
    });
    return Status::Ok;
  }
  const int64_t kc = std::min(p.kc, g.k);
  const std::size_t pa = p.pack_a ? static_cast<std::size_t>(round_up(p.mc, p.mr) * kc) : 0;
  const std::size_t pb = p.pack_b ? static_cast<std::size_t>(round_up(p.nc, p.nr) * kc) : 0;
  // Split-K partials: depth slices 1..pk-1 each write a full m x n buffer (slice 0 goes to C).
  const std::size_t partial = static_cast<std::size_t>(g.m * g.n);
  const std::size_t per_thread = (pa + pb + 15) / 16 * 16;
  const std::size_t total =
      per_thread * static_cast<std::size_t>(threads) + partial * static_cast<std::size_t>(p.pk - 1);
  float* ws = total > 0 ? Workspace::local().reserve(total) : nullptr;
  if (total > 0 && ws == nullptr) return Status::OutOfMemory;
  float* partials = ws + per_thread * static_cast<std::size_t>(threads);

  auto task = [&](int tid) {
    const int tk = tid % p.pk;
    const int tn = (tid / p.pk) % p.pn;
    const int tm = tid / (p.pk * p.pn);
    Block blk{};
    split(g.m, p.mr, p.pm, tm, blk.m0, blk.m1);
    split(g.n, p.nr, p.pn, tn, blk.n0, blk.n1);
    split(g.k, 1, p.pk, tk, blk.k0, blk.k1);
    if (blk.m0 >= blk.m1 || blk.n0 >= blk.n1) return;
    Scratch s{ws + per_thread * static_cast<std::size_t>(tid),
              ws + per_thread * static_cast<std::size_t>(tid) + pa};
    if (tk == 0) {
      if (blk.k0 >= blk.k1) return;  // cannot happen: slice 0 is never empty when k > 0
      run_block(p, g, ks, blk, g.c + blk.m0 * g.ldc + blk.n0, g.ldc, g.alpha, g.beta, s);
    } else {
      float* part = partials + static_cast<std::size_t>(tk - 1) * partial;
      float* dst = part + blk.m0 * g.n + blk.n0;
      if (blk.k0 >= blk.k1) {  // empty depth slice contributes zeros
        for (int64_t i = blk.m0; i < blk.m1; ++i)
          std::memset(part + i * g.n + blk.n0, 0,
                      static_cast<std::size_t>(blk.n1 - blk.n0) * sizeof(float));
        return;
      }
      run_block(p, g, ks, blk, dst, g.n, g.alpha, 0.0f, s);
    }
  };
  pool.run(threads, task);

  if (p.pk > 1) {
    // Deterministic reduction: C += P1 + P2 + ... in slice order, rows split over threads.
    auto reduce = [&](int tid) {
      int64_t r0 = 0, r1 = 0;
      split(g.m, 1, threads, tid, r0, r1);
      for (int64_t i = r0; i < r1; ++i) {
        float* row = g.c + i * g.ldc;
        for (int s = 0; s < p.pk - 1; ++s) {
          const float* src = partials + static_cast<std::size_t>(s) * partial + i * g.n;
          for (int64_t j = 0; j < g.n; ++j) row[j] += src[j];
        }
      }
    };
    pool.run(threads, reduce);
  }
  return Status::Ok;
}

}  // namespace adaptcore
