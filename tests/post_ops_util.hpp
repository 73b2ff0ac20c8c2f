// What the post-op tests share: the operations' data, the double-precision reference of a
// chain, the shapes that reach every plan kind and their operands.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace adaptcore::test {

inline double act(PostOpKind kind, double x) {
  switch (kind) {
    case PostOpKind::Relu: return std::max(x, 0.0);
    // The forms without cancellation in the negative tail (1 + tanh(u) = 2 sigmoid(2u),
    // 1 + erf(-z) = erfc(z)), so the reference is exact there too.
    case PostOpKind::GeluTanh:
      return x / (1.0 + std::exp(-2.0 * std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case PostOpKind::GeluErf: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case PostOpKind::Silu: return x / (1.0 + std::exp(-x));
    default: return x;
  }
}

// The operations' data for a call whose C is m x n in `layout`.
struct PostData {
  std::vector<float> bias, scale;
  Stored residual;
  std::vector<PostOp> ops;
};

inline PostData make_ops(const std::vector<PostOpKind>& kinds, int64_t m, int64_t n, Layout layout,
                         std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  PostData d;
  d.bias.resize(static_cast<std::size_t>(n));
  d.scale.resize(static_cast<std::size_t>(n));
  for (auto& x : d.bias) x = u(rng);
  for (auto& x : d.scale) x = 0.5f + u(rng);
  const bool row = layout == Layout::RowMajor;
  d.residual = Stored(m, n, layout, (row ? n : m) + 2, 1);
  d.residual.fill([&](int64_t, int64_t) { return u(rng); });
  for (const PostOpKind k : kinds) {
    PostOp op;
    op.kind = k;
    if (k == PostOpKind::Bias) op.data = d.bias.data();
    if (k == PostOpKind::Scale) op.data = d.scale.data();
    if (k == PostOpKind::Residual) op.data = d.residual.data(), op.ld = d.residual.ld();
    d.ops.push_back(op);
  }
  return d;
}

// Applies the chain to the reference in double; the bound grows by each operation's factor
// (|slope| <= 1.13 for the activations, the scale's value), plus each step's fp32 rounding and
// the activations' approximation (a few ulp).
inline void apply_reference(const PostData& d, Reference& r) {
  for (int64_t i = 0; i < r.m; ++i)
    for (int64_t j = 0; j < r.n; ++j) {
      double& v = r.ref[static_cast<std::size_t>(i * r.n + j)];
      double& b = r.bound[static_cast<std::size_t>(i * r.n + j)];
      for (const PostOp& op : d.ops) {
        switch (op.kind) {
          case PostOpKind::Bias: v += d.bias[static_cast<std::size_t>(j)]; break;
          case PostOpKind::Scale:
            v *= d.scale[static_cast<std::size_t>(j)];
            b *= std::fabs(d.scale[static_cast<std::size_t>(j)]);
            break;
          case PostOpKind::Residual: v += d.residual.at(i, j); break;
          case PostOpKind::SwiGlu:
          case PostOpKind::Store: continue;  // outputs of their own (output_reference)
          default:
            v = act(op.kind, v);
            b *= 1.13;
            break;
        }
        b += 8.0 * std::numeric_limits<float>::epsilon() * std::fabs(v) + 1e-7;
      }
    }
}

inline const std::vector<std::vector<PostOpKind>> kChains = {
    {PostOpKind::Bias},
    {PostOpKind::Relu},
    {PostOpKind::GeluTanh},
    {PostOpKind::GeluErf},
    {PostOpKind::Silu},
    {PostOpKind::Residual},
    {PostOpKind::Scale},
    {PostOpKind::Bias, PostOpKind::GeluErf, PostOpKind::Scale, PostOpKind::Residual},
    {PostOpKind::Scale, PostOpKind::Bias, PostOpKind::Silu, PostOpKind::Relu},
};

// Shapes that reach every plan kind (register tiles with tails, one and several depth blocks,
// split-K on a deep K, dot plans on NT, rank-k rows at K <= 8, transposed plans for C of a few
// columns, k = 0).
struct Shape {
  int64_t m, n, k;
  Trans ta, tb;
};
inline const Shape kShapes[] = {
    {1, 1, 1, Trans::No, Trans::No},      {7, 13, 29, Trans::No, Trans::No},
    {64, 96, 300, Trans::No, Trans::No},  {33, 70, 700, Trans::Yes, Trans::No},
    {4, 40, 3000, Trans::No, Trans::No},  {3, 37, 64, Trans::No, Trans::Yes},
    {600, 300, 2, Trans::No, Trans::No},  {200, 5, 40, Trans::No, Trans::No},
    {150, 3, 17, Trans::Yes, Trans::Yes}, {9, 11, 0, Trans::No, Trans::No},
    {1, 257, 100, Trans::No, Trans::No},  {130, 1, 70, Trans::Yes, Trans::No},
};

// A shape's operands in `layout` (leading dimensions padded), values uniform in [-1, 1) passed
// through `round` (the identity, or to bf16), and C0 (NaN where beta is 0: never read).
struct Operands {
  Stored a, b, c0;
};
inline Operands make_operands(
    const Shape& s, Layout layout, float beta, std::mt19937& rng,
    float (*round)(float) = [](float x) { return x; }) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const bool row = layout == Layout::RowMajor;
  const int64_t ar = transposed(s.ta) ? s.k : s.m, ac = transposed(s.ta) ? s.m : s.k;
  const int64_t br = transposed(s.tb) ? s.n : s.k, bc = transposed(s.tb) ? s.k : s.n;
  Operands o{Stored(ar, ac, layout, std::max<int64_t>(1, row ? ac : ar), 0),
             Stored(br, bc, layout, std::max<int64_t>(1, row ? bc : br) + 1, 0),
             Stored(s.m, s.n, layout, (row ? s.n : s.m) + 1, 0)};
  o.a.fill([&](int64_t, int64_t) { return round(u(rng)); });
  o.b.fill([&](int64_t, int64_t) { return round(u(rng)); });
  o.c0.fill([&](int64_t, int64_t) { return beta == 0.0f ? qnan() : u(rng); });
  return o;
}

// The reference of a call with a chain: the product in double, then the chain applied.
inline Reference chain_reference(const Shape& s, float alpha, float beta, const Operands& x,
                                 const PostData& d) {
  Reference ref = reference_gemm(s.ta, s.tb, s.m, s.n, s.k, alpha, x.a, x.b, beta, x.c0);
  apply_reference(d, ref);
  return ref;
}
inline CallOptions options_of(const PostData& d) {
  CallOptions o;
  o.post_ops = d.ops.data();
  o.post_op_count = static_cast<int>(d.ops.size());
  return o;
}
// What a failure message names: configuration, shape, layout and transposes, chain.
inline std::string case_name(const Config& cfg, const Shape& s, Layout layout, std::size_t ci) {
  std::ostringstream os;
  os << cfg.name() << " " << s.m << "x" << s.n << "x" << s.k << " " << name(layout) << name(s.ta)
     << name(s.tb) << " chain " << ci << ":";
  return os.str();
}

}  // namespace adaptcore::test
