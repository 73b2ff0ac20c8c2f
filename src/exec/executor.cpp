// The fp32 executor: the fp32 adapter of the macro-kernel (exec/macro_kernel.hpp), with the
// options only fp32 plans have: A read in place by the register tiles, the padded tail, and
// split-K with a deterministic reduction.
#include "exec/executor.hpp"

#include <algorithm>
#include <cstring>

#include "core/int_math.hpp"
#include "core/post_ops.hpp"
#include "exec/grid_tasks.hpp"
#include "exec/macro_kernel.hpp"

namespace adaptcore {
namespace {

using kernels::AMode;
using kernels::UKernelArgs;

// What both fp32 adapters share: the operands as bytes, where the kernels write, and an
// epilogue that is the kernels' store alone (alpha, beta), nothing after it.
struct F32Operands {
  static constexpr int64_t group = 1;
  static constexpr int64_t depth_block = 1;
  ByteMatrix a, b;
  CTarget target;

  F32Operands(const GemmProblem& g, CTarget c) noexcept
      : a{reinterpret_cast<const unsigned char*>(g.a), g.a_rs, g.a_cs, 4},
        b{reinterpret_cast<const unsigned char*>(g.b), g.b_rs, g.b_cs, 4, g.b_panel_nr, g.k, g.n},
        target(c) {}
  void prepare(const Block&) const noexcept {}
  CTarget begin_panel(const CBlock&) const noexcept { return target; }
  void finish(const CBlock&) const noexcept {}
  static constexpr bool has_post_ops() noexcept { return false; }
  void post_ops(int64_t, int64_t, int64_t, int64_t) const noexcept {}
};

// The fp32 adapter of blocked plans: fp32 pack functions and register tiles over fp32 C (or
// a split-K partial buffer), A or B read in place, the padded tail.
class F32Op : public F32Operands {
 public:
  // post: the fused epilogue applied to each finished tile (null: none, or a split-K slice
  // whose sums are not final), over the caller's normalised C at c_base, rows c_ld apart (also
  // for a transposed plan, whose loops run over C^T).
  F32Op(const Plan& p, const GemmProblem& g, const kernels::IsaKernels& ks, CTarget c,
        LinearStore store, const PostOpChain* post = nullptr, float* c_base = nullptr,
        int64_t c_ld = 0) noexcept
      : F32Operands(g, c),
        post_(post),
        c_base_(c_base),
        c_ld_(c_ld),
        ks_(ks),
        store_(store),
        mr_(p.mr),
        nr_(p.nr),
        pack_a_(p.pack_a),
        pack_b_(p.pack_b),
        padded_(p.tail == TailStrategy::Padded),
        transposed_(c.transposed),
        direct_mode_(g.a_row_unit() ? AMode::RowUnit : AMode::ColUnit),
        a_stride_(direct_mode_ == AMode::ColUnit ? g.a_cs : g.a_rs),
        tile_(ks.tiles[static_cast<std::size_t>(p.tile)]) {}

  bool has_post_ops() const noexcept { return post_ != nullptr; }
  // The fused epilogue of a finished tile: rows x cols at row i, column j of the loops' C (C^T
  // for a transposed plan, whose tile is C's cols x rows at (j, i)).
  void post_ops(int64_t i, int64_t j, int64_t rows, int64_t cols) const noexcept {
    if (transposed_)
      ks_.post_ops(*post_, c_base_ + j * c_ld_ + i, c_ld_, j, j + cols, i, i + rows);
    else
      ks_.post_ops(*post_, c_base_ + i * c_ld_ + j, c_ld_, i, i + rows, j, j + cols);
  }

