// The Ascend plan simulator: plans and programs built to break a rule (capacity of L0A, L0B,
// L0C, L1 and UB, alignment, a missing wait flag, unbalanced flags, deadlock) are rejected with
// the rule named; legal plans compute the right result on real data, including unaligned
// M/N/K, transposed and strided operands, relayout passes, split-K, stream-K, bf16 and int8.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "targets/ascend/candidates.hpp"
#include "targets/ascend/planner.hpp"
#include "targets/ascend/sim/data_exec.hpp"
#include "targets/ascend/sim/engine.hpp"
#include "targets/ascend/sim/program_builder.hpp"
#include "targets/ascend/sim/simulator.hpp"

namespace adaptcore::ascend {
namespace {

using sim::SimOptions;
using sim::SimResult;

AscendShape shape(int64_t m, int64_t n, int64_t k, InDType t = InDType::Fp16) {
  AscendShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.dtype = t;
  return s;
}

TilingPlan plan(int bm, int bn, int bk, int step, InDType t = InDType::Fp16) {
  TilingPlan p;
  p.dtype = t;
  p.base_m = bm;
  p.base_n = bn;
  p.base_k = bk;
  p.step_k = step;
  p.used_cores = 4;
  return p;
}

bool starts_with(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

SimResult run(const AscendShape& s, const TilingPlan& p, bool data = true) {
  return sim::simulate(AscendProfile{}, s, p, SimOptions{data, 3});
}

TEST(AscendSim, RejectsL0AOverflow) {
  // 256 x 128 fp16 double buffered: 128 KiB of a 64 KiB L0A.
  const SimResult r = run(shape(256, 64, 256), plan(256, 64, 128, 1), false);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(starts_with(r.error, "capacity: L0A")) << r.error;
}

TEST(AscendSim, RejectsL0BOverflow) {
  const SimResult r = run(shape(64, 256, 256), plan(64, 256, 128, 1), false);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(starts_with(r.error, "capacity: L0B")) << r.error;
}

TEST(AscendSim, RejectsL0COverflow) {
  TilingPlan p = plan(256, 256, 32, 1);  // 256 KiB of fp32 results in a 128 KiB L0C
  const SimResult r = run(shape(256, 256, 64), p, false);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(starts_with(r.error, "capacity: L0C")) << r.error;
  p = plan(128, 256, 32, 1);
  p.db_l0c = true;  // fits once, not twice
  EXPECT_TRUE(starts_with(run(shape(256, 256, 64), p, false).error, "capacity: L0C"));
}

TEST(AscendSim, RejectsL1Overflow) {
  // (128 + 128) x 64 x 16 stages x 2 bytes x 2 (ping-pong) = 1 MiB of a 512 KiB L1.
  const SimResult r = run(shape(128, 128, 4096), plan(128, 128, 64, 16), false);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(starts_with(r.error, "capacity: L1")) << r.error;
}

TEST(AscendSim, RejectsBlocksNotMadeOfFractals) {
  const SimResult r = run(shape(64, 64, 64), plan(24, 64, 32, 1), false);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(starts_with(r.error, "alignment: base block")) << r.error;
}

TEST(AscendSim, RejectsPitchBeyondTheMoveStride) {
  AscendShape s = shape(32, 32, 32);
  s.lda = 70000;
  EXPECT_TRUE(starts_with(run(s, plan(32, 32, 32, 1), false).error, "alignment: a GM->L1 move"));
  TilingPlan p = plan(32, 32, 32, 1);
  p.relayout_a = true;  // the relayout pass makes it legal
  const SimResult r = run(s, p, true);
  EXPECT_TRUE(r.ok) << r.error;
}

// Hand-built programs for the engine: one core, a few buffers.
struct Hand {
  AscendProfile hw;
  sim::CoreProgram prog;
  sim::CoreRun go() { return sim::Engine(hw, InDType::Fp16, 1).run(prog); }
};

sim::Instr gm_to_l1(int dst) {
  sim::Instr in;
  in.op = sim::Op::GmToL1;
  in.pipe = sim::Pipe::Mte2;
  in.dst = static_cast<int16_t>(dst);
  in.rows = in.rows_pad = 16;
  in.cols = in.cols_pad = 16;
  in.gm_bytes = 512;
  in.segments = 16;
  return in;
}

sim::Instr l1_to_l0a(int src, int dst) {
  sim::Instr in;
  in.op = sim::Op::L1ToL0;
  in.pipe = sim::Pipe::Mte1;
  in.operand = sim::Operand::A;
  in.src = static_cast<int16_t>(src);
  in.dst = static_cast<int16_t>(dst);
  in.rows = in.rows_pad = 16;
  in.cols = in.cols_pad = 16;
  return in;
}

sim::Instr flag(sim::Op op, sim::Pipe pipe, sim::Pipe peer, int id) {
  sim::Instr in;
  in.op = op;
  in.pipe = pipe;
  in.peer = peer;
  in.event = static_cast<std::uint8_t>(id);
  return in;
}

TEST(AscendSim, RejectsMisalignedBuffers) {
  Hand h;
  h.prog.buffers = {{sim::Mem::L0A, 256, 512}};  // L0A buffers start on 512-byte boundaries
  EXPECT_TRUE(starts_with(h.go().error, "alignment: L0A")) << h.go().error;
  h.prog.buffers = {{sim::Mem::L0C, 32, 1024}};  // L0C: 64 bytes
  EXPECT_TRUE(starts_with(h.go().error, "alignment: L0C"));
  h.prog.buffers = {{sim::Mem::L1, 16, 1024}};  // L1: 32 bytes
  EXPECT_TRUE(starts_with(h.go().error, "alignment: L1"));
  h.prog.buffers = {{sim::Mem::Ub, 8, 1024}};  // UB: 32 bytes
  EXPECT_TRUE(starts_with(h.go().error, "alignment: UB"));
  h.prog.buffers = {{sim::Mem::L1, 0, 1024}, {sim::Mem::L1, 512, 1024}};
  EXPECT_TRUE(starts_with(h.go().error, "capacity: L1 buffer 1 overlaps")) << h.go().error;
}

TEST(AscendSim, RejectsUbOverflow) {
  Hand h;
  h.prog.buffers = {{sim::Mem::Ub, 0, 192 * 1024 + 32}};
  EXPECT_TRUE(starts_with(h.go().error, "capacity: UB")) << h.go().error;
  // A move larger than its (legal) buffer is rejected too.
  h.prog.buffers = {{sim::Mem::Ub, 0, 1024}};
  sim::Instr in;
  in.op = sim::Op::GmToUb;
  in.pipe = sim::Pipe::Mte2;
  in.dst = 0;
  in.rows = in.rows_pad = 32;
  in.cols = in.cols_pad = 32;
  h.prog.instrs = {in};
  EXPECT_TRUE(starts_with(h.go().error, "capacity: instruction 0")) << h.go().error;
}

TEST(AscendSim, DetectsMissingWaitAsHazard) {
  Hand h;
  h.prog.buffers = {{sim::Mem::L1, 0, 512}, {sim::Mem::L0A, 0, 512}};
  // Ordered: MTE2 fills L1, tells MTE1, MTE1 waits, then reads.
  h.prog.instrs = {gm_to_l1(0), flag(sim::Op::SetFlag, sim::Pipe::Mte2, sim::Pipe::Mte1, 0),
                   flag(sim::Op::WaitFlag, sim::Pipe::Mte1, sim::Pipe::Mte2, 0), l1_to_l0a(0, 1)};
  const sim::CoreRun ok = h.go();
  EXPECT_TRUE(ok.ok) << ok.error;
  // Without the wait (and the set it would consume), MTE1 may read before the data arrives.
  h.prog.instrs = {gm_to_l1(0), l1_to_l0a(0, 1)};
  EXPECT_TRUE(starts_with(h.go().error, "hazard: MTE1 reads L1")) << h.go().error;
  // Write-after-read: MTE2 refills L1 while MTE1 may still be reading it. The two accesses are
  // unordered, so whichever the engine meets second is reported: both are this one race.
  h.prog.instrs = {gm_to_l1(0), flag(sim::Op::SetFlag, sim::Pipe::Mte2, sim::Pipe::Mte1, 0),
                   flag(sim::Op::WaitFlag, sim::Pipe::Mte1, sim::Pipe::Mte2, 0), l1_to_l0a(0, 1),
                   gm_to_l1(0)};
  const std::string race = h.go().error;
  EXPECT_TRUE(starts_with(race, "hazard: MTE2 overwrites L1") ||
              starts_with(race, "hazard: MTE1 reads L1"))
      << race;
}

TEST(AscendSim, DetectsFlagMisuseAndDeadlock) {
  Hand h;
  h.prog.buffers = {{sim::Mem::L1, 0, 512}};
  h.prog.instrs = {flag(sim::Op::WaitFlag, sim::Pipe::Mte1, sim::Pipe::Mte2, 0)};
  EXPECT_TRUE(starts_with(h.go().error, "deadlock: MTE1")) << h.go().error;
  h.prog.instrs = {flag(sim::Op::SetFlag, sim::Pipe::Mte2, sim::Pipe::Mte1, 0)};
  EXPECT_TRUE(starts_with(h.go().error, "flag: an event is still set")) << h.go().error;
  h.prog.instrs = {flag(sim::Op::SetFlag, sim::Pipe::Mte2, sim::Pipe::Mte1, 0),
                   flag(sim::Op::SetFlag, sim::Pipe::Mte2, sim::Pipe::Mte1, 0)};
  EXPECT_TRUE(starts_with(h.go().error, "flag: MTE2 sets event 0")) << h.go().error;
  h.prog.instrs = {flag(sim::Op::SetFlag, sim::Pipe::Mte2, sim::Pipe::Mte1, 9)};
  EXPECT_TRUE(starts_with(h.go().error, "instruction 0: event id")) << h.go().error;
}

// The builder's own streams: dropping any one wait_flag of a real plan is caught (as a hazard,
// an unbalanced flag or a deadlock), whichever wait it is.
TEST(AscendSim, EveryWaitOfABuiltProgramMatters) {
  const AscendProfile hw;
  const AscendShape s = shape(64, 64, 256);
  TilingPlan p = plan(32, 32, 32, 2);
  p.db_l0c = true;
  p.used_cores = 1;
  const sim::ProgramBuilder b(hw, s, p);
  ASSERT_TRUE(b.plan_error().empty());
  sim::CoreProgram prog;
  b.build_matmul(0, prog);
  sim::Engine engine(hw, s.dtype, 1);
  ASSERT_TRUE(engine.run(prog).ok);
  int waits = 0;
  for (std::size_t i = 0; i < prog.instrs.size(); ++i) {
    if (prog.instrs[i].op != sim::Op::WaitFlag) continue;
    ++waits;
    sim::CoreProgram broken = prog;
    broken.instrs.erase(broken.instrs.begin() + static_cast<std::ptrdiff_t>(i));
    const sim::CoreRun r = engine.run(broken);
    EXPECT_FALSE(r.ok) << "wait " << i << " removed, still accepted";
  }
  EXPECT_GT(waits, 20);
}

TEST(AscendSim, CorrectResultsOnSampleShapes) {
  struct Case {
    AscendShape s;
    TilingPlan p;
  };
  std::vector<Case> cases;
  cases.push_back({shape(64, 64, 64), plan(32, 32, 32, 1)});
  cases.push_back({shape(100, 77, 45), plan(32, 48, 32, 2)});  // unaligned M, N, K: padding
  cases.push_back({shape(33, 130, 300), plan(64, 64, 64, 4)});
  {
    AscendShape s = shape(70, 90, 150);
    s.trans_a = true;
    s.trans_b = true;
    s.lda = 75;  // A stored k x m with a pitch of 75
    cases.push_back({s, plan(32, 32, 32, 2)});
    TilingPlan p = plan(32, 32, 32, 2);
    p.relayout_a = true;
    p.relayout_b = true;
    cases.push_back({s, p});
  }
  {
    TilingPlan p = plan(32, 32, 32, 1);
    p.dist = Distribution::SplitK;
    p.split_k = 3;
    cases.push_back({shape(40, 50, 400), p});
  }
  {
    TilingPlan p = plan(32, 32, 32, 2);
    p.dist = Distribution::StreamK;
    p.used_cores = 3;
    p.db_l0c = true;
    cases.push_back({shape(100, 64, 333), p});  // 4 x 2 blocks on 3 cores: a tail of 2
  }
  cases.push_back({shape(50, 60, 200, InDType::Bf16), plan(32, 32, 64, 2, InDType::Bf16)});
  cases.push_back({shape(50, 60, 200, InDType::Int8), plan(32, 32, 64, 2, InDType::Int8)});
  {
    TilingPlan p = plan(32, 32, 64, 1, InDType::Int8);
    p.dist = Distribution::StreamK;
    p.used_cores = 4;
    cases.push_back({shape(65, 80, 500, InDType::Int8), p});
  }
  for (const Case& c : cases) {
    const SimResult r = run(c.s, c.p, true);
    EXPECT_TRUE(r.ok) << c.s.str() << " " << describe(c.p) << ": " << r.error;
    EXPECT_TRUE(r.checked);
    EXPECT_GT(r.total_us, 0);
  }
}

TEST(AscendSim, WrongArithmeticIsCaught) {
  // The result check itself: a C no instruction wrote (it starts as NaN) must fail.
  const AscendShape s = shape(64, 64, 128);
  TilingPlan p = plan(64, 64, 32, 1);
  p.used_cores = 1;
  sim::DataExecutor data(s, p, 5);
  EXPECT_GT(data.check(), 1.0);  // nothing executed: C still holds NaN
}

TEST(AscendSim, PlannerChoicesAreLegalAndCorrect) {
  const AscendProfile hw;
  const int64_t dims[][3] = {{1, 4096, 512}, {16, 16, 16},  {512, 512, 512}, {17, 300, 1000},
                             {200, 1, 77},   {384, 96, 64}, {1000, 24, 24}};
  for (const auto& d : dims) {
    const AscendShape s = shape(d[0], d[1], d[2]);
    const TilingPlan p = make_plan(s, hw);
    const SimResult r = run(s, p, true);
    EXPECT_TRUE(r.ok) << s.str() << " " << describe(p) << ": " << r.error;
  }
}

}  // namespace
}  // namespace adaptcore::ascend
