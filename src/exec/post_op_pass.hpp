// A fused epilogue (core/post_ops.hpp) run as a pass over a finished C, for what the executors'
// blocks cannot fuse: a SwiGlu whose pairs run along the normalised problem's rows (a
// column-major C), an int8 GEMM's post-ops after its C offset, and the calls that need no
// product (k = 0, alpha = 0) for C types other than fp32.
#pragma once

#include <cstdint>

#include "adaptcore/types.hpp"
#include "core/post_ops.hpp"

namespace adaptcore {

enum class CElement : std::uint8_t { F32, Bf16, S32 };

struct PostPass {
  void* c = nullptr;  // the normalised C: element (i, j) at c + i * ldc + j
  CElement element = CElement::F32;
  int64_t ldc = 0, m = 0, n = 0;
  // Each row is read as scale * C (scale 0: C is not read), the value the operations start from.
  float scale = 1.0f;
  // front: apply the operations the executors fuse (and write a float or bf16 C back; an int32
  // C keeps its values, the results go to the list's output). last: the deferred SwiGlu.
  bool front = false, last = false;
};

// Works in column chunks on the stack: allocates nothing, cannot fail.
void run_post_pass(const PostOpChain& chain, const PostPass& pass) noexcept;

}  // namespace adaptcore