  void pack_b(const unsigned char* src, int64_t kb, int64_t nb, unsigned char* out) const {
    ks_.pack_b(kb, nb, reinterpret_cast<const float*>(src), b.rs, b.cs, nr_,
               reinterpret_cast<float*>(out));
  }
  // Whole mr-row panels, and a last panel of fewer rows as narrow as its rows (args_of reads it
  // with that stride). Padded to mr, a 2-row tile's panel over a depth of 1408 was 79 KB, 7/8
  // zeros, read a line per step from L2 beside B (docs/EVIDENCE.md, E3). A padded tail runs the
  // full tile on the panel: mr wide.
  void pack_a(const unsigned char* src, int64_t mb, int64_t kb, int64_t, unsigned char* out) const {
    const int64_t whole = padded_ ? mb : mb / mr_ * mr_;
    const auto* a_src = reinterpret_cast<const float*>(src);
    auto* a_out = reinterpret_cast<float*>(out);
    if (whole > 0) ks_.pack_a(whole, kb, a_src, a.rs, a.cs, mr_, a_out);
    if (whole < mb)
      ks_.pack_a(mb - whole, kb, a_src + whole * a.rs, a.rs, a.cs, static_cast<int>(mb - whole),
                 a_out + whole * kb);
  }

  void tile(const TileCall& t) const {
    const UKernelArgs args = args_of(t, t.nv);
    if (padded_ && (t.mv < mr_ || t.nv < nr_))
      padded_tile(args, mode(), t.mv);
    else
      kernel(t.mv)(args);
  }

  // Whether sweep() may run: a padded tail goes through tile() and its scratch tile.
  bool can_sweep() const noexcept { return !padded_; }

  // Plan::prefetch_b: the register tiles ask for the next depth block's rows themselves
  // (UKernelArgs::b_next), where the tile is the kernel's own (a padded tail runs the full
  // tile on packed panels).
  bool tiles_read_ahead() const noexcept { return !padded_; }

  // The tiles of one row tile across nb columns (t.nv unused), B's column tiles b_step bytes
  // apart: the arguments made once, then the same kernel call per column tile with its B, C
  // and width; with prefetch_c, the next column tile's C lines are asked for first.
  void sweep(const TileCall& t, int64_t nb, int64_t b_step, bool prefetch_c) const {
    UKernelArgs args = args_of(t, nr_);
    const kernels::UKernelFn fn = kernel(t.mv);
    const int64_t b_floats = b_step / 4;
    // The next column tile of C, or of C^T: nr rows of C further.
    const int64_t c_step = transposed_ ? nr_ * t.ldc : nr_;
    int64_t jr = 0;
    // A tile of one or two rows: its whole column tiles in one call (UKernelArgs::tiles).
    if (!prefetch_c && t.mv <= kernels::kSweepKernelRows && nb / nr_ > 1) {
      const int64_t whole = nb / nr_;
      args.tiles = whole, args.b_tile_step = b_floats, args.c_tile_step = c_step;
      fn(args);
      args.tiles = 1;
      args.b += whole * b_floats;
      args.c += whole * c_step;
      jr = whole * nr_;
    }
    for (; jr < nb; jr += nr_) {
      args.n = static_cast<int>(std::min<int64_t>(nr_, nb - jr));
      // The last panel of prepacked B is as wide as its columns: rows args.n apart.
      if (b.panel_nr > 0 && args.n < nr_) {
        args.b -= t.pc * (nr_ - args.n);
        args.ldb = args.n;
      }
      if (prefetch_c && jr + nr_ < nb) [[unlikely]]  // never on a transposed plan
        prefetch_c_tile(args.c + nr_, args.ldc, t.mv,
                        static_cast<int>(std::min<int64_t>(nr_, nb - jr - nr_)));
      fn(args);
      args.b += b_floats;
      args.c += c_step;
    }
  }

 private:
  AMode mode() const noexcept { return pack_a_ ? AMode::ColUnit : direct_mode_; }
  // The kernel for mv rows: the tile's own, or its transposed-store twin.
  kernels::UKernelFn kernel(int mv) const noexcept {
    return transposed_ ? tile_.get_tc(mode(), mv) : tile_.get(mode(), mv);
  }

  // A register tile's kernel arguments, n columns wide.
  UKernelArgs args_of(const TileCall& t, int n) const noexcept {
    return UKernelArgs{.k = t.kb,
                       .a = reinterpret_cast<const float*>(t.a),
                       .a_stride = pack_a_ ? (padded_ ? mr_ : t.mv) : a_stride_,
                       .b = reinterpret_cast<const float*>(t.b),
                       .ldb = pack_b_          ? nr_
                              : b.panel_nr > 0 ? n
                                               : b.rs,
                       .c = static_cast<float*>(t.c),
                       .ldc = t.ldc,
                       .alpha = store_.alpha,
                       .beta = store_.beta_at(t.first),
                       .n = n,
                       .b_next = reinterpret_cast<const float*>(t.b_next),
                       .b_next_rows = t.b_next_rows};
  }

