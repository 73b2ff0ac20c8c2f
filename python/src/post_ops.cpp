#include "post_ops.hpp"

#include "common.hpp"

#include <cstring>
#include <string>

namespace adaptcore::python {

namespace {

// R as the library reads it: m x n in the call's layout; copied when stored in the other one.
const float* residual_in_layout(const InArray& r, Layout layout, int64_t m, int64_t n, int64_t& ld,
                                std::vector<unsigned char>& copy) {
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

// Checks each entry's arrays against the call and fills `out`.
void build_post_ops(const nb::handle& list, Layout layout, int64_t m, int64_t n, PostOpList& out) {
  out.count = 0;
  if (list.is_none()) return;
  // One operation is not a list of them (adaptcore.post's operations are tuples themselves).
  if (!nb::isinstance<nb::sequence>(list) || nb::isinstance<nb::str>(list) ||
      (nb::hasattr(list, "kind") && nb::hasattr(list, "data")))
    throw nb::type_error("post_ops: expected a list of operations from adaptcore.post");
  const auto seq = nb::borrow<nb::sequence>(list);
  const std::size_t count = nb::len(seq);
  if (count > static_cast<std::size_t>(kMaxPostOps))
    throw nb::value_error(
        ("post_ops: at most " + std::to_string(kMaxPostOps) + " operations").c_str());
  out.copies.resize(count);
  out.inputs.reserve(count);
  out.outputs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    nb::object item = seq[i];
    PostOp op;
    int kind = 0;
    if (!nb::hasattr(item, "kind") || !nb::hasattr(item, "data") ||
        !nb::try_cast<int>(item.attr("kind"), kind))
      throw nb::type_error(("post_ops[" + std::to_string(i) +
                            "]: expected an operation from adaptcore.post (adaptcore.post.relu(), "
                            "post.bias(v), ...), got " +
                            nb::str(item.type().attr("__name__")).c_str())
                               .c_str());
    op.kind = static_cast<PostOpKind>(kind);
    nb::object data = item.attr("data");
    out.keep.push_back(item);
    out.keep.push_back(data);
    switch (op.kind) {
      case PostOpKind::Bias:
      case PostOpKind::Scale:
        out.inputs.push_back(nb::cast<InArray>(data));
        op.data = static_cast<const float*>(
            input_vector(out.inputs.back(), op.kind == PostOpKind::Bias ? "bias" : "scale",
                         Elem::F32, n, out.copies[i]));
        break;
      case PostOpKind::Residual:
        out.inputs.push_back(nb::cast<InArray>(data));
        op.data = residual_in_layout(out.inputs.back(), layout, m, n, op.ld, out.copies[i]);
        break;
      case PostOpKind::SwiGlu:
      case PostOpKind::Store: {
        const char* what = op.kind == PostOpKind::SwiGlu ? "swiglu output" : "store output";
        out.outputs.push_back(nb::cast<OutArray>(data));
        const Mat o = output_matrix(out.outputs.back(), what, {Elem::F32, Elem::Bf16});
        const int64_t cols = op.kind == PostOpKind::SwiGlu ? n / 2 : n;
        if (o.rows != m || o.cols != cols)
          throw nb::value_error((std::string(what) + ": expected " + std::to_string(m) + " x " +
                                 std::to_string(cols) + ", got " + std::to_string(o.rows) + " x " +
                                 std::to_string(o.cols))
                                    .c_str());
        if (!output_ld_in(out.outputs.back(), layout, op.ld))
          throw nb::value_error(
              (std::string(what) + ": must be stored in the same order as C").c_str());
        op.out = const_cast<void*>(o.data);
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

}  // namespace

CallOptions call_options(const nb::handle& post_ops, const std::string& residency, Layout layout,
                         int64_t m, int64_t n, PostOpList& storage) {
  CallOptions options;
  options.residency = parse_residency(residency);
  build_post_ops(post_ops, layout, m, n, storage);
  options.post_ops = storage.ops.data();
  options.post_op_count = storage.count;
  return options;
}

}  // namespace adaptcore::python
