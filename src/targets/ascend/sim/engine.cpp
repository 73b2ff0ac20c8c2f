#include "targets/ascend/sim/engine.hpp"

#include <algorithm>

#include "core/enum_names.hpp"

namespace adaptcore::ascend::sim {
namespace {

using Clock = std::array<uint32_t, kPipes>;

int pipe_index(Pipe p) { return static_cast<int>(p); }

Pipe pipe_of(Op op) {
  switch (op) {
    case Op::GmToL1: return Pipe::Mte2;
    case Op::L1ToL0: return Pipe::Mte1;
    case Op::Mmad: return Pipe::Cube;
    case Op::L0CToGm: return Pipe::Fix;
    case Op::GmToUb: return Pipe::Mte2;
    case Op::UbToGm: return Pipe::Mte3;
    default: return Pipe::Mte2;
  }
}

int64_t capacity(const AscendProfile& hw, Mem m) {
  switch (m) {
    case Mem::L1: return hw.l1_bytes;
    case Mem::L0A: return hw.l0a_bytes;
    case Mem::L0B: return hw.l0b_bytes;
    case Mem::L0C: return hw.l0c_bytes;
    case Mem::Ub: return hw.ub_bytes;
  }
  return 0;
}

int64_t alignment(const AscendProfile& hw, Mem m) {
  switch (m) {
    case Mem::L1: return hw.align_l1;
    case Mem::L0A:
    case Mem::L0B: return hw.align_l0ab;
    case Mem::L0C: return hw.align_l0c;
    case Mem::Ub: return hw.align_ub;
  }
  return 1;
}

// Per buffer: the last write (pipe, sequence number) and the last read by each pipe.
struct Access {
  int writer = -1;
  uint32_t write_seq = 0;
  Clock read_seq{};
};

struct FlagState {
  bool set = false;
  double time = 0;
  Clock clock{};
};

}  // namespace

const char* to_string(Pipe p) noexcept {
  using enum Pipe;
  return name_of(p, {{Mte2, "MTE2"}, {Mte1, "MTE1"}, {Cube, "M"}, {Fix, "FIX"}, {Mte3, "MTE3"}});
}

const char* to_string(Mem m) noexcept {
  using enum Mem;
  return name_of(m, {{L1, "L1"}, {L0A, "L0A"}, {L0B, "L0B"}, {L0C, "L0C"}, {Ub, "UB"}});
}

Engine::Engine(const AscendProfile& hw, InDType dtype, int active_cores) : hw_(hw), dtype_(dtype) {
  const double cores = std::max(1, active_cores);
  hbm_core_gbs_ = hw.hbm_gbs / cores;
  l2_core_gbs_ = hw.l2_gbs / cores;
  mte2_gbs_ = hw.gm_to_l1_bytes_per_cycle * hw.freq_ghz;
  mte1_gbs_ = hw.l1_to_l0_bytes_per_cycle * hw.freq_ghz;
  fix_gbs_ = hw.l0c_to_gm_bytes_per_cycle * hw.freq_ghz;
  ub_gbs_ = hw.ub_bytes_per_cycle * hw.freq_ghz;
  cycle_ns_ = 1.0 / hw.freq_ghz;
}

double Engine::duration_ns(const Instr& in) const noexcept {
  const double e = elem_bytes(dtype_);
  const double overhead = hw_.move_latency_cycles * cycle_ns_ +
                          static_cast<double>(in.segments) * hw_.gm_row_overhead_cycles * cycle_ns_;
  switch (in.op) {
    case Op::GmToL1: {
      const double shared = in.from_l2 ? l2_core_gbs_ : hbm_core_gbs_;
      return overhead + static_cast<double>(in.gm_bytes) / std::min(mte2_gbs_, shared);
    }
    case Op::GmToUb:
    case Op::UbToGm: {
      const double shared = in.from_l2 ? l2_core_gbs_ : hbm_core_gbs_;
      return overhead + static_cast<double>(in.gm_bytes) / std::min(ub_gbs_, shared);
    }
    case Op::L1ToL0: return static_cast<double>(in.rows_pad) * in.cols_pad * e / mte1_gbs_;
    case Op::Mmad: {
      const int ck = dtype_ == InDType::Int8 ? hw_.cube_k_int8 : hw_.cube_k_fp16;
      const double cycles = static_cast<double>(in.rows_pad / hw_.cube_m) *
                            static_cast<double>(in.cols_pad / hw_.cube_n) *
                            static_cast<double>(in.depth_pad / ck);
      return cycles * cycle_ns_;
    }
    case Op::L0CToGm:
      // C rows are written back through L2 (write-back), at the FixPipe's rate or the core's
      // share of L2.
      return overhead + static_cast<double>(in.gm_bytes) / std::min(fix_gbs_, l2_core_gbs_);
    default: return 0;
  }
}

std::string Engine::check_static(const CoreProgram& prog) const {
  const auto& bufs = prog.buffers;
  if (bufs.size() > 32000) return "too many buffers";
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    const BufferDecl& b = bufs[i];
    const std::string name = std::string(to_string(b.mem)) + " buffer " + std::to_string(i);
    if (b.offset < 0 || b.bytes <= 0) return name + ": negative offset or empty";
    if (b.offset % alignment(hw_, b.mem) != 0)
      return "alignment: " + name + " starts at byte " + std::to_string(b.offset) +
             ", not a multiple of " + std::to_string(alignment(hw_, b.mem));
    if (b.offset + b.bytes > capacity(hw_, b.mem))
      return "capacity: " + name + " ends at byte " + std::to_string(b.offset + b.bytes) +
             ", beyond the " + std::to_string(capacity(hw_, b.mem)) + "-byte " + to_string(b.mem);
    for (std::size_t j = 0; j < i; ++j)
      if (bufs[j].mem == b.mem && bufs[j].offset < b.offset + b.bytes &&
          b.offset < bufs[j].offset + bufs[j].bytes)
        return "capacity: " + name + " overlaps buffer " + std::to_string(j);
  }
  const int64_t e = elem_bytes(dtype_);
  const int c0 = c0_elems(dtype_);
  const int ck = dtype_ == InDType::Int8 ? hw_.cube_k_int8 : hw_.cube_k_fp16;
  auto buf = [&](int id, Mem want, const BufferDecl*& out) -> bool {
    if (id < 0 || static_cast<std::size_t>(id) >= bufs.size() ||
        bufs[static_cast<std::size_t>(id)].mem != want)
      return false;
    out = &bufs[static_cast<std::size_t>(id)];
    return true;
  };
  for (std::size_t i = 0; i < prog.instrs.size(); ++i) {
    const Instr& in = prog.instrs[i];
    const std::string at = "instruction " + std::to_string(i) + ": ";
    if (in.op == Op::SetFlag || in.op == Op::WaitFlag) {
      if (in.peer == in.pipe) return at + "a flag between a pipe and itself";
      if (in.event >= hw_.max_event_ids) return at + "event id beyond the device's event ids";
      continue;
    }
    if (in.pipe != pipe_of(in.op)) return at + "instruction issued to the wrong pipe";
    if (in.rows_pad % 16 != 0 || in.rows < 0 || in.rows > in.rows_pad || in.cols < 0 ||
        in.cols > in.cols_pad)
      return "alignment: " + at + "block not padded to whole fractals";
    const BufferDecl* d = nullptr;
    const BufferDecl* s = nullptr;
    const BufferDecl* s2 = nullptr;
    switch (in.op) {
      case Op::GmToL1:
        if (!buf(in.dst, Mem::L1, d)) return at + "GM->L1 needs an L1 destination";
        if (in.cols_pad % c0 != 0) return "alignment: " + at + "k not padded to C0";
        if (int64_t{in.rows_pad} * in.cols_pad * e > d->bytes)
          return "capacity: " + at + "block larger than its L1 buffer";
        break;
      case Op::L1ToL0: {
        const Mem want = in.operand == Operand::A ? Mem::L0A : Mem::L0B;
        if (!buf(in.src, Mem::L1, s) || !buf(in.dst, want, d))
          return at + "L1->L0 needs an L1 source and an L0A/L0B destination";
        if (in.cols_pad % c0 != 0 || in.col0 % c0 != 0)
          return "alignment: " + at + "slice not aligned to C0";
        if (int64_t{in.rows_pad} * in.cols_pad * e > d->bytes)
          return "capacity: " + at + "slice larger than its L0 buffer";
        if ((in.col0 + in.cols_pad) * in.rows_pad * e > s->bytes)
          return "capacity: " + at + "slice reads beyond its L1 buffer";
        break;
      }
      case Op::Mmad:
        if (!buf(in.src, Mem::L0A, s) || !buf(in.src2, Mem::L0B, s2) || !buf(in.dst, Mem::L0C, d))
          return at + "mmad needs L0A, L0B and L0C buffers";
        if (in.cols_pad % 16 != 0 || in.depth_pad % ck != 0 || in.depth_pad <= 0)
          return "alignment: " + at + "mmad extents not whole fractals";
        if (int64_t{in.rows_pad} * in.depth_pad * e > s->bytes ||
            int64_t{in.cols_pad} * in.depth_pad * e > s2->bytes)
          return "capacity: " + at + "mmad reads beyond an L0A/L0B buffer";
        if (int64_t{in.rows_pad} * in.cols_pad * 4 > d->bytes)
          return "capacity: " + at + "mmad writes beyond its L0C buffer";
        break;
      case Op::L0CToGm:
        if (!buf(in.src, Mem::L0C, s)) return at + "L0C->GM needs an L0C source";
        if (in.cols_pad % 16 != 0 || int64_t{in.rows_pad} * in.cols_pad * 4 > s->bytes)
          return "capacity: " + at + "reads beyond its L0C buffer";
        break;
      case Op::GmToUb:
        if (!buf(in.dst, Mem::Ub, d)) return at + "GM->UB needs a UB destination";
        if (int64_t{in.rows_pad} * in.cols_pad * e > d->bytes)
          return "capacity: " + at + "rows larger than their UB buffer";
        break;
      case Op::UbToGm:
        if (!buf(in.src, Mem::Ub, s)) return at + "UB->GM needs a UB source";
        if (int64_t{in.rows_pad} * in.cols_pad * (in.operand == Operand::C ? 4 : e) > s->bytes)
          return "capacity: " + at + "reads beyond its UB buffer";
        break;
      default: return at + "unknown instruction";
    }
  }
  return {};
}

