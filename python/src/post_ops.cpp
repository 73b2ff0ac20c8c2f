#include "post_ops.hpp"

#include <cstring>
#include <string>

namespace adaptcore::python {

namespace {

// R as the library reads it: m x n in the call's layout; copied when stored in the other one.
const float* residual_in_layout(const nb::handle& data, Layout layout, int64_t m, int64_t n,
                                int64_t& ld, std::vector<unsigned char>& copy) {
  const auto r = nb::cast<InArray>(data);
  Mat mat = input_matrix(r, "post-op residual", {Elem::F32}, copy);
  if (mat.rows != m || mat.cols != n)
    throw nb::value_error(("post-op residual: expected " + std::to_string(m) + " x " +
                           std::to_string(n) + ", got " + std::to_string(mat.rows) + " x " +
                           std::to_string(mat.cols))
                              .c_str());
  if (mat.layout == layout) {
    ld = mat.ld;
    return static_cast<const float*>(mat.data);
  }
  std::vector<unsigned char> t(static_cast<std::size_t>(m * n) * sizeof(float));
  auto* dst = reinterpret_cast<float*>(t.data());
  const auto* src = static_cast<const float*>(mat.data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = mat.layout == Layout::RowMajor ? src[i * mat.ld + j] : src[j * mat.ld + i];
      if (layout == Layout::RowMajor)
        dst[i * n + j] = v;
      else
        dst[j * m + i] = v;
    }
  copy = std::move(t);
  ld = layout == Layout::RowMajor ? std::max<int64_t>(n, 1) : std::max<int64_t>(m, 1);
  return reinterpret_cast<const float*>(copy.data());
}

}  // namespace

void build_post_ops(const nb::handle& list, Layout layout, int64_t m, int64_t n, PostOpList& out) {
  out.count = 0;
  if (list.is_none()) return;
  const auto seq = nb::cast<nb::sequence>(list);
  const std::size_t count = nb::len(seq);
  if (count > static_cast<std::size_t>(kMaxPostOps))
    throw nb::value_error(
        ("post_ops: at most " + std::to_string(kMaxPostOps) + " operations").c_str());
  out.copies.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    nb::handle item = seq[i];
    PostOp op;
    const int kind = nb::cast<int>(item.attr("kind"));
    op.kind = static_cast<PostOpKind>(kind);
    nb::handle data = item.attr("data");
    switch (op.kind) {
      case PostOpKind::Bias:
      case PostOpKind::Scale:
        op.data = static_cast<const float*>(
            input_vector(nb::cast<InArray>(data), op.kind == PostOpKind::Bias ? "bias" : "scale",
                         Elem::F32, n, out.copies[i]));
        break;
      case PostOpKind::Residual:
        op.data = residual_in_layout(data, layout, m, n, op.ld, out.copies[i]);
        break;
      case PostOpKind::SwiGlu:
      case PostOpKind::Store: {
        const char* what = op.kind == PostOpKind::SwiGlu ? "swiglu output" : "store output";
        const Mat o = output_matrix(nb::cast<OutArray>(data), what, {Elem::F32, Elem::Bf16});
        const int64_t cols = op.kind == PostOpKind::SwiGlu ? n / 2 : n;
        if (o.rows != m || o.cols != cols)
          throw nb::value_error((std::string(what) + ": expected " + std::to_string(m) + " x " +
                                 std::to_string(cols) + ", got " + std::to_string(o.rows) + " x " +
                                 std::to_string(o.cols))
                                    .c_str());
        if (o.layout != layout && m > 1 && cols > 1)
          throw nb::value_error(
              (std::string(what) + ": must be stored in the same order as C").c_str());
        op.out = const_cast<void*>(o.data);
        // A one-row or one-column output is in either order: its ld in the call's.
        op.ld = o.layout == layout           ? o.ld
                : layout == Layout::RowMajor ? std::max<int64_t>(cols, 1)
                                             : std::max<int64_t>(m, 1);
        op.out_type = o.elem == Elem::Bf16 ? OutputType::Bf16 : OutputType::F32;
        break;
      }
      default:  // activations (the library refuses unknown kinds: InvalidArgument)
        break;
    }
    out.ops[i] = op;
  }
  out.count = static_cast<int>(count);
}

}  // namespace adaptcore::python
