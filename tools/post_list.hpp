// `adaptcore run --post LIST`: a fused post-op list named on the command line, with the data
// its operations read and the outputs they write, for a row-major m x n C (leading dimension
// ldc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"

namespace adaptcore::cli {

class PostList {
 public:
  // Comma-separated kinds: bias, scale, residual, relu, gelu_tanh, gelu_erf, silu, and last
  // swiglu or store_bf16. Throws std::runtime_error for an unknown name.
  PostList(const std::string& text, int64_t m, int64_t n);
  PostList(const PostList&) = delete;
  PostList& operator=(const PostList&) = delete;

  bool empty() const noexcept { return ops_.empty(); }
  CallOptions options() const noexcept;
  const std::string& text() const noexcept { return text_; }

 private:
  std::string text_;
  std::vector<float> bias_, scale_, residual_, out_;
  std::vector<bf16> out16_;
  std::vector<PostOp> ops_;
};

}  // namespace adaptcore::cli