CoreRun Engine::run(const CoreProgram& prog, InstrSink* sink) {
  CoreRun r;
  r.error = check_static(prog);
  if (!r.error.empty()) {
    r.ok = false;
    return r;
  }
  for (auto& q : queues_) q.clear();
  for (std::size_t i = 0; i < prog.instrs.size(); ++i)
    queues_[static_cast<std::size_t>(pipe_index(prog.instrs[i].pipe))].push_back(
        static_cast<uint32_t>(i));

  std::array<double, kPipes> ready{};
  std::array<Clock, kPipes> clock{};
  std::array<std::size_t, kPipes> pc{};
  std::vector<Access> access(prog.buffers.size());
  std::vector<FlagState> flags(static_cast<std::size_t>(kPipes * kPipes * hw_.max_event_ids));
  auto flag = [&](Pipe from, Pipe to, int id) -> FlagState& {
    return flags[static_cast<std::size_t>(
        (pipe_index(from) * kPipes + pipe_index(to)) * hw_.max_event_ids + id)];
  };
  auto fail = [&](const std::string& why) {
    r.ok = false;
    r.error = why;
    return r;
  };
  // A read of buffer b on pipe p must be ordered after its last write on another pipe.
  auto read = [&](int b, int p, const Instr& in) -> bool {
    Access& a = access[static_cast<std::size_t>(b)];
    if (a.writer >= 0 && a.writer != p &&
        clock[static_cast<std::size_t>(p)][static_cast<std::size_t>(a.writer)] < a.write_seq) {
      r.error = std::string("hazard: ") + to_string(in.pipe) + " reads " +
                to_string(prog.buffers[static_cast<std::size_t>(b)].mem) + " buffer " +
                std::to_string(b) + " before " + to_string(static_cast<Pipe>(a.writer)) +
                " finished writing it (missing wait_flag)";
      return false;
    }
    a.read_seq[static_cast<std::size_t>(p)] =
        clock[static_cast<std::size_t>(p)][static_cast<std::size_t>(p)];
    return true;
  };
  // A write must be ordered after the last write and after every read on other pipes.
  auto write = [&](int b, int p, const Instr& in) -> bool {
    Access& a = access[static_cast<std::size_t>(b)];
    const Clock& mine = clock[static_cast<std::size_t>(p)];
    bool ok =
        !(a.writer >= 0 && a.writer != p && mine[static_cast<std::size_t>(a.writer)] < a.write_seq);
    for (int q = 0; q < kPipes && ok; ++q)
      if (q != p && mine[static_cast<std::size_t>(q)] < a.read_seq[static_cast<std::size_t>(q)])
        ok = false;
    if (!ok) {
      r.error = std::string("hazard: ") + to_string(in.pipe) + " overwrites " +
                to_string(prog.buffers[static_cast<std::size_t>(b)].mem) + " buffer " +
                std::to_string(b) + " before its previous user finished (missing wait_flag)";
      return false;
    }
    a.writer = p;
    a.write_seq = mine[static_cast<std::size_t>(p)];
    a.read_seq = Clock{};
    return true;
  };

  std::size_t remaining = prog.instrs.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int p = 0; p < kPipes; ++p) {
      auto& q = queues_[static_cast<std::size_t>(p)];
      auto& at = pc[static_cast<std::size_t>(p)];
      auto& t = ready[static_cast<std::size_t>(p)];
      auto& vc = clock[static_cast<std::size_t>(p)];
      while (at < q.size()) {
        const Instr& in = prog.instrs[q[at]];
        if (in.op == Op::WaitFlag) {
          FlagState& f = flag(in.peer, in.pipe, in.event);
          if (!f.set) break;  // blocked: try the other pipes
          t = std::max(t, f.time);
          for (int k = 0; k < kPipes; ++k)
            vc[static_cast<std::size_t>(k)] =
                std::max(vc[static_cast<std::size_t>(k)], f.clock[static_cast<std::size_t>(k)]);
          f.set = false;
        } else if (in.op == Op::SetFlag) {
          FlagState& f = flag(in.pipe, in.peer, in.event);
          if (f.set)
            return fail(std::string("flag: ") + to_string(in.pipe) + " sets event " +
                        std::to_string(in.event) + " to " + to_string(in.peer) +
                        " again before it was waited for");
          f.set = true;
          f.time = t;
          f.clock = vc;
        } else {
          ++vc[static_cast<std::size_t>(p)];
          bool ok = true;
          switch (in.op) {
            case Op::GmToL1:
            case Op::GmToUb: ok = write(in.dst, p, in); break;
            case Op::L1ToL0: ok = read(in.src, p, in) && write(in.dst, p, in); break;
            case Op::Mmad:
              ok = read(in.src, p, in) && read(in.src2, p, in) &&
                   (in.init || read(in.dst, p, in)) && write(in.dst, p, in);
              break;
            case Op::L0CToGm:
            case Op::UbToGm: ok = read(in.src, p, in); break;
            default: break;
          }
          if (!ok) {
            r.ok = false;
            return r;
          }
          const double d = duration_ns(in);
          t += d;
          r.busy_ns[static_cast<std::size_t>(p)] += d;
          if (sink != nullptr) sink->execute(in, prog.buffers);
        }
        ++at;
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) {
      for (int p = 0; p < kPipes; ++p) {
        const auto& q = queues_[static_cast<std::size_t>(p)];
        if (pc[static_cast<std::size_t>(p)] < q.size()) {
          const Instr& in = prog.instrs[q[pc[static_cast<std::size_t>(p)]]];
          return fail(std::string("deadlock: ") + to_string(in.pipe) + " waits for event " +
                      std::to_string(in.event) + " from " + to_string(in.peer) +
                      " that is never set");
        }
      }
    }
  }
  for (const FlagState& f : flags)
    if (f.set)
      return fail("flag: an event is still set when the kernel ends (unbalanced set/wait)");
  r.end_ns = *std::max_element(ready.begin(), ready.end());
  return r;
}

}  // namespace adaptcore::ascend::sim
