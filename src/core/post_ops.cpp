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
    case PostOpKind::Silu:
    case PostOpKind::SwiGlu:
    case PostOpKind::Store: return true;
  }
  return false;
}

bool has_vector(PostOpKind k) noexcept { return k == PostOpKind::Bias || k == PostOpKind::Scale; }

}  // namespace

bool is_output_op(PostOpKind k) noexcept {
  return k == PostOpKind::SwiGlu || k == PostOpKind::Store;
}

Status make_post_op_chain(const CallOptions& o, Layout layout, int64_t m, int64_t n,
                          const ByteOperand& c, bool c_transposed, PostOpChain& out,
                          std::span<const ByteOperand> operands) noexcept {
  out = PostOpChain{};
  if (o.post_op_count < 0 || o.post_op_count > kMaxPostOps) return Status::InvalidArgument;
  if (o.post_op_count > 0 && o.post_ops == nullptr) return Status::NullPointer;
  for (int i = 0; i < o.post_op_count; ++i) {
    const PostOp& p = o.post_ops[i];
    if (!known_kind(p.kind)) return Status::InvalidArgument;
    if (is_output_op(p.kind) && (i != o.post_op_count - 1 ||
                                 (p.out_type != OutputType::F32 && p.out_type != OutputType::Bf16)))
      return Status::InvalidArgument;
  }
  if (m == 0 || n == 0) return Status::Ok;  // nothing is written
  const bool row = layout == Layout::RowMajor;
  const int64_t c_len = span_bytes(c);
  // The regions read by the operations, for the output's overlap check.
  ByteOperand read[kMaxPostOps]{};
  int64_t read_len[kMaxPostOps]{};
  int reads = 0;
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
      read[reads] = d;
      read_len[reads++] = len;
    } else if (is_output_op(p.kind)) {
      const bool swiglu = p.kind == PostOpKind::SwiGlu;
      if (swiglu && n % 2 != 0) return Status::ShapeMismatch;  // its columns come in pairs
      if (p.out == nullptr) return Status::NullPointer;
      const int64_t cols = swiglu ? n / 2 : n;
      if (p.ld < min_leading_dim(row, false, m, cols)) return Status::InvalidLeadingDimension;
      const int64_t eb = p.out_type == OutputType::Bf16 ? 2 : 4;
      const ByteOperand d = stored_operand(p.out, m, cols, row, false, p.ld, eb);
      const int64_t len = span_bytes(d);
      if (len < 0 || !range_fits(p.out, len)) return Status::SizeOverflow;
      if (c_len > 0 && overlaps(c, c_len, d, len)) return Status::Aliasing;
      for (int r = 0; r < reads; ++r)
        if (overlaps(read[r], read_len[r], d, len)) return Status::Aliasing;
      for (const ByteOperand& x : operands) {
        const int64_t xl = x.ptr != nullptr ? span_bytes(x) : 0;
        if (xl > 0 && overlaps(x, xl, d, len)) return Status::Aliasing;
      }
      // The caller's (r, c) at r * d.rs + c * d.cs; transposed, the normalised (i, j) is the
      // caller's (j, i) (a column-major C, or a one-column C solved as its transpose).
      op.out = p.out;
      op.out_rs = c_transposed ? d.cs : d.rs;
      op.out_cs = c_transposed ? d.rs : d.cs;
      op.out_bf16 = p.out_type == OutputType::Bf16;
      out.deferred_last = out.pairs_along_rows = swiglu && c_transposed;
    }
    out.ops[static_cast<std::size_t>(out.count++)] = op;
  }
  return Status::Ok;
}

}  // namespace adaptcore
