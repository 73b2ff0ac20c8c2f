#include "exec/executor_lowp.hpp"
#include "core/int_math.hpp"

#include <algorithm>
#include <cstring>

#include "exec/workspace.hpp"

namespace adaptcore {
namespace {


void split(int64_t total, int64_t unit, int parts, int idx, int64_t& begin, int64_t& end) {
  const int64_t units = ceil_div(total, unit);
  const int64_t per = ceil_div(units, parts);
  begin = std::min(total, idx * per * unit);
  end = std::min(total, (idx + 1) * per * unit);
}

std::uint32_t u32(std::int32_t v) { return static_cast<std::uint32_t>(v); }

// Value of byte element e of an int8 operand as the kernels see it (after the +128 flip).
std::int32_t int8_value(const LowpSide& s, std::uint8_t e) {
  if (s.flip) return static_cast<std::uint8_t>(e ^ 0x80u);
  return s.is_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(e)) : e;
}

unsigned pack_flags(const LowpSide& s) {
  return (s.flip ? kernels::kFlip : 0u) | (s.is_signed ? kernels::kSigned : 0u);
}

// Per-thread scratch, in 32-bit words.
struct Scratch {
  std::uint32_t* pack_a;
  std::uint32_t* pack_b;
  std::int32_t* colsum;  // nc column sums of B (int8 with a zero point of A)
  std::int32_t* rowsum;  // the block's row sums of A (int8 with a zero point of B)
  std::uint32_t* zb;     // nc zero points of B's columns (int8)
  float* acc;            // m_t x nc fp32 accumulation for a bf16 C
};

struct Block {
  int64_t m0, m1, n0, n1;
};

// C(i, j) += -zb_j * rowsum_i - za_i * colsum_j + k * za_i * zb_j  (mod 2^32), which turns
// sum a b into sum (a - za)(b - zb) without touching the inputs. Written as
// C(i, j) += (k za_i - rowsum_i) zb_j - za_i colsum_j with the column terms in arrays, so the
// inner loop is two multiply-adds the compiler vectorises.
void compensate(const LowpProblem& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1,
                const std::int32_t* rowsum, const std::int32_t* colsum, std::uint32_t* zb) {
  const bool za = g.a.has_zp(), has_zb = g.b.has_zp();
  auto* c = static_cast<std::int32_t*>(g.c);
  const auto kk = static_cast<std::uint32_t>(g.k);
  const int64_t nb = j1 - j0;
  for (int64_t j = 0; j < nb; ++j) zb[j] = has_zb ? u32(g.b.zp_at(j0 + j)) : 0u;
  const auto* cs = reinterpret_cast<const std::uint32_t*>(colsum);
  for (int64_t i = i0; i < i1; ++i) {
    auto* row = reinterpret_cast<std::uint32_t*>(c + i * g.ldc + j0);
    const std::uint32_t zai = za ? u32(g.a.zp_at(i)) : 0u;
    const std::uint32_t rterm = kk * zai - (has_zb ? u32(rowsum[i - i0]) : 0u);
    if (za) {
      for (int64_t j = 0; j < nb; ++j) row[j] += rterm * zb[j] - zai * cs[j];
    } else {
      for (int64_t j = 0; j < nb; ++j) row[j] += rterm * zb[j];
    }
  }
}

// What both loops of a core derive from the problem: the element type, which side is s8, the
// compensations its zero points need, the operands as bytes.
struct Operands {
  bool int8, swapped, need_colsum, need_rowsum, bf16_out;
  std::size_t eb;  // bytes per input element
  const unsigned char *a_bytes, *b_bytes;
  explicit Operands(const LowpProblem& g)
      : int8(g.dtype() == DType::U8S8),
        swapped(int8 && g.a.is_signed),  // column-major C: A is the s8 side, B the u8 one
        need_colsum(int8 && g.a.has_zp()),
        need_rowsum(int8 && g.b.has_zp()),
        bf16_out(g.bf16_out()),
        eb(int8 ? 1 : 2),
        a_bytes(static_cast<const unsigned char*>(g.a.ptr)),
        b_bytes(static_cast<const unsigned char*>(g.b.ptr)) {}
};

// The row sums of A over the block's rows, as the kernels read its bytes (B's zero points).
void row_sums(const LowpProblem& g, int64_t m0, int64_t m1, std::int32_t* rowsum) {
  const auto* a_bytes = static_cast<const unsigned char*>(g.a.ptr);
  for (int64_t i = m0; i < m1; ++i) {
    std::uint32_t sum = 0;
    const auto* row = a_bytes + i * g.a.rs;
    for (int64_t q = 0; q < g.k; ++q) sum += u32(int8_value(g.a, row[q * g.a.cs]));
    rowsum[i - m0] = static_cast<std::int32_t>(sum);
  }
}

// One rounding of alpha * AB + beta * C to bf16, nearest even: rows [m0, m1) x columns
// [j0, j0 + nb) of C from the fp32 block acc (row i at acc + (i - m0) * ld).
void round_to_bf16(const LowpProblem& g, const kernels::LowpKernels& ks, int64_t m0, int64_t m1,
                   int64_t j0, int64_t nb, const float* acc_block, int64_t ld) {
  auto* c = static_cast<std::uint16_t*>(g.c);
  for (int64_t i = m0; i < m1; ++i) {
    const float* acc = acc_block + (i - m0) * ld;
    std::uint16_t* row = c + i * g.ldc + j0;
    if (ks.round_bf16 != nullptr) {
      ks.round_bf16(acc, row, nb, g.beta);
    } else if (g.beta == 0.0f) {
      for (int64_t j = 0; j < nb; ++j) row[j] = float_to_bf16(acc[j]);
    } else {
      for (int64_t j = 0; j < nb; ++j)
        row[j] = float_to_bf16(acc[j] + g.beta * bf16_to_float(row[j]));
    }
  }
}

// Where a tile's kernel writes: C itself (fp32 or s32) at (i, j), or, for a bf16 C, the core's
// fp32 accumulation block at (i - m0, j - j0), rows acc_ld apart.
struct CTile {
  void* c;
  int64_t ldc;
};
CTile c_tile(const LowpProblem& g, float* acc, int64_t acc_ld, int64_t m0, int64_t j0, int64_t i,
             int64_t j) {
  if (g.bf16_out()) return {acc + (i - m0) * acc_ld + (j - j0), acc_ld};
  if (g.dtype() == DType::U8S8) return {static_cast<std::int32_t*>(g.c) + i * g.ldc + j, g.ldc};
  return {static_cast<float*>(g.c) + i * g.ldc + j, g.ldc};
}

// The dot-product loop of one core (A rows and B columns contiguous along k): column tiles,
// then row tiles, each a kernel over the whole depth; nothing is packed. B's columns are read
// from memory by the first row tile and from cache by the others.
void run_dot_block(const LowpProblem& g, const kernels::LowpKernels& ks, const Block& blk,
                   const Scratch& s) {
  const Operands o(g);
  const bool int8 = o.int8, swapped = o.swapped, need_colsum = o.need_colsum;
  const bool need_rowsum = o.need_rowsum, bf16_out = o.bf16_out;
  const bool flip = swapped ? g.b.flip : g.a.flip;  // of the u8 side
  const std::size_t eb = o.eb;
  const unsigned char *a_bytes = o.a_bytes, *b_bytes = o.b_bytes;
  const int64_t nb = blk.n1 - blk.n0;
  if (need_rowsum) row_sums(g, blk.m0, blk.m1, s.rowsum);
  if (need_colsum) std::memset(s.colsum, 0, static_cast<std::size_t>(nb) * 4);
  for (int64_t j = blk.n0; j < blk.n1; j += kernels::kLowpDotNr) {
    const int nv = static_cast<int>(std::min<int64_t>(kernels::kLowpDotNr, blk.n1 - j));
    for (int64_t i = blk.m0; i < blk.m1; i += kernels::kLowpDotMr) {
      const int mv = static_cast<int>(std::min<int64_t>(kernels::kLowpDotMr, blk.m1 - i));
      kernels::LowpDotArgs d{};
      d.k = g.k;
      d.a = a_bytes + static_cast<std::size_t>(i * g.a.rs) * eb;
      d.lda = g.a.rs;
      d.b = b_bytes + static_cast<std::size_t>(j * g.b.cs) * eb;
      d.ldb = g.b.cs;
      const CTile ct = c_tile(g, s.acc, nb, blk.m0, blk.n0, i, j);
      d.c = ct.c;
      d.ldc = ct.ldc;
      d.alpha = g.alpha;
      d.beta = bf16_out ? 0.0f : g.beta;  // a bf16 C joins in the rounding
      d.ibeta = g.ibeta;
      d.colsum = need_colsum && i == blk.m0 ? s.colsum + (j - blk.n0) : nullptr;
      ks.dot->get(mv, nv, swapped, flip)(d);
    }
  }
  if (int8 && (need_colsum || need_rowsum))
    compensate(g, blk.m0, blk.m1, blk.n0, blk.n1, s.rowsum, s.colsum, s.zb);
  if (bf16_out) round_to_bf16(g, ks, blk.m0, blk.m1, blk.n0, nb, s.acc, nb);
}

// The cache-blocked loop nest of one core: jc -> pc -> pack B -> ic -> pack A -> jr -> ir.
void run_block(const Plan& p, const LowpProblem& g, const kernels::LowpKernels& ks,
               const Block& blk, const Scratch& s) {
  const auto& tile = ks.tiles[static_cast<std::size_t>(p.tile)];
  const int mr = p.mr, nr = p.nr, grp = ks.group;
  // B read in place (decode-like calls): the direct kernels, no B packing.
  const kernels::LowpDirectTile* direct = p.pack_b ? nullptr : ks.direct_b;
  const Operands o(g);
  const bool int8 = o.int8, swapped = o.swapped, need_colsum = o.need_colsum;
  const bool need_rowsum = o.need_rowsum, bf16_out = o.bf16_out;
  const std::size_t eb = o.eb;
  const unsigned char *a_bytes = o.a_bytes, *b_bytes = o.b_bytes;
  // A row-major A whose rows start on 4-byte boundaries is, read as 32-bit words, an fp32
  // matrix of groups, and a packed panel of groups is a packed fp32 panel: the path's fp32
  // packer (in-register transposes on AVX-512) does it about 3x faster than the group
  // template. Not for a flipped (s8) A, nor for a block ending in a partial group.
  const kernels::IsaKernels* f32 = kernels::kernels_for(ks.isa);
  const int64_t a_rs_bytes = g.a.rs * static_cast<int64_t>(eb);
  const bool word_a = grp > 1 && f32 != nullptr && g.a.cs == 1 && !g.a.flip &&
                      a_rs_bytes % 4 == 0 && reinterpret_cast<std::uintptr_t>(g.a.ptr) % 4 == 0;

  if (need_rowsum) row_sums(g, blk.m0, blk.m1, s.rowsum);

  for (int64_t jc = blk.n0; jc < blk.n1; jc += p.nc) {
    const int64_t nb = std::min(p.nc, blk.n1 - jc);
    if (need_colsum) std::memset(s.colsum, 0, static_cast<std::size_t>(nb) * 4);
    // Where the kernels write: C itself, or the fp32 accumulation block of a bf16 C.
    for (int64_t pc = 0; pc < g.k; pc += p.kc) {
      const int64_t kb = std::min(p.kc, g.k - pc);
      const int64_t groups = ceil_div(kb, grp);
      const bool first = pc == 0;
      if (direct == nullptr)
        ks.pack_b(kb, nb, b_bytes + static_cast<std::size_t>(pc * g.b.rs + jc * g.b.cs) * eb,
                  g.b.rs, g.b.cs, nr, pack_flags(g.b), s.pack_b,
                  need_colsum ? s.colsum : nullptr);
      for (int64_t ic = blk.m0; ic < blk.m1; ic += p.mc) {
        const int64_t mb = std::min(p.mc, blk.m1 - ic);
        const unsigned char* a_src =
            a_bytes + static_cast<std::size_t>(ic * g.a.rs + pc * g.a.cs) * eb;
        if (word_a && kb % grp == 0 && (pc * static_cast<int64_t>(eb)) % 4 == 0)
          f32->pack_a(mb, groups, reinterpret_cast<const float*>(a_src), a_rs_bytes / 4, 1, mr,
                      reinterpret_cast<float*>(s.pack_a));
        else
          ks.pack_a(mb, kb, a_src, g.a.rs, g.a.cs, mr, pack_flags(g.a), s.pack_a);
        for (int64_t jr = 0; jr < nb; jr += nr) {
          const int nv = static_cast<int>(std::min<int64_t>(nr, nb - jr));
          const std::uint32_t* bp = s.pack_b + (jr / nr) * groups * nr;
          for (int64_t ir = 0; ir < mb; ir += mr) {
            const int mv = static_cast<int>(std::min<int64_t>(mr, mb - ir));
            const std::uint32_t* ap = s.pack_a + (ir / mr) * groups * mr;
            const CTile ct = c_tile(g, s.acc, p.nc, blk.m0, jc, ic + ir, jc + jr);
            void* cp = ct.c;
            const int64_t ldc = ct.ldc;
            // A bf16 C's old values join in the epilogue's rounding.
            const float beta = bf16_out ? (first ? 0.0f : 1.0f) : (first ? g.beta : 1.0f);
            if (direct != nullptr) {
              kernels::LowpDirectArgs d{};
              d.k = kb;
              d.a = ap;
              d.b = b_bytes + static_cast<std::size_t>(pc * g.b.rs + jc + jr) * eb;
              d.ldb = g.b.rs;
              d.c = cp;
              d.ldc = ldc;
              d.alpha = g.alpha;
              d.beta = beta;
              d.ibeta = first ? g.ibeta : 1;
              // B's column sums once per depth block: by the first row tile.
              d.colsum = need_colsum && ic == blk.m0 && ir == 0 ? s.colsum + jr : nullptr;
              d.n = nv;
              direct->get(mv, swapped, g.b.flip)(d);
            } else if (tile.fp32 != nullptr) {
              kernels::UKernelArgs u{};
              u.k = groups;
              u.a = reinterpret_cast<const float*>(ap);
              u.a_stride = mr;
              u.b = reinterpret_cast<const float*>(bp);
              u.ldb = nr;
              u.c = static_cast<float*>(cp);
              u.ldc = ldc;
              u.alpha = g.alpha;
              u.beta = beta;
              u.n = nv;
              tile.fp32->get(kernels::AMode::ColUnit, mv)(u);
            } else {
              kernels::LowpArgs x{};
              x.groups = groups;
              x.a = ap;
              x.b = bp;
              x.c = cp;
              x.ldc = ldc;
              x.alpha = g.alpha;
              x.beta = beta;
              x.ibeta = first ? g.ibeta : 1;
              x.n = nv;
              tile.get(mv, swapped)(x);
            }
          }
        }
      }
    }
    if (int8 && (need_colsum || need_rowsum))
      compensate(g, blk.m0, blk.m1, jc, jc + nb, s.rowsum, s.colsum, s.zb);
    if (bf16_out) round_to_bf16(g, ks, blk.m0, blk.m1, jc, nb, s.acc, p.nc);
  }
}

}  // namespace

