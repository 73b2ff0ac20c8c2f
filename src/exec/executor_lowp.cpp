// The low-precision executor: the bf16 / int8 adapter of the macro-kernel
// (exec/macro_kernel.hpp). A is always packed (into the kernels' 32-bit groups), B packed or
// read in place by the in-place tile; the epilogue (exec/epilogue.hpp) adds the int8
// zero-point compensation and the rounding of a bf16 C.
#include "exec/executor_lowp.hpp"

#include <algorithm>
#include <cstring>

#include "core/int_math.hpp"
#include "core/post_ops.hpp"
#include "exec/engine_scope.hpp"
#include "exec/epilogue.hpp"
#include "exec/grid_tasks.hpp"
#include "exec/macro_kernel.hpp"
#include "kernels/registry.hpp"

namespace adaptcore {
namespace {

std::uint32_t u32(std::int32_t v) { return static_cast<std::uint32_t>(v); }

unsigned pack_flags(const LowpSide& s) {
  return (s.flip ? kernels::kFlip : 0u) | (s.is_signed ? kernels::kSigned : 0u);
}

ByteMatrix bytes_of(const LowpSide& s, int64_t eb) {
  return {static_cast<const unsigned char*>(s.ptr), s.rs, s.cs, eb};
}

// Prepacked B (LowpProblem::b_panel_nr): the handle's panels as 32-bit words,
// lowp_panel_depth(k, group) deep, every panel whole (core/packed_weights.hpp).
ByteMatrix panels_of(const LowpProblem& g, int group) {
  ByteMatrix m{static_cast<const unsigned char*>(g.b.ptr), g.b_panel_nr, 1, 4};
  m.panel_nr = g.b_panel_nr;
  m.depth = lowp_panel_depth(g.k, group);
  m.cols = round_up(g.n, int64_t{g.b_panel_nr});
  m.panel_group = group;
  return m;
}

// The path's fp32 packer where the plan packs A as words (APacking::Words) and the operand
// allows it: what the key cannot say, A's address on a 4-byte boundary and bytes that need no
// flip (an s8 A read as u8), besides the row-major, word-aligned rows the key does say (a
// plan made for another key must not read A wrongly). Null: the group packer.
const kernels::IsaKernels* word_packer(const Plan& p, const LowpProblem& g,
                                       const kernels::LowpKernels& ks, int64_t eb) {
  if (p.a_packing != APacking::Words || ks.group == 1 || g.a.cs != 1 || g.a.flip ||
      (g.a.rs * eb) % 4 != 0 || reinterpret_cast<std::uintptr_t>(g.a.ptr) % 4 != 0)
    return nullptr;
  return kernels::kernels_for(ks.isa);
}

// The plan's matrix-engine tile (kernels::EngineTile), or null (a vector tile, a dot plan).
const kernels::EngineTile* engine_of(const Plan& p, const kernels::LowpKernels& ks) {
  if (p.is_dot() || p.tile < 0 || static_cast<std::size_t>(p.tile) >= ks.tiles.size())
    return nullptr;
  return ks.tiles[static_cast<std::size_t>(p.tile)].engine;
}
// Packed words per depth step of the plan's tile: an engine's block (its panels are padded to
// whole blocks), 1 for the vector tiles.
int64_t depth_block_of(const kernels::EngineTile* engine) {
  return engine != nullptr ? engine->depth_block : 1;
}

// The bf16 / int8 adapter: group packers (or the fp32 packer for A as words), the packed
// register tiles (native, or the fp32 kernels on widened panels), the in-place B tile and the
// dot-product tiles, with the epilogue of the problem's types.
class LowpOp {
 public:
  int64_t group;
  int64_t depth_block;
  ByteMatrix a, b;

