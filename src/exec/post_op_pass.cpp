#include "exec/post_op_pass.hpp"

#include <algorithm>

#include "adaptcore/bf16.hpp"
#include "kernels/post_ops_impl.hpp"

namespace adaptcore {
namespace {

// Columns a row is processed in: an even count (SwiGlu pairs stay together), on the stack.
constexpr int64_t kChunk = 512;

void load(const PostPass& p, int64_t i, int64_t j0, int64_t w, float* out) noexcept {
  if (p.scale == 0.0f) {
    for (int64_t j = 0; j < w; ++j) out[j] = 0.0f;
    return;
  }
  switch (p.element) {
    case CElement::F32: {
      const float* r = static_cast<const float*>(p.c) + i * p.ldc + j0;
      for (int64_t j = 0; j < w; ++j) out[j] = p.scale * r[j];
      break;
    }
    case CElement::Bf16: {
      const auto* r = static_cast<const std::uint16_t*>(p.c) + i * p.ldc + j0;
      for (int64_t j = 0; j < w; ++j) out[j] = p.scale * bf16_to_float(r[j]);
      break;
    }
    case CElement::S32: {
      const auto* r = static_cast<const std::int32_t*>(p.c) + i * p.ldc + j0;
      for (int64_t j = 0; j < w; ++j) out[j] = p.scale * static_cast<float>(r[j]);
      break;
    }
  }
}

void store(const PostPass& p, int64_t i, int64_t j0, int64_t w, const float* v) noexcept {
  if (p.element == CElement::F32) {
    float* r = static_cast<float*>(p.c) + i * p.ldc + j0;
    for (int64_t j = 0; j < w; ++j) r[j] = v[j];
  } else if (p.element == CElement::Bf16) {
    auto* r = static_cast<std::uint16_t*>(p.c) + i * p.ldc + j0;
    for (int64_t j = 0; j < w; ++j) r[j] = float_to_bf16(v[j]);
  }
}

}  // namespace

// The operations run through this unit's copy of the fused code (compiled for the baseline
// ISA): a pass is the rare case, and one code path keeps its results those of the fused one.
void run_post_pass(const PostOpChain& chain, const PostPass& p) noexcept {
  const bool last = p.last && chain.deferred_last;
  if (p.m <= 0 || p.n <= 0 || chain.empty() || (!p.front && !last)) return;
  PostOpChain front = chain;
  front.count = chain.fused_count();
  front.deferred_last = false;
  float buf[2][kChunk];
  // One row, or with a deferred SwiGlu along the rows the pair of rows (2q, 2q + 1) it combines.
  const bool row_pairs = last && chain.pairs_along_rows;
  const int64_t step = row_pairs ? 2 : 1;
  for (int64_t i = 0; i + step <= p.m; i += step) {
    for (int64_t j0 = 0; j0 < p.n; j0 += kChunk) {
      const int64_t w = std::min(kChunk, p.n - j0);
      for (int64_t r = 0; r < step; ++r) {
        load(p, i + r, j0, w, buf[r]);
        if (p.front) {  // also with no operation before a deferred one: C = scale C
          if (!front.empty())
            kernels::apply_post_ops(front, buf[r], 0, i + r, i + r + 1, j0, j0 + w);
          store(p, i + r, j0, w, buf[r]);
        }
      }
      if (!last) continue;
      const PostOpChain::Op& op = chain.ops[static_cast<std::size_t>(chain.count - 1)];
      if (!row_pairs) {  // pairs (2p, 2p + 1) of the row: the fused code's own output step
        kernels::post_output(op, buf[0], i, j0, w);
        continue;
      }
      const int64_t at = (i / 2) * op.out_rs + j0 * op.out_cs;
      const float* g = buf[0];
      const float* u = buf[1];
      if (op.out_bf16) {
        auto* o = static_cast<std::uint16_t*>(op.out) + at;
        for (int64_t j = 0; j < w; ++j)
          o[j * op.out_cs] = kernels::post_to_bf16(kernels::post_sigmoid_times(g[j], g[j]) * u[j]);
      } else {
        auto* o = static_cast<float*>(op.out) + at;
        for (int64_t j = 0; j < w; ++j)
          o[j * op.out_cs] = kernels::post_sigmoid_times(g[j], g[j]) * u[j];
      }
    }
  }
}

}  // namespace adaptcore
