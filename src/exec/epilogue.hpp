// Epilogues: what happens to C after the main loop, as stages of their own (the main loop /
// epilogue split of CUTLASS 3), selected by the problem's types. docs/ARCHITECTURE.md,
// "Epilogues", describes the interface.
//
// The main loop (exec/macro_kernel.hpp, or the weight-quantized loop) computes a block of C in
// depth blocks through the kernels' store, which fuses the linear combination: the first depth
// block of a block of C stores alpha AB + beta C (int32: AB + ibeta C, modulo 2^32), later
// ones add alpha AB. That store is the one stage every type has (LinearStore), fused because
// moving it out of the kernels would cost a pass over C and change the rounding.
//
// Everything else is a stage applied to a *finished* block of C: rows [m0, m1) x columns
// [n0, n1) with every depth step accumulated, through
//   void apply(const CBlock& block, const EpilogueBuffers& buffers) const;
// A stage that needs something gathered by the main loop says so (ZeroPointCompensation asks
// for B's column sums, which the packer or the kernels add while they read B) and may prepare
// per core block (`prepare`, A's row sums). A problem type's epilogue is an ordered list of
// stages (LowpEpilogue); adding one (bias, activation, residual) adds a stage type and an entry
// in that list, not code in the loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/lowp_problem.hpp"
#include "kernels/lowp.hpp"

namespace adaptcore {

// A finished block of C: rows [m0, m1) x columns [n0, n1).
struct CBlock {
  int64_t m0 = 0, m1 = 0, n0 = 0, n1 = 0;
  int64_t width() const noexcept { return n1 - n0; }
};

// The linear combination the kernels' store applies: beta (ibeta) at the first depth block of
// a block of C (0: C is written without being read), then accumulation.
struct LinearStore {
  float alpha = 1.0f, beta = 0.0f;
  std::int32_t ibeta = 0;

  float beta_at(bool first) const noexcept { return first ? beta : 1.0f; }
  std::int32_t ibeta_at(bool first) const noexcept { return first ? ibeta : 1; }
};

// Per-task scratch of the stages (null where no stage uses it).
struct EpilogueBuffers {
  std::int32_t* rowsum = nullptr;  // A's row sums over the core block's rows
  std::int32_t* colsum = nullptr;  // B's column sums over the panel's columns
  std::uint32_t* zb = nullptr;     // the panel's zero points of B
  float* acc = nullptr;            // fp32 accumulation block of a bf16 C, rows `width` apart
};

// int8 zero points: C(i, j) += (k za_i - rowsum_i) zb_j - za_i colsum_j (mod 2^32), which turns
// sum a b into sum (a - za)(b - zb) without touching the inputs. rowsum over A's rows (for B's
// zero points) is prepared per core block; colsum over B's columns (for A's) is what the main
// loop gathers while reading B.
class ZeroPointCompensation {
 public:
  explicit ZeroPointCompensation(const LowpProblem& g) noexcept
      : g_(&g),
        needs_colsum_(g.dtype() == DType::U8S8 && g.a.has_zp()),
        needs_rowsum_(g.dtype() == DType::U8S8 && g.b.has_zp()) {}
  bool active() const noexcept { return needs_colsum_ || needs_rowsum_; }
  bool needs_colsum() const noexcept { return needs_colsum_; }
  bool needs_rowsum() const noexcept { return needs_rowsum_; }

  void prepare(int64_t m0, int64_t m1, const EpilogueBuffers& b) const noexcept {
    if (needs_rowsum_) row_sums(m0, m1, b.rowsum);
  }
  void apply(const CBlock& block, const EpilogueBuffers& b) const noexcept {
    if (active()) compensate(block, b);
  }

 private:
  void row_sums(int64_t m0, int64_t m1, std::int32_t* rowsum) const noexcept;
  void compensate(const CBlock& block, const EpilogueBuffers& b) const noexcept;

  const LowpProblem* g_;
  bool needs_colsum_, needs_rowsum_;
};

// bf16 C: the kernels store alpha AB into an fp32 block (beta 0 at the first depth block, so
// C is not read there); this stage rounds alpha AB + beta C to bf16 once, nearest even.
class Bf16Rounding {
 public:
  Bf16Rounding(const LowpProblem& g, const kernels::LowpKernels& ks) noexcept : g_(&g), ks_(&ks) {}
  bool active() const noexcept { return g_->bf16_out(); }
  void apply(const CBlock& block, const EpilogueBuffers& b) const noexcept {
    if (active()) round(block, b, g_->beta);
  }
  // The fp32 block += beta C, so that a stage between can see alpha AB + beta C.
  void add_old_c(const CBlock& block, const EpilogueBuffers& b) const noexcept;
  // Rounds the fp32 block alone (add_old_c done).
  void round_block(const CBlock& block, const EpilogueBuffers& b) const noexcept {
    round(block, b, 0.0f);
  }

