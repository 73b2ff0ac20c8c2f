#include "post_list.hpp"

#include <sstream>
#include <stdexcept>

namespace adaptcore::cli {

PostList::PostList(const std::string& text, int64_t m, int64_t n) : text_(text) {
  const auto mn = static_cast<std::size_t>(m * n);
  bias_.assign(static_cast<std::size_t>(n), 0.125f);
  scale_.assign(static_cast<std::size_t>(n), 0.5f);
  std::stringstream ss(text);
  std::string name;
  while (std::getline(ss, name, ',')) {
    if (name.empty()) continue;
    PostOp op;
    if (name == "bias") {
      op = {PostOpKind::Bias, bias_.data()};
    } else if (name == "scale") {
      op = {PostOpKind::Scale, scale_.data()};
    } else if (name == "residual") {
      residual_.assign(mn, 0.25f);
      op = {PostOpKind::Residual, residual_.data(), n};
    } else if (name == "relu") {
      op.kind = PostOpKind::Relu;
    } else if (name == "gelu_tanh") {
      op.kind = PostOpKind::GeluTanh;
    } else if (name == "gelu_erf") {
      op.kind = PostOpKind::GeluErf;
    } else if (name == "silu") {
      op.kind = PostOpKind::Silu;
    } else if (name == "swiglu") {
      out_.assign(mn / 2 + 1, 0.0f);
      op = {PostOpKind::SwiGlu, nullptr, n / 2, out_.data(), OutputType::F32};
    } else if (name == "store_bf16") {
      out16_.assign(mn + 1, bf16{});
      op = {PostOpKind::Store, nullptr, n, out16_.data(), OutputType::Bf16};
    } else {
      throw std::runtime_error("unknown post-op " + name +
                               " (bias, scale, residual, relu, gelu_tanh, gelu_erf, silu, swiglu, "
                               "store_bf16)");
    }
    ops_.push_back(op);
  }
}

CallOptions PostList::options() const noexcept {
  CallOptions o;
  o.post_ops = ops_.data();
  o.post_op_count = static_cast<int>(ops_.size());
  return o;
}

}  // namespace adaptcore::cli
