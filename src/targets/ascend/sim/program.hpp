// The simulator's input: per core, a stream of data-movement, cube and synchronisation
// instructions over declared buffers, as an Ascend C matmul kernel issues them (docs/ASCEND.md,
// "Simulator"). Instructions go to one of the pipes; each pipe runs its instructions in order,
// and pipes order themselves against each other only through set_flag / wait_flag events.
#pragma once

#include <cstdint>
#include <vector>

namespace adaptcore::ascend::sim {

// MTE2: GM -> L1 / UB. MTE1: L1 -> L0A/L0B. M: the cube. FIX: L0C -> GM. MTE3: UB -> GM.
enum class Pipe : std::uint8_t { Mte2, Mte1, Cube, Fix, Mte3 };
inline constexpr int kPipes = 5;
const char* to_string(Pipe p) noexcept;

enum class Mem : std::uint8_t { L1, L0A, L0B, L0C, Ub };
const char* to_string(Mem m) noexcept;

struct BufferDecl {
  Mem mem = Mem::L1;
  int64_t offset = 0;  // bytes from the start of the memory
  int64_t bytes = 0;
};

enum class Op : std::uint8_t {
  GmToL1,    // operand block (A or B^T) from GM into an L1 buffer in NZ layout, zero padded
  L1ToL0,    // one base_k slice of an L1 buffer into L0A (A) or L0B (B)
  Mmad,      // L0C[mp x np] (=|+=) L0A[mp x kp] * L0B[kp x np]
  L0CToGm,   // valid part of an L0C block into C (written, or atomically added)
  GmToUb,    // relayout pass: rows of an operand from GM into UB
  UbToGm,    // relayout pass: UB rows into the operand's padded NZ copy in GM; or zero-fill of C
  SetFlag,   // on pipe `pipe`: event (pipe -> peer, id) once the pipe's earlier work is done
  WaitFlag,  // on pipe `pipe`: block until event (peer -> pipe, id) is set, then clear it
};

enum class Operand : std::uint8_t { A, B, C };

struct Instr {
  Op op = Op::SetFlag;
  Pipe pipe = Pipe::Mte2;
  Pipe peer = Pipe::Mte2;  // flags: the other pipe
  Operand operand = Operand::A;
  std::uint8_t event = 0;           // flags: event id
  bool init = false;                // Mmad: start a new accumulation (L0C overwritten, not read)
  bool atomic = false;              // L0CToGm: add into C instead of writing
  bool from_l2 = false;             // GM reads: served by the shared L2 (else HBM)
  std::int16_t dst = -1, src = -1;  // buffer ids (-1: GM)
  std::int16_t src2 = -1;           // Mmad: the L0B buffer (src is L0A)
  // Geometry, in elements. Moves: rows x cols of the operand as stored (A: m x k, B^T: n x k,
  // C: m x n), starting at (row0, col0); rows_pad / cols_pad: the fractal-padded extent in the
  // destination. L1ToL0: col0 is the slice's k offset inside the L1 buffer. Mmad: rows_pad x
  // cols_pad (m x n) by depth_pad (k).
  int32_t rows = 0, cols = 0, rows_pad = 0, cols_pad = 0, depth_pad = 0;
  int64_t row0 = 0, col0 = 0;
  // GM moves: bytes the memory system delivers (whole sectors) and contiguous segments read.
  int64_t gm_bytes = 0;
  int32_t segments = 0;
};

// A kernel phase on one core: its buffers and its instruction stream.
struct CoreProgram {
  std::vector<BufferDecl> buffers;
  std::vector<Instr> instrs;
};

}  // namespace adaptcore::ascend::sim