  // The padded tail: the full tile on the zero-padded panels into a scratch tile, then the
  // valid part (mv x args.n) merged into C.
  void padded_tile(const UKernelArgs& args, AMode mode, int mv) const {
    alignas(64) float edge[kernels::kMaxMr * 64];
    UKernelArgs full = args;
    full.c = edge;
    full.ldc = nr_;
    full.beta = 0.0f;
    full.n = nr_;
    tile_.get(mode, mr_)(full);
    for (int i = 0; i < mv; ++i) {
      float* row = args.c + i * args.ldc;
      const float* e = edge + i * nr_;
      if (args.beta == 0.0f) {
        for (int j = 0; j < args.n; ++j) row[j] = e[j];
      } else {
        for (int j = 0; j < args.n; ++j) row[j] = e[j] + args.beta * row[j];
      }
    }
  }

  const PostOpChain* post_;
  float* c_base_;
  int64_t c_ld_;
  const kernels::IsaKernels& ks_;
  LinearStore store_;
  int mr_, nr_;
  bool pack_a_, pack_b_, padded_, transposed_;
  AMode direct_mode_;
  int64_t a_stride_;
  const kernels::TileKernels& tile_;
};

// The fp32 adapter of dot plans: the fp32 dot-product tiles.
class F32DotOp : public F32Operands {
 public:
  F32DotOp(const GemmProblem& g, const kernels::IsaKernels& ks) noexcept
      : F32Operands(g, {reinterpret_cast<unsigned char*>(g.c), g.ldc, 0, 0}),
        dot_(*ks.dot),
        args_{.k = g.k,
              .a = nullptr,
              .lda = g.a_rs,
              .b = nullptr,
              .ldb = g.b_cs,
              .c = nullptr,
              .ldc = g.ldc,
              .alpha = g.alpha,
              .beta = g.beta} {}
  void dot_tile(const DotCall& d) {
    args_.a = reinterpret_cast<const float*>(d.a);
    args_.b = reinterpret_cast<const float*>(d.b);
    args_.b_next = reinterpret_cast<const float*>(d.b_next);
    args_.b_next_cols = d.b_next_cols;
    args_.c = static_cast<float*>(d.c);
    dot_.get(d.mv, d.nv)(args_);
  }

 private:
  const kernels::DotKernels& dot_;
  kernels::DotArgs args_;
};

// One core's dot-product block.
void run_dot_block(const Plan& p, const GemmProblem& g, const kernels::IsaKernels& ks,
                   const Block& blk) {
  F32DotOp op(g, ks);
  run_dot(p, op, blk);
}

// The problem restricted to the block's columns with those columns of op(B) copied into `out`
// transposed (column j at out + (j - n0) * k, contiguous along k), for a dot plan that packs
// a narrow B. Read along B's rows, written as one stream per column.
GemmProblem with_b_transposed(const GemmProblem& g, const Block& blk, const kernels::IsaKernels& ks,
                              float* out) {
  const int64_t nb = blk.n1 - blk.n0;
  const float* b = g.b + blk.n0 * g.b_cs;
  if (g.b_cs == 1 && ks.transpose != nullptr) {
    ks.transpose(g.k, nb, b, g.b_rs, out, g.k);
  } else {
    for (int64_t p = 0; p < g.k; ++p)
      for (int64_t j = 0; j < nb; ++j) out[j * g.k + p] = b[p * g.b_rs + j * g.b_cs];
  }
  GemmProblem sub = g;
  sub.n = nb;
  sub.b = out;
  sub.b_rs = 1;
  sub.b_cs = g.k;
  sub.c = g.c + blk.n0;
  return sub;
}

}  // namespace

// Whether the plan's tile is one of this table's, with its shape: the plan may come from a
// cache or a file filled for another table (a profile change racing a call), and a tile run
// with another tile's mr x nr leaves part of C unwritten. Cheap: a few compares per call.
bool plan_matches(const Plan& p, const kernels::IsaKernels& ks) noexcept {
  if (p.pm < 1 || p.pn < 1 || p.pk < 1) return false;
  if (p.transpose_c && p.kind != PlanKind::Blocked) return false;
  if (p.is_dot()) return ks.dot != nullptr && p.mr == kernels::kDotMr && p.nr == kernels::kDotNr;
  if (p.kind == PlanKind::Rows) return ks.rows != nullptr && p.pn == 1 && p.pk == 1;
  if (p.tile < 0 || static_cast<std::size_t>(p.tile) >= ks.tiles.size()) return false;
  const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(p.tile)];
  if (p.transpose_c &&
      (!t.has_transposed_store() || p.pk != 1 || p.tail != TailStrategy::Masked || p.prefetch_c))
    return false;
  return p.mr == t.mr && p.nr == t.nr && p.mc >= 1 && p.nc >= 1 && p.kc >= 1;
}