  LowpOp(const Plan& p, const LowpProblem& g, const kernels::LowpKernels& ks,
         const LowpEpilogue& epilogue, const EpilogueBuffers& buffers) noexcept
      : group(ks.group),
        depth_block(depth_block_of(engine_of(p, ks))),
        a(bytes_of(g.a, input_bytes(g.dtype()))),
        b(g.b_panel_nr > 0 ? panels_of(g, ks.group) : bytes_of(g.b, input_bytes(g.dtype()))),
        g_(g),
        ks_(ks),
        epilogue_(epilogue),
        store_(epilogue.store()),
        buffers_(buffers),
        tile_(ks.tiles[static_cast<std::size_t>(p.tile)]),
        direct_(p.is_dot() || p.pack_b || g.b_panel_nr > 0 ? nullptr : ks.direct_b),
        engine_(engine_of(p, ks)),
        words_(p.is_dot() || engine_ != nullptr ? nullptr : word_packer(p, g, ks, a.eb)),
        colsum_(epilogue.needs_colsum() ? buffers.colsum : nullptr),
        mr_(p.mr),
        nr_(p.nr),
        swapped_(g.dtype() == DType::U8S8 && g.a.is_signed) {}

  void prepare(const Block& blk) const noexcept { epilogue_.prepare(blk.m0, blk.m1, buffers_); }
  CTarget begin_panel(const CBlock& panel) const noexcept {
    epilogue_.begin_panel(panel, buffers_);
    if (epilogue_.to_accumulator())
      return {reinterpret_cast<unsigned char*>(buffers_.acc), panel.width(), panel.m0, panel.n0};
    return {static_cast<unsigned char*>(g_.c), g_.ldc, 0, 0};
  }
  // The epilogue's stages (with the fused post-ops) over the panel just finished (in L2: a
  // panel is the core's rows x nc columns).
  void finish(const CBlock& panel) const noexcept { epilogue_.apply(panel, buffers_); }
  // Per tile: none (the stages above run per panel, after every depth block).
  static constexpr bool has_post_ops() noexcept { return false; }
  void post_ops(int64_t, int64_t, int64_t, int64_t) const noexcept {}

  void pack_b(const unsigned char* src, int64_t kb, int64_t nb, unsigned char* out) const {
    (engine_ != nullptr ? engine_->pack_b : ks_.pack_b)(
        kb, nb, src, b.rs, b.cs, nr_, pack_flags(g_.b), reinterpret_cast<std::uint32_t*>(out),
        colsum_);
  }
  // Words cover the blocks that start on a word and hold whole groups; a last block ending in
  // a partial group goes through the group packer (which pads it).
  void pack_a(const unsigned char* src, int64_t mb, int64_t kb, int64_t pc,
              unsigned char* out) const {
    if (words_ != nullptr && kb % group == 0 && (pc * a.eb) % 4 == 0)
      words_->pack_a(mb, kb / group, reinterpret_cast<const float*>(src), a.rs * a.eb / 4, 1, mr_,
                     reinterpret_cast<float*>(out));
    else
      (engine_ != nullptr ? engine_->pack_a : ks_.pack_a)(
          mb, kb, src, a.rs, a.cs, mr_, pack_flags(g_.a), reinterpret_cast<std::uint32_t*>(out));
  }

  void tile(const TileCall& t) const {
    const float beta = store_.beta_at(t.first);
    const auto* a_words = reinterpret_cast<const std::uint32_t*>(t.a);
    if (direct_ != nullptr) {
      // B's column sums once per depth block: by the first row tile.
      std::int32_t* sums = colsum_ != nullptr && t.first_row ? colsum_ + t.jr : nullptr;
      direct_->get(t.mv, swapped_, g_.b.flip)({.k = t.kb,
                                               .a = a_words,
                                               .b = t.b,
                                               .ldb = b.rs,
                                               .c = t.c,
                                               .ldc = t.ldc,
                                               .alpha = store_.alpha,
                                               .beta = beta,
                                               .ibeta = store_.ibeta_at(t.first),
                                               .colsum = sums,
                                               .n = t.nv});
    } else if (tile_.fp32 != nullptr) {
      // The fp32 kernels on widened panels: one fp32 value per word.
      tile_.fp32->get(kernels::AMode::ColUnit, t.mv)({.k = t.steps,
                                                      .a = reinterpret_cast<const float*>(t.a),
                                                      .a_stride = mr_,
                                                      .b = reinterpret_cast<const float*>(t.b),
                                                      .ldb = nr_,
                                                      .c = static_cast<float*>(t.c),
                                                      .ldc = t.ldc,
                                                      .alpha = store_.alpha,
                                                      .beta = beta,
                                                      .n = t.nv});
    } else {
      tile_.get(t.mv, swapped_)({.groups = t.steps,
                                 .a = a_words,
                                 .b = reinterpret_cast<const std::uint32_t*>(t.b),
                                 .c = t.c,
                                 .ldc = t.ldc,
                                 .alpha = store_.alpha,
                                 .beta = beta,
                                 .ibeta = store_.ibeta_at(t.first),
                                 .n = t.nv});
    }
  }

