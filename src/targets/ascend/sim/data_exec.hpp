// Data mode of the simulator: executes the instruction stream on real data. Operands live in
// "GM" as the shape stores them (16-bit fp16/bf16 bit patterns or int8, row pitch, transposes);
// each core's L1, L0A, L0B, L0C and UB are byte arrays addressed through the declared buffers,
// in the fractal layouts (NZ in L1, zZ in L0A/L0B, NZ fp32/int32 in L0C). The cube multiplies
// exactly (a product of two 16-bit floats fits fp32) and accumulates in fp32 (int32 for int8).
#pragma once

#include <cstdint>
#include <vector>

#include "targets/ascend/shape.hpp"
#include "targets/ascend/sim/engine.hpp"
#include "targets/ascend/tiling.hpp"

namespace adaptcore::ascend::sim {

class DataExecutor final : public InstrSink {
 public:
  // Fills A and B with random values (uniform in [-1, 1) rounded to the input type, or int8 in
  // [-128, 127]) and C with a NaN / garbage pattern, so a block never written shows up.
  DataExecutor(const AscendShape& s, const TilingPlan& p, std::uint64_t seed);
  void execute(const Instr& in, const std::vector<BufferDecl>& buffers) override;

  // Compares C with a double-precision reference from the same (rounded) inputs. Returns the
  // largest error as a multiple of the allowed error (<= 1 passes): fp32 accumulation of K
  // products, bound (K + 2 + atomic adds) * 2^-24 * sum |a b|; int8 must be exact.
  double check(int64_t* bad_row = nullptr, int64_t* bad_col = nullptr) const;

 private:
  float a_at(int64_t i, int64_t p) const;  // op(A)(i, p) from GM as stored
  float b_at(int64_t p, int64_t j) const;  // op(B)(p, j)
  float stored(const std::vector<std::uint16_t>& h16, const std::vector<std::int8_t>& i8,
               int64_t idx) const;
  std::uint8_t* local(const BufferDecl& b);
  void put(std::uint8_t* base, int64_t idx, float v) const;  // element idx of an input-typed buffer
  float get(const std::uint8_t* base, int64_t idx) const;

  AscendShape s_;
  TilingPlan p_;
  int e_, c0_;
  std::vector<std::uint16_t> a16_, b16_;
  std::vector<std::int8_t> a8_, b8_;
  std::vector<float> a_copy_, b_copy_;  // relayouted fractal copies (values), padded
  int64_t mpad_all_, npad_all_, kpad_all_;
  std::vector<float> c_;  // fp32 or exact int32 values (|int8 dot| < 2^24 for k < 1024: checked)
  std::vector<std::int64_t> c_int_;
  std::vector<std::uint8_t> mem_[5];
  std::vector<float> fa_, fb_;  // mmad scratch
};

}  // namespace adaptcore::ascend::sim
