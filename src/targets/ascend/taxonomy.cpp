#include "targets/ascend/taxonomy.hpp"

namespace adaptcore::ascend {

NpuClass classify(const AscendShape& s, const AscendProfile& hw) noexcept {
  NpuClass c;
  const double e = elem_bytes(s.dtype);
  const double mp = static_cast<double>(round_up(s.m, 16)),
               np = static_cast<double>(round_up(s.n, 16));
  const double kp = static_cast<double>(round_up(s.k, c0_elems(s.dtype)));
  const double a = mp * kp * e, b = kp * np * e, cb = mp * np * 4;
  // L0: one double-buffered base block holds everything.
  if (2 * a <= static_cast<double>(hw.l0a_bytes) && 2 * b <= static_cast<double>(hw.l0b_bytes) &&
      cb <= static_cast<double>(hw.l0c_bytes))
    c.capacity = NpuCapacity::L0;
  else if (a + b <= static_cast<double>(hw.l1_bytes))
    c.capacity = NpuCapacity::L1;
  else if (a + b + cb <= static_cast<double>(hw.l2_bytes))
    c.capacity = NpuCapacity::L2;
  else
    c.capacity = NpuCapacity::Hbm;

  // Blocks of the largest base block (either orientation, whichever gives more blocks).
  const int64_t t1 = ceil_div(s.m, kClassBlockM) * ceil_div(s.n, kClassBlockN);
  const int64_t t2 = ceil_div(s.m, kClassBlockN) * ceil_div(s.n, kClassBlockM);
  const int64_t tiles = t1 > t2 ? t1 : t2;
  const int64_t cores = hw.ai_cores;
  if (tiles < cores) {
    c.parallel = NpuParallel::Underfilled;
  } else {
    const int64_t tail = tiles % cores;
    c.parallel = tail != 0 && static_cast<double>(tail) < kWaveTailFill * static_cast<double>(cores)
                     ? NpuParallel::WaveTail
                     : NpuParallel::Balanced;
  }
  return c;
}

}  // namespace adaptcore::ascend