  void dot_tile(const DotCall& d) const {
    const bool flip = swapped_ ? g_.b.flip : g_.a.flip;  // of the u8 side
    std::int32_t* sums = colsum_ != nullptr && d.first_row ? colsum_ + d.col : nullptr;
    ks_.dot->get(d.mv, d.nv, swapped_, flip)({.k = g_.k,
                                              .a = d.a,
                                              .lda = a.rs,
                                              .b = d.b,
                                              .ldb = b.cs,
                                              .c = d.c,
                                              .ldc = d.ldc,
                                              .alpha = store_.alpha,
                                              .beta = store_.beta,
                                              .ibeta = store_.ibeta,
                                              .colsum = sums,
                                              .b_next = d.b_next,
                                              .b_next_cols = d.b_next_cols});
  }

 private:
  const LowpProblem& g_;
  const kernels::LowpKernels& ks_;
  const LowpEpilogue& epilogue_;
  LinearStore store_;
  EpilogueBuffers buffers_;
  const kernels::LowpTile& tile_;
  const kernels::LowpDirectTile* direct_;
  const kernels::EngineTile* engine_;
  const kernels::IsaKernels* words_;
  std::int32_t* colsum_;
  int mr_, nr_;
  bool swapped_;  // int8 with A the s8 side (column-major C swapped the operands)
};

// Whether the plan can run on this table and problem (see plan_matches in executor.cpp): a
// packed tile run with another tile's mr x nr would leave part of C unwritten and still
// report Ok.
bool plan_matches(const Plan& p, const LowpProblem& g, const kernels::LowpKernels& ks) {
  if (p.kind == PlanKind::WeightQuantized || p.kind == PlanKind::Rows || p.transpose_c ||
      p.pk != 1 || p.pm < 1 || p.pn < 1 || p.mc < 1 || p.nc < 1 || p.kc < 1 || p.tile < 0 ||
      static_cast<std::size_t>(p.tile) >= ks.tiles.size())
    return false;
  if (p.is_dot())
    return ks.dot != nullptr && g.a.cs == 1 && g.b.rs == 1 && p.mr == kernels::kLowpDotMr &&
           p.nr == kernels::kLowpDotNr;
  if (!p.pack_a) return false;
  // A matrix-engine tile packs A with its own packer (never as words).
  const kernels::EngineTile* engine = engine_of(p, ks);
  if (engine != nullptr && p.a_packing != APacking::Elements) return false;
  const kernels::LowpTile& tile = ks.tiles[static_cast<std::size_t>(p.tile)];
  if (g.b_panel_nr > 0) {  // the packed tiles of the panels' width, reading them in place
    if (p.pack_b || p.nr != g.b_panel_nr) return false;
    // An engine reads whole blocks of the panels' (padded) depth.
    if (engine != nullptr && kLowpPanelDepthBlock % engine->depth_block != 0) return false;
    const int64_t unit = ks.group * depth_block_of(engine);
    return p.mr == tile.mr && p.nr == tile.nr && (p.kc % unit == 0 || p.kc >= g.k);
  }
  if (!p.pack_b)
    return ks.direct_b != nullptr && g.b.cs == 1 && p.mr == ks.direct_b->mr &&
           p.nr == ks.direct_b->nr;
  return p.mr == tile.mr && p.nr == tile.nr;
}

}  // namespace

bool lowp_needs_no_product(const LowpProblem& g) noexcept {
  return g.m == 0 || g.n == 0 || g.k == 0 || (g.dtype() != DType::U8S8 && g.alpha == 0.0f);
}

bool lowp_trivial(const LowpProblem& g) noexcept {
  if (!lowp_needs_no_product(g)) return false;
  if (g.m == 0 || g.n == 0) return true;
  const bool int8 = g.dtype() == DType::U8S8;
  for (int64_t i = 0; i < g.m; ++i) {
    if (int8) {
      auto* row = static_cast<std::int32_t*>(g.c) + i * g.ldc;
      for (int64_t j = 0; j < g.n; ++j)
        row[j] = g.ibeta == 0 ? 0 : static_cast<std::int32_t>(u32(g.ibeta) * u32(row[j]));
    } else if (g.bf16_out()) {
      auto* row = static_cast<std::uint16_t*>(g.c) + i * g.ldc;
      for (int64_t j = 0; j < g.n; ++j)
        row[j] = g.beta == 0.0f ? 0 : float_to_bf16(g.beta * bf16_to_float(row[j]));
    } else {
      auto* row = static_cast<float*>(g.c) + i * g.ldc;
      for (int64_t j = 0; j < g.n; ++j) row[j] = g.beta == 0.0f ? 0.0f : g.beta * row[j];
    }
  }
  return true;
}

Status execute(const Plan& p, const LowpProblem& g, const kernels::LowpKernels& ks,
               ThreadPool& pool) noexcept {
  if (!plan_matches(p, g, ks)) return Status::InternalError;
  const int threads = p.pm * p.pn;
  const LowpEpilogue epilogue(g, ks);
  const kernels::EngineTile* engine = engine_of(p, ks);
  const int64_t steps =
      round_up(ceil_div(std::min(p.kc, g.k), int64_t{ks.group}), depth_block_of(engine));
  const int64_t m_t = std::min(g.m, ceil_div(ceil_div(g.m, p.mr), p.pm) * p.mr);
  // A dot plan packs nothing; its column block is a task's whole share of N.
  const int64_t n_t = std::min(g.n, ceil_div(ceil_div(g.n, p.nr), p.pn) * p.nr);
  const int64_t nc = p.is_dot() ? n_t : std::min(p.nc, n_t);
  auto words = [](bool used, int64_t count) {
    return used ? static_cast<std::size_t>(count) * 4 : std::size_t{0};
  };
  ScratchLayout scratch;
  const std::size_t pack_a =
      scratch.per_task(words(!p.is_dot(), round_up(std::min(p.mc, m_t), p.mr) * steps));
  const std::size_t pack_b =
      scratch.per_task(words(p.pack_b, round_up(std::min(p.nc, g.n), p.nr) * steps));
  const LowpEpilogue::Sizes sizes = epilogue.sizes(m_t, nc);
  const std::size_t rowsum = scratch.per_task(sizes.rowsum);
  const std::size_t colsum = scratch.per_task(sizes.colsum);
  const std::size_t zb = scratch.per_task(sizes.zb);
  const std::size_t acc = scratch.per_task(sizes.acc);
  if (!scratch.reserve(threads)) return Status::OutOfMemory;

  run_tasks(
      pool, threads,
      [&](int tid) {
        const Block blk = grid_cell(p, tid, g.m, g.n, g.k, p.mr, p.nr).block;
        if (blk.empty()) return;
        unsigned char* base = scratch.task(tid);
        EpilogueBuffers buffers;
        buffers.rowsum = reinterpret_cast<std::int32_t*>(base + rowsum);
        buffers.colsum = reinterpret_cast<std::int32_t*>(base + colsum);
        buffers.zb = reinterpret_cast<std::uint32_t*>(base + zb);
        buffers.acc = reinterpret_cast<float*>(base + acc);
        LowpOp op(p, g, ks, epilogue, buffers);
        if (p.is_dot()) {
          run_dot(p, op, blk);
        } else {
          // The engine's state lives on the thread that runs the task.
          const EngineScope scope(engine != nullptr ? engine->begin : nullptr,
                                  engine != nullptr ? engine->end : nullptr);
          run_blocked(p, op, blk, PackBuffers{base + pack_a, base + pack_b});
        }
      },
      one_core_us(p));
  return Status::Ok;
}

}  // namespace adaptcore