bool lowp_trivial(const LowpProblem& g) noexcept {
  if (g.m == 0 || g.n == 0) return true;
  const bool int8 = g.dtype() == DType::U8S8;
  if (g.k > 0 && (int8 || g.alpha != 0.0f)) return false;
  for (int64_t i = 0; i < g.m; ++i) {
    if (int8) {
      auto* row = static_cast<std::int32_t*>(g.c) + i * g.ldc;
      for (int64_t j = 0; j < g.n; ++j)
        row[j] = g.ibeta == 0 ? 0
                              : static_cast<std::int32_t>(u32(g.ibeta) * u32(row[j]));
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
  const int threads = p.pm * p.pn;
  // The plan must be for this table (see plan_matches in executor.cpp): a packed tile run
  // with another tile's mr x nr would leave part of C unwritten and still report Ok.
  if (p.pk != 1 || p.pm < 1 || p.pn < 1 || p.mc < 1 || p.nc < 1 || p.kc < 1 || p.tile < 0 ||
      static_cast<std::size_t>(p.tile) >= ks.tiles.size())
    return Status::InternalError;
  const kernels::LowpTile& tile = ks.tiles[static_cast<std::size_t>(p.tile)];
  if (!p.is_dot() && p.pack_b && (p.mr != tile.mr || p.nr != tile.nr)) return Status::InternalError;
  if (p.is_dot() && (ks.dot == nullptr || g.a.cs != 1 || g.b.rs != 1 || p.mr != kernels::kLowpDotMr ||
                p.nr != kernels::kLowpDotNr))
    return Status::InternalError;
  if (!p.is_dot() && !p.pack_b && (ks.direct_b == nullptr || g.b.cs != 1 || p.mr != ks.direct_b->mr ||
                    p.nr != ks.direct_b->nr))
    return Status::InternalError;
  const int64_t kc = std::min(p.kc, g.k);
  const int64_t groups = ceil_div(kc, ks.group);
  const int64_t m_t = std::min(g.m, ceil_div(ceil_div(g.m, p.mr), p.pm) * p.mr);
  // A dot plan packs nothing; its column block is a thread's whole share of N.
  const int64_t n_t = std::min(g.n, ceil_div(ceil_div(g.n, p.nr), p.pn) * p.nr);
  const int64_t nc = p.is_dot() ? n_t : p.nc;
  const auto pa = static_cast<std::size_t>(p.is_dot() ? 0 : round_up(std::min(p.mc, m_t), p.mr) * groups);
  const auto pb = static_cast<std::size_t>(p.is_dot() ? 0 : round_up(std::min(p.nc, g.n), p.nr) * groups);
  const auto cs = static_cast<std::size_t>(g.dtype() == DType::U8S8 ? nc : 0);
  const auto rs = static_cast<std::size_t>(g.dtype() == DType::U8S8 ? m_t : 0);
  const auto acc = static_cast<std::size_t>(g.bf16_out() ? m_t * nc : 0);
  auto up16 = [](std::size_t v) { return (v + 15) / 16 * 16; };
  const std::size_t per_thread = up16(pa) + up16(pb) + 2 * up16(cs) + up16(rs) + up16(acc);
  // At least one line: a dot plan with an fp32 C needs no scratch, and reserve(0) is null.
  float* ws = Workspace::local().reserve(std::max<std::size_t>(16, per_thread * static_cast<std::size_t>(threads)));
  if (ws == nullptr) return Status::OutOfMemory;

  pool.run(threads, [&](int tid) {
    Block blk{};
    split(g.m, p.mr, p.pm, tid / p.pn, blk.m0, blk.m1);
    split(g.n, p.nr, p.pn, tid % p.pn, blk.n0, blk.n1);
    if (blk.m0 >= blk.m1 || blk.n0 >= blk.n1) return;
    auto* base = reinterpret_cast<std::uint32_t*>(ws + per_thread * static_cast<std::size_t>(tid));
    Scratch s{};
    s.pack_a = base;
    s.pack_b = base + up16(pa);
    s.colsum = reinterpret_cast<std::int32_t*>(s.pack_b + up16(pb));
    s.rowsum = s.colsum + up16(cs);
    s.zb = reinterpret_cast<std::uint32_t*>(s.rowsum + up16(rs));
    s.acc = reinterpret_cast<float*>(s.zb + up16(cs));
    if (p.is_dot())
      run_dot_block(g, ks, blk, s);
    else
      run_block(p, g, ks, blk, s);
  });
  return Status::Ok;
}

}  // namespace adaptcore
