#include "targets/ascend/sim/program_builder.hpp"

#include <algorithm>
#include <numeric>

#include "targets/ascend/candidates.hpp"

namespace adaptcore::ascend::sim {
namespace {

int32_t i32(int64_t v) { return static_cast<int32_t>(v); }

// Bytes the memory system moves for `segments` reads of seg_bytes each, `pitch` bytes apart,
// the first starting at start_byte: every touched sector is moved whole. With a pitch that is not
// a multiple of the sector, row starts drift over the sector: the expected waste is used.
int64_t sector_bytes(int64_t start, int64_t seg, int64_t pitch, int64_t segments, int64_t sector) {
  if (segments <= 1 || pitch % sector == 0)
    return ceil_div(start % sector + seg, sector) * sector * std::max<int64_t>(1, segments);
  const int64_t g = std::gcd(pitch % sector, sector);
  return ceil_div(seg + sector - g, sector) * sector * segments;
}

Instr flag(Op op, Pipe pipe, Pipe peer, int event) {
  Instr in;
  in.op = op;
  in.pipe = pipe;
  in.peer = peer;
  in.event = static_cast<std::uint8_t>(event);
  return in;
}

// Buffers packed one after another at each memory's alignment.
struct Allocator {
  const AscendProfile& hw;
  std::vector<BufferDecl>& out;
  int64_t next[5] = {0, 0, 0, 0, 0};
  int16_t add(Mem m, int64_t bytes) {
    const int64_t align = m == Mem::L0A || m == Mem::L0B ? hw.align_l0ab
                          : m == Mem::L0C                ? hw.align_l0c
                          : m == Mem::Ub                 ? hw.align_ub
                                                         : hw.align_l1;
    int64_t& at = next[static_cast<int>(m)];
    at = round_up(at, align);
    out.push_back({m, at, bytes});
    at += bytes;
    return static_cast<int16_t>(out.size() - 1);
  }
};

}  // namespace

ProgramBuilder::ProgramBuilder(const AscendProfile& hw, const AscendShape& s, const TilingPlan& p)
    : hw_(hw), s_(s), p_(p) {
  const int c0 = c0_elems(p.dtype);
  if (p.base_m <= 0 || p.base_n <= 0 || p.base_k <= 0 || p.step_k <= 0 || p.used_cores <= 0 ||
      p.split_k <= 0 || p.swizzle <= 0)
    error_ = "plan: a size or count is not positive";
  else if (p.base_m % 16 != 0 || p.base_n % 16 != 0 || p.base_k % c0 != 0)
    error_ = "alignment: base block " + std::to_string(p.base_m) + "x" + std::to_string(p.base_n) +
             "x" + std::to_string(p.base_k) + " is not made of whole fractals (16 x 16 x " +
             std::to_string(c0) + ")";
  else if (p.used_cores > hw.ai_cores)
    error_ = "plan: uses " + std::to_string(p.used_cores) + " cores, the device has " +
             std::to_string(hw.ai_cores);
  else if (p.dtype != s.dtype)
    error_ = "plan: made for another input type";
  else if ((!p.relayout_a && s.pitch_a() > kMaxMovePitch) ||
           (!p.relayout_b && s.pitch_b() > kMaxMovePitch))
    error_ = "alignment: a GM->L1 move cannot read rows more than " +
             std::to_string(kMaxMovePitch) + " elements apart; the operand needs a relayout pass";
  if (!error_.empty()) return;
  cores_ = p.used_cores;
  split_work(s_, p_, cores_, units_);
  for (const auto& list : units_)
    for (const WorkUnit& u : list) zero_fill_ |= u.atomic;
  walk_l2();
}

Instr ProgramBuilder::gm_read(Operand op, int64_t row0, int64_t rows, int64_t k0,
                              int64_t klen) const {
  const int64_t e = elem_bytes(p_.dtype);
  const int c0 = c0_elems(p_.dtype);
  Instr in;
  in.op = Op::GmToL1;
  in.pipe = Pipe::Mte2;
  in.operand = op;
  in.row0 = row0;
  in.rows = i32(rows);
  in.rows_pad = i32(round_up(rows, 16));
  in.col0 = k0;
  in.cols = i32(klen);
  in.cols_pad = i32(round_up(klen, c0));
  const bool relayout = op == Operand::A ? p_.relayout_a : p_.relayout_b;
  const int64_t sector = hw_.gm_sector_bytes;
  if (relayout) {
    // The aligned fractal copy: each k-fractal column of the block is one contiguous run.
    in.segments = i32(in.cols_pad / c0);
    in.gm_bytes = int64_t{in.rows_pad} * in.cols_pad * e;
    return in;
  }
  // As stored: A is m x k (k contiguous) or k x m; B^T's rows n are B's columns.
  const bool k_contiguous = op == Operand::A ? !s_.trans_a : s_.trans_b;
  const int64_t pitch = (op == Operand::A ? s_.pitch_a() : s_.pitch_b()) * e;
  int64_t segs = k_contiguous ? rows : klen;
  int64_t seg = (k_contiguous ? klen : rows) * e;
  const int64_t start = k_contiguous ? row0 * pitch + k0 * e : k0 * pitch + row0 * e;
  if (seg == pitch) {  // whole stored rows, back to back: one run
    seg *= segs;
    segs = 1;
  }
  in.segments = i32(segs);
  in.gm_bytes = sector_bytes(start, seg, pitch, segs, sector);
  return in;
}

void ProgramBuilder::walk_l2() {
  const int64_t bk = p_.base_k;
  const int64_t kiters = ceil_div(s_.k, bk);
  const int64_t tiles_m = ceil_div(s_.m, p_.base_m), tiles_n = ceil_div(s_.n, p_.base_n);
  constexpr int64_t kNever = -1;
  std::vector<int64_t> stamp_a(static_cast<std::size_t>(tiles_m * kiters), kNever);
  std::vector<int64_t> stamp_b(static_cast<std::size_t>(tiles_n * kiters), kNever);
  int64_t now = 0;
  const int64_t e = elem_bytes(p_.dtype);
  // A relayout pass wrote the copies just before: they are in L2 as far as they fit.
  if (p_.relayout_a) {
    std::fill(stamp_a.begin(), stamp_a.end(), 0);
    now += s_.m * s_.k * e;
  }
  if (p_.relayout_b) {
    std::fill(stamp_b.begin(), stamp_b.end(), now);
    now += s_.n * s_.k * e;
  }
  auto touch = [&](std::vector<int64_t>& st, int64_t t, int64_t k0, int64_t klen,
                   int64_t bytes) -> bool {
    const int64_t first = k0 / bk, last = ceil_div(k0 + klen, bk);
    bool hit = true;
    for (int64_t i = first; i < last; ++i) {
      const int64_t v = st[static_cast<std::size_t>(t * kiters + i)];
      hit = hit && v != kNever && now - v <= hw_.l2_bytes;
    }
    now += bytes;
    for (int64_t i = first; i < last; ++i) st[static_cast<std::size_t>(t * kiters + i)] = now;
    return hit;
  };
  l2_hits_.assign(units_.size(), {});
  std::size_t rounds = 0;
  for (const auto& list : units_) rounds = std::max(rounds, list.size());
  const int64_t chunk = bk * p_.step_k;
  const std::size_t cores = units_.size();
  // Cores run concurrently: walk their reads chunk by chunk (the j-th GM->L1 chunk of every
  // core's current block before any core's (j+1)-th), each time in a fresh pseudo-random core
  // order, so the misses on data several cores share spread evenly over them (whoever arrives
  // first pays the HBM read) instead of always landing on the lowest-numbered core.
  std::vector<std::size_t> order(cores);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::uint64_t lcg = 0x9e3779b97f4a7c15ull;
  for (std::size_t r = 0; r < rounds; ++r) {
    int64_t most = 0;
    for (std::size_t c = 0; c < cores; ++c)
      if (r < units_[c].size())
        most = std::max(most, ceil_div(units_[c][r].k1 - units_[c][r].k0, chunk));
    for (int64_t j = 0; j < most; ++j) {
      for (std::size_t i = cores; i > 1; --i) {  // Fisher-Yates with a fixed-seed LCG
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        std::swap(order[i - 1], order[static_cast<std::size_t>((lcg >> 33) % i)]);
      }
      for (std::size_t i = 0; i < cores; ++i) {
        const std::size_t c = order[i];
        if (r >= units_[c].size()) continue;
        const WorkUnit& u = units_[c][r];
        const int64_t k0 = u.k0 + j * chunk;
        if (k0 >= u.k1) continue;
        const int64_t m0 = int64_t{u.tm} * p_.base_m, n0 = int64_t{u.tn} * p_.base_n;
        const int64_t mlen = std::min<int64_t>(p_.base_m, s_.m - m0);
        const int64_t nlen = std::min<int64_t>(p_.base_n, s_.n - n0);
        const int64_t klen = std::min(chunk, u.k1 - k0);
        const Instr a = gm_read(Operand::A, m0, mlen, k0, klen);
        l2_hits_[c].push_back(touch(stamp_a, u.tm, k0, klen, a.gm_bytes) ? 1 : 0);
        const Instr b = gm_read(Operand::B, n0, nlen, k0, klen);
        l2_hits_[c].push_back(touch(stamp_b, u.tn, k0, klen, b.gm_bytes) ? 1 : 0);
        if (k0 + chunk >= u.k1) now += mlen * nlen * 4;  // the C block written back through L2
      }
    }
  }
}

void ProgramBuilder::build_matmul(int core, CoreProgram& out) const {
  out.buffers.clear();
  out.instrs.clear();
  const int64_t e = elem_bytes(p_.dtype);
  const int c0 = c0_elems(p_.dtype);
  const int S = p_.db_l1 ? 2 : 1, D = p_.db_l0 ? 2 : 1, C = p_.db_l0c ? 2 : 1;
  const int64_t bk = p_.base_k, chunk = bk * p_.step_k;
  Allocator alloc{hw_, out.buffers};
  int16_t a1[2], b1[2], a2[2], b2[2], co[2];
  for (int i = 0; i < S; ++i) a1[i] = alloc.add(Mem::L1, p_.base_m * chunk * e);
  for (int i = 0; i < S; ++i) b1[i] = alloc.add(Mem::L1, p_.base_n * chunk * e);
  for (int i = 0; i < D; ++i) a2[i] = alloc.add(Mem::L0A, p_.base_m * bk * e);
  for (int i = 0; i < D; ++i) b2[i] = alloc.add(Mem::L0B, p_.base_n * bk * e);
  for (int i = 0; i < C; ++i) co[i] = alloc.add(Mem::L0C, int64_t{p_.base_m} * p_.base_n * 4);

  auto& v = out.instrs;
  // Every buffer starts free: the consumer side pre-sets the "free" events.
  for (int i = 0; i < S; ++i) v.push_back(flag(Op::SetFlag, Pipe::Mte1, Pipe::Mte2, i));
  for (int i = 0; i < D; ++i) v.push_back(flag(Op::SetFlag, Pipe::Cube, Pipe::Mte1, i));
  for (int i = 0; i < C; ++i) v.push_back(flag(Op::SetFlag, Pipe::Fix, Pipe::Cube, i));
  int64_t stage_ctr = 0, slot_ctr = 0, block_ctr = 0;
  std::size_t move = 0;
  const auto& hits = l2_hits_[static_cast<std::size_t>(core)];
  for (const WorkUnit& u : units_[static_cast<std::size_t>(core)]) {
    const int64_t m0 = int64_t{u.tm} * p_.base_m, n0 = int64_t{u.tn} * p_.base_n;
    const int64_t mlen = std::min<int64_t>(p_.base_m, s_.m - m0);
    const int64_t nlen = std::min<int64_t>(p_.base_n, s_.n - n0);
    const int32_t mpad = i32(round_up(mlen, 16)), npad = i32(round_up(nlen, 16));
    const int c = static_cast<int>(block_ctr++ % C);
    v.push_back(flag(Op::WaitFlag, Pipe::Cube, Pipe::Fix, c));
    bool first = true;
    for (int64_t k0 = u.k0; k0 < u.k1; k0 += chunk) {
      const int64_t klen = std::min(chunk, u.k1 - k0);
      const int s = static_cast<int>(stage_ctr++ % S);
      v.push_back(flag(Op::WaitFlag, Pipe::Mte2, Pipe::Mte1, s));
      Instr a = gm_read(Operand::A, m0, mlen, k0, klen);
      a.dst = a1[s];
      a.from_l2 = hits[move++] != 0;
      v.push_back(a);
      Instr b = gm_read(Operand::B, n0, nlen, k0, klen);
      b.dst = b1[s];
      b.from_l2 = hits[move++] != 0;
      v.push_back(b);
      v.push_back(flag(Op::SetFlag, Pipe::Mte2, Pipe::Mte1, s));
      v.push_back(flag(Op::WaitFlag, Pipe::Mte1, Pipe::Mte2, s));
      for (int64_t kk = 0; kk < klen; kk += bk) {
        const int64_t slen = std::min(bk, klen - kk);
        const int32_t spad = i32(round_up(slen, c0));
        const int d = static_cast<int>(slot_ctr++ % D);
        v.push_back(flag(Op::WaitFlag, Pipe::Mte1, Pipe::Cube, d));
        for (int which = 0; which < 2; ++which) {
          Instr l;
          l.op = Op::L1ToL0;
          l.pipe = Pipe::Mte1;
          l.operand = which == 0 ? Operand::A : Operand::B;
          l.src = which == 0 ? a1[s] : b1[s];
          l.dst = which == 0 ? a2[d] : b2[d];
          l.rows = i32(which == 0 ? mlen : nlen);
          l.rows_pad = which == 0 ? mpad : npad;
          l.col0 = kk;
          l.cols = i32(slen);
          l.cols_pad = spad;
          v.push_back(l);
        }
        v.push_back(flag(Op::SetFlag, Pipe::Mte1, Pipe::Cube, d));
        v.push_back(flag(Op::WaitFlag, Pipe::Cube, Pipe::Mte1, d));
        Instr mm;
        mm.op = Op::Mmad;
        mm.pipe = Pipe::Cube;
        mm.src = a2[d];
        mm.src2 = b2[d];
        mm.dst = co[c];
        mm.rows = i32(mlen);
        mm.cols = i32(nlen);
        mm.rows_pad = mpad;
        mm.cols_pad = npad;
        mm.depth_pad = spad;
        mm.init = first;
        first = false;
        v.push_back(mm);
        v.push_back(flag(Op::SetFlag, Pipe::Cube, Pipe::Mte1, d));
      }
      v.push_back(flag(Op::SetFlag, Pipe::Mte1, Pipe::Mte2, s));
    }
    v.push_back(flag(Op::SetFlag, Pipe::Cube, Pipe::Fix, c));
    v.push_back(flag(Op::WaitFlag, Pipe::Fix, Pipe::Cube, c));
    Instr w;
    w.op = Op::L0CToGm;
    w.pipe = Pipe::Fix;
    w.operand = Operand::C;
    w.src = co[c];
    w.row0 = m0;
    w.col0 = n0;
    w.rows = i32(mlen);
    w.cols = i32(nlen);
    w.rows_pad = mpad;
    w.cols_pad = npad;
    w.atomic = u.atomic;
    w.segments = i32(mlen);
    w.gm_bytes = sector_bytes((m0 * s_.n + n0) * 4, nlen * 4, s_.n * 4, mlen, hw_.gm_sector_bytes);
    v.push_back(w);
    v.push_back(flag(Op::SetFlag, Pipe::Fix, Pipe::Cube, c));
  }
  for (int i = 0; i < S; ++i) v.push_back(flag(Op::WaitFlag, Pipe::Mte2, Pipe::Mte1, i));
  for (int i = 0; i < D; ++i) v.push_back(flag(Op::WaitFlag, Pipe::Mte1, Pipe::Cube, i));
  for (int i = 0; i < C; ++i) v.push_back(flag(Op::WaitFlag, Pipe::Cube, Pipe::Fix, i));
}

void ProgramBuilder::build_prepass(int core, CoreProgram& out) const {
  out.buffers.clear();
  out.instrs.clear();
  const int64_t e = elem_bytes(p_.dtype);
  const int c0 = c0_elems(p_.dtype);
  const int64_t zero_bytes = round_up(hw_.ub_bytes / 6, hw_.align_ub);
  const int64_t half = (hw_.ub_bytes - zero_bytes) / 2 / hw_.align_ub * hw_.align_ub;
  Allocator alloc{hw_, out.buffers};
  const int16_t zero = alloc.add(Mem::Ub, zero_bytes);
  const int16_t ub[2] = {alloc.add(Mem::Ub, half), alloc.add(Mem::Ub, half)};
  auto& v = out.instrs;
  const int cores = hw_.ai_cores;
  int64_t chunk_id = 0, slot_ctr = 0;
  v.push_back(flag(Op::SetFlag, Pipe::Mte3, Pipe::Mte2, 0));
  v.push_back(flag(Op::SetFlag, Pipe::Mte3, Pipe::Mte2, 1));
  // Relayout: stored rows of the operand through UB into its padded fractal copy.
  for (int which = 0; which < 2; ++which) {
    const bool on = which == 0 ? p_.relayout_a : p_.relayout_b;
    if (!on) continue;
    const Operand op = which == 0 ? Operand::A : Operand::B;
    const bool trans = which == 0 ? s_.trans_a : s_.trans_b;
    const int64_t rows = which == 0 ? (trans ? s_.k : s_.m) : (trans ? s_.n : s_.k);
    const int64_t cols = which == 0 ? (trans ? s_.m : s_.k) : (trans ? s_.k : s_.n);
    const int64_t pitch = (which == 0 ? s_.pitch_a() : s_.pitch_b()) * e;
    const int64_t w = std::min(round_up(cols, c0), half / (16 * e) / c0 * c0);
    const int64_t h = std::max<int64_t>(16, half / (round_up(std::min(w, cols), c0) * e) / 16 * 16);
    for (int64_t r0 = 0; r0 < rows; r0 += h)
      for (int64_t q0 = 0; q0 < cols; q0 += w, ++chunk_id) {
        if (chunk_id % cores != core) continue;
        const int u = static_cast<int>(slot_ctr++ % 2);
        Instr in;
        in.op = Op::GmToUb;
        in.pipe = Pipe::Mte2;
        in.operand = op;
        in.dst = ub[u];
        in.row0 = r0;
        in.col0 = q0;
        in.rows = i32(std::min(h, rows - r0));
        in.cols = i32(std::min(w, cols - q0));
        in.rows_pad = i32(round_up(in.rows, 16));
        in.cols_pad = i32(round_up(in.cols, c0));
        in.segments = in.cols * e == pitch ? 1 : in.rows;
        in.gm_bytes = sector_bytes(r0 * pitch + q0 * e,
                                   int64_t{in.cols} * e * (in.segments == 1 ? in.rows : 1), pitch,
                                   in.segments, hw_.gm_sector_bytes);
        v.push_back(flag(Op::WaitFlag, Pipe::Mte2, Pipe::Mte3, u));
        v.push_back(in);
        v.push_back(flag(Op::SetFlag, Pipe::Mte2, Pipe::Mte3, u));
        v.push_back(flag(Op::WaitFlag, Pipe::Mte3, Pipe::Mte2, u));
        Instr o = in;
        o.op = Op::UbToGm;
        o.pipe = Pipe::Mte3;
        o.dst = -1;
        o.src = ub[u];
        o.segments = in.cols_pad / c0;
        o.gm_bytes = int64_t{in.rows_pad} * in.cols_pad * e;
        v.push_back(o);
        v.push_back(flag(Op::SetFlag, Pipe::Mte3, Pipe::Mte2, u));
      }
  }
  v.push_back(flag(Op::WaitFlag, Pipe::Mte2, Pipe::Mte3, 0));
  v.push_back(flag(Op::WaitFlag, Pipe::Mte2, Pipe::Mte3, 1));
  if (!zero_fill_) return;
  // Zero-fill the C blocks that are accumulated atomically, from a UB block of zeros.
  const int64_t tiles_n = ceil_div(s_.n, p_.base_n);
  std::vector<std::uint8_t> atomic_tile(
      static_cast<std::size_t>(ceil_div(s_.m, p_.base_m) * tiles_n), 0);
  for (const auto& list : units_)
    for (const WorkUnit& u : list)
      if (u.atomic) atomic_tile[static_cast<std::size_t>(u.tm * tiles_n + u.tn)] = 1;
  const int64_t w = std::min<int64_t>(p_.base_n, zero_bytes / (16 * 4) / 16 * 16);
  for (std::size_t t = 0; t < atomic_tile.size(); ++t) {
    if (atomic_tile[t] == 0) continue;
    const int64_t m0 = static_cast<int64_t>(t) / tiles_n * p_.base_m;
    const int64_t n0 = static_cast<int64_t>(t) % tiles_n * p_.base_n;
    const int64_t mlen = std::min<int64_t>(p_.base_m, s_.m - m0);
    const int64_t nlen = std::min<int64_t>(p_.base_n, s_.n - n0);
    for (int64_t q0 = 0; q0 < nlen; q0 += w) {
      const int64_t cw = std::min(w, nlen - q0);
      const int64_t h = std::max<int64_t>(16, zero_bytes / (round_up(cw, 16) * 4) / 16 * 16);
      for (int64_t r0 = 0; r0 < mlen; r0 += h, ++chunk_id) {
        if (chunk_id % cores != core) continue;
        Instr z;
        z.op = Op::UbToGm;
        z.pipe = Pipe::Mte3;
        z.operand = Operand::C;
        z.src = zero;
        z.row0 = m0 + r0;
        z.col0 = n0 + q0;
        z.rows = i32(std::min(h, mlen - r0));
        z.cols = i32(cw);
        z.rows_pad = i32(round_up(z.rows, 16));
        z.cols_pad = i32(round_up(cw, 16));
        z.segments = z.rows;
        z.gm_bytes = sector_bytes(((m0 + r0) * s_.n + n0 + q0) * 4, cw * 4, s_.n * 4, z.rows,
                                  hw_.gm_sector_bytes);
        v.push_back(z);
      }
    }
  }
}

}  // namespace adaptcore::ascend::sim