void run_dot_whole(const GemmProblem& g, const kernels::IsaKernels& ks) noexcept {
  Plan p;
  p.kind = PlanKind::Dot;
  p.mr = kernels::kDotMr;
  p.nr = kernels::kDotNr;
  run_dot_block(p, g, ks, Block{0, g.m, 0, g.n, 0, g.k});
}

void scale_c(const GemmProblem& g, const kernels::IsaKernels& ks) noexcept {
  for (int64_t i = 0; i < g.m; ++i) {
    float* row = g.c + i * g.ldc;
    if (g.beta == 0.0f) {
      std::memset(row, 0, static_cast<std::size_t>(g.n) * sizeof(float));
    } else if (g.beta != 1.0f) {
      for (int64_t j = 0; j < g.n; ++j) row[j] *= g.beta;
    }
  }
  if (g.post != nullptr && !g.post->empty()) ks.post_ops(*g.post, g.c, g.ldc, 0, g.m, 0, g.n);
}

Status execute(const Plan& p, const GemmProblem& given, const kernels::IsaKernels& ks,
               ThreadPool& pool) noexcept {
  if (!plan_matches(p, ks)) return Status::InternalError;
  // Prepacked B runs only as register tiles of its panels' width reading it in place.
  if (given.b_panel_nr != 0 &&
      (p.kind != PlanKind::Blocked || p.pack_b || p.transpose_c || p.prefetch_b ||
       p.nr != given.b_panel_nr || p.tail != TailStrategy::Masked))
    return Status::InternalError;
  // A transposed plan runs the loops over C^T = op(B)^T op(A)^T (plan_matches: one depth
  // slice, a blocked plan) and its kernels store into C transposed.
  const GemmProblem g = p.transpose_c ? transposed_operands(given) : given;
  const int threads = p.threads();
  // The fused epilogue, over C as the caller's normalised problem has it (also for a transposed
  // plan, whose loops run over C^T).
  const PostOpChain* post = given.post != nullptr && !given.post->empty() ? given.post : nullptr;
  if (p.is_dot()) {
    // A packed B: each core's columns, transposed into a k-contiguous block of its own.
    ScratchLayout scratch;
    const std::size_t packed_b =
        scratch.per_task(p.pack_b ? static_cast<std::size_t>(std::min(p.nc, g.n) * g.k) * 4 : 0);
    if (!scratch.reserve(threads)) return Status::OutOfMemory;
    run_tasks(
        pool, threads,
        [&](int tid) {
          const Block blk = grid_cell(p, tid, g.m, g.n, g.k, p.mr, p.nr).block;
          if (blk.empty()) return;
          if (!p.pack_b) {
            run_dot_block(p, g, ks, blk);
          } else {
            auto* bt = reinterpret_cast<float*>(scratch.task(tid) + packed_b);
            run_dot_block(p, with_b_transposed(g, blk, ks, bt), ks,
                          Block{blk.m0, blk.m1, 0, blk.n1 - blk.n0, 0, g.k});
          }
          if (post != nullptr)
            ks.post_ops(*post, g.c + blk.m0 * g.ldc + blk.n0, g.ldc, blk.m0, blk.m1, blk.n0,
                        blk.n1);
        },
        one_core_us(p));
    return Status::Ok;
  }
  if (p.kind == PlanKind::Rows) {
    if (!g.b_row_unit()) return Status::InternalError;
    run_tasks(
        pool, threads,
        [&](int tid) {
          const Range rows = split_range(g.m, 1, threads, tid);
          if (rows.begin >= rows.end) return;
          ks.rows(kernels::RowsArgs{rows.end - rows.begin, g.n, g.k, g.a + rows.begin * g.a_rs,
                                    g.a_rs, g.a_cs, g.b, g.b_rs, g.c + rows.begin * g.ldc, g.ldc,
                                    g.alpha, g.beta});
          if (post != nullptr)
            ks.post_ops(*post, g.c + rows.begin * g.ldc, g.ldc, rows.begin, rows.end, 0, g.n);
        },
        one_core_us(p));
    return Status::Ok;
  }
  const int64_t kc = std::min(p.kc, g.k);
  ScratchLayout scratch;
  const std::size_t pack_a =
      scratch.per_task(p.pack_a ? static_cast<std::size_t>(round_up(p.mc, p.mr) * kc) * 4 : 0);
  const std::size_t pack_b =
      scratch.per_task(p.pack_b ? static_cast<std::size_t>(round_up(p.nc, p.nr) * kc) * 4 : 0);
  // Split-K partials: depth slices 1..pk-1 each write a full m x n buffer (slice 0 goes to C).
  const std::size_t partial = static_cast<std::size_t>(g.m * g.n);
  const std::size_t partials_at = scratch.shared(partial * 4 * static_cast<std::size_t>(p.pk - 1));
  if (!scratch.reserve(threads)) return Status::OutOfMemory;
  auto* partials = reinterpret_cast<float*>(scratch.shared_at(partials_at));

  run_tasks(
      pool, threads,
      [&](int tid) {
        const GridCell cell = grid_cell(p, tid, g.m, g.n, g.k, p.mr, p.nr);
        const Block& blk = cell.block;
        if (blk.empty()) return;
        const PackBuffers s{scratch.task(tid) + pack_a, scratch.task(tid) + pack_b};
        if (cell.tk == 0) {
          if (blk.k0 >= blk.k1) return;  // cannot happen: slice 0 is never empty when k > 0
          const int64_t at = p.transpose_c ? blk.n0 * g.ldc + blk.m0 : blk.m0 * g.ldc + blk.n0;
          const CTarget c{reinterpret_cast<unsigned char*>(g.c + at), g.ldc, blk.m0, blk.n0,
                          p.transpose_c};
          F32Op op(p, g, ks, c, LinearStore{g.alpha, g.beta, 0}, p.pk == 1 ? post : nullptr,
                   given.c, given.ldc);
          run_blocked(p, op, blk, s);
        } else {
          float* part = partials + static_cast<std::size_t>(cell.tk - 1) * partial;
          if (blk.k0 >= blk.k1) {  // empty depth slice contributes zeros
            for (int64_t i = blk.m0; i < blk.m1; ++i)
              std::memset(part + i * g.n + blk.n0, 0,
                          static_cast<std::size_t>(blk.n1 - blk.n0) * sizeof(float));
            return;
          }
          const CTarget c{reinterpret_cast<unsigned char*>(part + blk.m0 * g.n + blk.n0), g.n,
                          blk.m0, blk.n0};
          F32Op op(p, g, ks, c, LinearStore{g.alpha, 0.0f, 0});
          run_blocked(p, op, blk, s);
        }
      },
      one_core_us(p));

  if (p.pk > 1) {
    // Deterministic reduction: C += P1 + P2 + ... in slice order, rows split over threads.
    run_tasks(
        pool, threads,
        [&](int tid) {
          const Range rows = split_range(g.m, 1, threads, tid);
          for (int64_t i = rows.begin; i < rows.end; ++i) {
            float* row = g.c + i * g.ldc;
            for (int s = 0; s < p.pk - 1; ++s) {
              const float* src = partials + static_cast<std::size_t>(s) * partial + i * g.n;
              for (int64_t j = 0; j < g.n; ++j) row[j] += src[j];
            }
            if (post != nullptr) ks.post_ops(*post, row, g.ldc, i, i + 1, 0, g.n);
          }
        },
        one_core_us(p));
  }
  return Status::Ok;
}

}  // namespace adaptcore
