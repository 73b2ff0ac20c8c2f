#include "core/post_ops.hpp"

namespace adaptcore {
namespace {

bool known_kind(PostOpKind k) noexcept {
  switch (k) {
    case PostOpKind::Bias:
    case PostOpKind::Scale:
    case PostOpKind::Residual:
    case PostOpKind::Relu:
    case PostOpKind::GeluTanh:
    case PostOpKind::GeluErf:
    case PostOpKind::Silu: return true;
  }
  return false;
}

bool has_vector(PostOpKind k) noexcept { return k == PostOpKind::Bias || k == PostOpKind::Scale; }

}  // namespace

Status make_post_op_chain(const CallOptions& o, Layout layout, int64_t m, int64_t n,
                          const ByteOperand& c, bool c_transposed, PostOpChain& out) noexcept {
  out = PostOpChain{};
  if (o.post_op_count < 0 || o.post_op_count > kMaxPostOps) return Status::InvalidArgument;
  if (o.post_op_count > 0 && o.post_ops == nullptr) return Status::NullPointer;
  for (int i = 0; i < o.post_op_count; ++i)
    if (!known_kind(o.post_ops[i].kind)) return Status::InvalidArgument;
  if (m == 0 || n == 0) return Status::Ok;  // nothing is written
  const bool row = layout == Layout::RowMajor;
  const int64_t c_len = span_bytes(c);
  for (int i = 0; i < o.post_op_count; ++i) {
    const PostOp& p = o.post_ops[i];
    PostOpChain::Op op;
    op.kind = p.kind;
    if (has_vector(p.kind) || p.kind == PostOpKind::Residual) {
      if (p.data == nullptr) return Status::NullPointer;
      ByteOperand d{};
      if (has_vector(p.kind)) {
        d = ByteOperand{p.data, 1, n, n, 1, 4};
        // The caller's column j is the normalised problem's column, or its row when transposed.
        op.rs = c_transposed ? 1 : 0;
        op.cs = c_transposed ? 0 : 1;
      } else {
        if (p.ld < min_leading_dim(row, false, m, n)) return Status::InvalidLeadingDimension;
        d = stored_operand(p.data, m, n, row, false, p.ld, 4);
        // R(i, j) of the caller at data[i * d.rs + j * d.cs]; transposed, the normalised
        // C(i', j') is the caller's (j', i').
        op.rs = c_transposed ? d.cs : d.rs;
        op.cs = c_transposed ? d.rs : d.cs;
      }
      const int64_t len = span_bytes(d);
      if (len < 0 || !range_fits(p.data, len)) return Status::SizeOverflow;
      if (c_len > 0 && overlaps(c, c_len, d, len)) return Status::Aliasing;
      op.data = p.data;
    }
    out.ops[static_cast<std::size_t>(out.count++)] = op;
  }
  return Status::Ok;
}

}  // namespace adaptcore
