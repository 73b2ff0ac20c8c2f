#include "exec/epilogue.hpp"

#include "core/post_ops.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore {
namespace {

std::uint32_t u32(std::int32_t v) { return static_cast<std::uint32_t>(v); }

// Value of byte element e of an int8 operand as the kernels see it (after the +128 flip).
std::int32_t int8_value(const LowpSide& s, std::uint8_t e) {
  if (s.flip) return static_cast<std::uint8_t>(e ^ 0x80u);
  return s.is_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(e)) : e;
}

}  // namespace

// The row sums of A over rows [m0, m1), as the kernels read its bytes.
void ZeroPointCompensation::row_sums(int64_t m0, int64_t m1, std::int32_t* rowsum) const noexcept {
  const LowpProblem& g = *g_;
  const auto* a_bytes = static_cast<const unsigned char*>(g.a.ptr);
  for (int64_t i = m0; i < m1; ++i) {
    std::uint32_t sum = 0;
    const auto* row = a_bytes + i * g.a.rs;
    for (int64_t q = 0; q < g.k; ++q) sum += u32(int8_value(g.a, row[q * g.a.cs]));
    rowsum[i - m0] = static_cast<std::int32_t>(sum);
  }
}

// Written as C(i, j) += (k za_i - rowsum_i) zb_j - za_i colsum_j with the column terms in
// arrays, so the inner loop is two multiply-adds the compiler vectorises. rowsum is indexed
// from the block's first row, colsum and zb from its first column.
void ZeroPointCompensation::compensate(const CBlock& blk, const EpilogueBuffers& b) const noexcept {
  const LowpProblem& g = *g_;
  const bool za = g.a.has_zp(), has_zb = g.b.has_zp();
  auto* c = static_cast<std::int32_t*>(g.c);
  const auto kk = static_cast<std::uint32_t>(g.k);
  const int64_t nb = blk.width();
  std::uint32_t* zb = b.zb;
  for (int64_t j = 0; j < nb; ++j) zb[j] = has_zb ? u32(g.b.zp_at(blk.n0 + j)) : 0u;
  const auto* cs = reinterpret_cast<const std::uint32_t*>(b.colsum);
  for (int64_t i = blk.m0; i < blk.m1; ++i) {
    auto* row = reinterpret_cast<std::uint32_t*>(c + i * g.ldc + blk.n0);
    const std::uint32_t zai = za ? u32(g.a.zp_at(i)) : 0u;
    const std::uint32_t rterm = kk * zai - (has_zb ? u32(b.rowsum[i - blk.m0]) : 0u);
    if (za) {
      for (int64_t j = 0; j < nb; ++j) row[j] += rterm * zb[j] - zai * cs[j];
    } else {
      for (int64_t j = 0; j < nb; ++j) row[j] += rterm * zb[j];
    }
  }
}

// One rounding of alpha * AB + beta * C to bf16, nearest even, from the fp32 block (row i at
// acc + (i - m0) * width).
void Bf16Rounding::round(const CBlock& blk, const EpilogueBuffers& b, float beta) const noexcept {
  const LowpProblem& g = *g_;
  auto* c = static_cast<std::uint16_t*>(g.c);
  const int64_t nb = blk.width();
  for (int64_t i = blk.m0; i < blk.m1; ++i) {
    const float* acc = b.acc + (i - blk.m0) * nb;
    std::uint16_t* row = c + i * g.ldc + blk.n0;
    if (ks_->round_bf16 != nullptr) {
      ks_->round_bf16(acc, row, nb, beta);
    } else if (beta == 0.0f) {
      for (int64_t j = 0; j < nb; ++j) row[j] = float_to_bf16(acc[j]);
    } else {
      for (int64_t j = 0; j < nb; ++j)
        row[j] = float_to_bf16(acc[j] + beta * bf16_to_float(row[j]));
    }
  }
}

void Bf16Rounding::add_old_c(const CBlock& blk, const EpilogueBuffers& b) const noexcept {
  const LowpProblem& g = *g_;
  if (g.beta == 0.0f) return;
  const auto* c = static_cast<const std::uint16_t*>(g.c);
  const int64_t nb = blk.width();
  for (int64_t i = blk.m0; i < blk.m1; ++i) {
    float* acc = b.acc + (i - blk.m0) * nb;
    const std::uint16_t* row = c + i * g.ldc + blk.n0;
    for (int64_t j = 0; j < nb; ++j) acc[j] += g.beta * bf16_to_float(row[j]);
  }
}

FusedPostOps::FusedPostOps(const LowpProblem& g, const kernels::LowpKernels& ks) noexcept
    : g_(&g),
      fn_(g.post != nullptr && !g.post->empty() ? kernels::kernels_for(ks.isa)->post_ops
                                                : nullptr) {}

void FusedPostOps::apply(const CBlock& blk, const EpilogueBuffers& b) const noexcept {
  if (!active()) return;
  const LowpProblem& g = *g_;
  if (g.dtype() != DType::U8S8) {
    fn_(*g.post, static_cast<float*>(g.c) + blk.m0 * g.ldc + blk.n0, g.ldc, blk.m0, blk.m1, blk.n0,
        blk.n1);
    return;
  }
  const int64_t nb = blk.width();
  const auto* c = static_cast<const std::int32_t*>(g.c);
  for (int64_t i = blk.m0; i < blk.m1; ++i) {
    float* acc = b.acc + (i - blk.m0) * nb;
    const std::int32_t* row = c + i * g.ldc + blk.n0;
    for (int64_t j = 0; j < nb; ++j) acc[j] = static_cast<float>(row[j]);
  }
  fn_(*g.post, b.acc, nb, blk.m0, blk.m1, blk.n0, blk.n1);
}

void FusedPostOps::apply_to_block(const CBlock& blk, float* acc) const noexcept {
  if (active()) fn_(*g_->post, acc, blk.width(), blk.m0, blk.m1, blk.n0, blk.n1);
}

}  // namespace adaptcore