 private:
  void round(const CBlock& block, const EpilogueBuffers& b, float beta) const noexcept;

  const LowpProblem* g_;
  const kernels::LowpKernels* ks_;
};

// The fused post-ops (core/post_ops.hpp) over a finished block: on an fp32 C in place; on a bf16
// C over the fp32 block before its rounding; on an int32 C over an fp32 copy of the block (the
// list ends in an output of its own: the int32 values stay in C).
class FusedPostOps {
 public:
  FusedPostOps(const LowpProblem& g, const kernels::LowpKernels& ks) noexcept;
  bool active() const noexcept { return fn_ != nullptr; }
  // Whether it needs the fp32 block (EpilogueBuffers::acc) of an int32 C.
  bool needs_copy() const noexcept { return active() && g_->dtype() == DType::U8S8; }
  // fp32 or int32 C.
  void apply(const CBlock& block, const EpilogueBuffers& b) const noexcept;
  // The fp32 block of a bf16 C, rows block.width() apart.
  void apply_to_block(const CBlock& block, float* acc) const noexcept;

 private:
  const LowpProblem* g_;
  kernels::PostOpsFn fn_;
};

// The epilogue of a bf16 or int8 problem: the kernels' store, then zero-point compensation
// (int8 with zero points), then the fused post-ops and the bf16 rounding (bf16 C: the post-ops
// on the fp32 block with beta C added, then one rounding).
class LowpEpilogue {
 public:
  LowpEpilogue(const LowpProblem& g, const kernels::LowpKernels& ks) noexcept
      : zero_points_(g), rounding_(g, ks), post_(g, ks), colsum_(g.b_colsum) {
    store_.alpha = g.alpha;
    // A bf16 C's old values join in the rounding stage; the kernels start from zero.
    store_.beta = rounding_.active() ? 0.0f : g.beta;
    store_.ibeta = g.ibeta;
  }

  const LinearStore& store() const noexcept { return store_; }
  // Whether the kernels write the fp32 accumulation block instead of C.
  bool to_accumulator() const noexcept { return rounding_.active(); }
  bool needs_colsum() const noexcept { return zero_points_.needs_colsum(); }

  // Per-task scratch for core blocks of up to `rows` rows and panels of up to `cols` columns:
  // bytes of each of EpilogueBuffers' parts.
  struct Sizes {
    std::size_t rowsum, colsum, zb, acc;
  };
  Sizes sizes(int64_t rows, int64_t cols) const noexcept {
    auto bytes = [](bool used, int64_t count) {
      return used ? static_cast<std::size_t>(count) * 4 : std::size_t{0};
    };
    return {bytes(zero_points_.needs_rowsum(), rows), bytes(zero_points_.needs_colsum(), cols),
            bytes(zero_points_.active(), cols),
            bytes(rounding_.active() || post_.needs_copy(), rows * cols)};
  }

  // Before a core block's main loop, and before each of its panels (columns [n0, n1)): B's
  // column sums are added by the main loop panel by panel, from zero.
  void prepare(int64_t m0, int64_t m1, const EpilogueBuffers& b) const noexcept {
    zero_points_.prepare(m0, m1, b);
  }
  void begin_panel(const CBlock& panel, const EpilogueBuffers& b) const noexcept {
    if (!zero_points_.needs_colsum()) return;
    if (colsum_ != nullptr)  // prepacked B: its sums, made when it was packed
      std::memcpy(b.colsum, colsum_ + panel.n0, static_cast<std::size_t>(panel.width()) * 4);
    else
      std::memset(b.colsum, 0, static_cast<std::size_t>(panel.width()) * 4);
  }
  void apply(const CBlock& block, const EpilogueBuffers& b) const noexcept {
    zero_points_.apply(block, b);
    if (!rounding_.active()) {
      post_.apply(block, b);
    } else if (!post_.active()) {
      rounding_.apply(block, b);
    } else {
      rounding_.add_old_c(block, b);
      post_.apply_to_block(block, b.acc);
      rounding_.round_block(block, b);
    }
  }

 private:
  LinearStore store_;
  ZeroPointCompensation zero_points_;
  Bf16Rounding rounding_;
  FusedPostOps post_;
  const std::int32_t* colsum_;  // prepacked int8 B's column sums (null: gathered per panel)
};

// Weight-quantized GEMM: the mainloop flushes each activation group's int32 sums into the fp32
// accumulators with that group's scales (they change with every group, so the flush is part of
// the loop), and the tiles' output op, DequantizedOutput (kernels/tile_epilogue.hpp), applies
// the weights' column scale, the row's factor and beta C as a tile is stored. The
// executor gives that op beta through the kernel's arguments (kernels::WqArgs); a further stage
// (bias, activation) is another output op composed with it, or a stage over finished blocks as
// for the other types.

}  // namespace adaptcore
