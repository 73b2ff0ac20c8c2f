#include "core/lowp_problem.hpp"

#include <cstdint>

#include "core/operand_bytes.hpp"

namespace adaptcore {

Status check_zero_points(const ZeroPoints& a_zp, int64_t m, const ZeroPoints& b_zp,
                         int64_t n) noexcept {
  auto count_ok = [](const ZeroPoints& z, int64_t extent) {
    return z.count == 0 || z.count == 1 || z.count == extent;
  };
  if (!count_ok(a_zp, m) || !count_ok(b_zp, n)) return Status::InvalidArgument;
  if ((a_zp.count > 0 && a_zp.values == nullptr) || (b_zp.count > 0 && b_zp.values == nullptr))
    return Status::NullPointer;
  return Status::Ok;
}

Status make_lowp_problem(const LowpCall& x, LowpProblem& out) noexcept {
  if (const Status s =
          check_gemm_args(x.layout, x.transa, x.transb, x.m, x.n, x.k, x.lda, x.ldb, x.ldc);
      s != Status::Ok)
    return s;
  const bool row = x.layout == Layout::RowMajor;
  const bool bf16 = dtype_of(x.kind) == DType::Bf16;
  const int64_t in_eb = bf16 ? 2 : 1;
  const int64_t c_eb = x.kind == LowpKind::Bf16Bf16 ? 2 : 4;
  const ByteOperand A = stored_operand(x.a, x.m, x.k, row, x.transa != Trans::No, x.lda, in_eb);
  const ByteOperand B = stored_operand(x.b, x.k, x.n, row, x.transb != Trans::No, x.ldb, in_eb);
  const ByteOperand C = stored_operand(x.c, x.m, x.n, row, false, x.ldc, c_eb);
  // bf16 follows BLAS (alpha == 0 reads neither A nor B); int8 has no alpha.
  const bool reads_ab = x.m != 0 && x.n != 0 && x.k > 0 && (!bf16 || x.alpha != 0.0f);
  if (const Status s = check_gemm_operands(A, B, C, reads_ab); s != Status::Ok) return s;
  if (!bf16)
    if (const Status s = check_zero_points(x.a_zp, x.m, x.b_zp, x.n); s != Status::Ok) return s;

  LowpProblem p;
  p.kind = x.kind;
  p.alpha = x.alpha;
  p.beta = x.beta;
  p.ibeta = x.ibeta;
  p.c = x.c;
  LowpSide sa, sb;
  sa.ptr = A.ptr, sa.rs = A.rs, sa.cs = A.cs;
  sb.ptr = B.ptr, sb.rs = B.rs, sb.cs = B.cs;
  if (!bf16) {
    sa.is_signed = false;  // u8, or s8 flipped to u8
    sa.flip = x.kind == LowpKind::S8S8S32;
    sa.zp_add = sa.flip ? 128 : 0;
    sa.zp = x.a_zp.values, sa.zp_count = x.a_zp.count;
    sb.is_signed = true;
    sb.zp = x.b_zp.values, sb.zp_count = x.b_zp.count;
  }
  if (row) {
    p.m = x.m, p.n = x.n, p.k = x.k;
    p.a = sa, p.b = sb;
    p.ldc = C.rs;
  } else {
    // C^T = op(B)^T op(A)^T, row-major: B becomes the left operand (its zero points per
    // column of op(B) are per row of the new A), A the right one.
    p.m = x.n, p.n = x.m, p.k = x.k;
    p.a = sb, p.a.rs = B.cs, p.a.cs = B.rs;
    p.b = sa, p.b.rs = A.cs, p.b.cs = A.rs;
    p.ldc = C.cs;
  }
  if (p.m == 1) p.a.rs = 1;
  if (p.k == 1) p.a.cs = 1, p.b.rs = 1;
  if (p.n == 1) p.b.cs = 1;
  out = p;
  return Status::Ok;
}

ShapeKey make_key(const LowpProblem& p, Isa isa, int threads) noexcept {
  const int eb = input_bytes(p.dtype());
  ShapeKey key;
  key.m = p.m, key.n = p.n, key.k = p.k;
  key.a_row_unit = p.a_row_unit();
  key.b_row_unit = p.b_row_unit();
  key.a_k_unit = p.a.cs == 1;
  key.b_k_unit = p.b.rs == 1;
  key.a_ld_log2 = key.a_row_unit ? stride_log2(p.a.rs, eb) : stride_log2(p.a.cs, eb);
  key.b_ld_log2 = key.b_row_unit ? stride_log2(p.b.rs, eb) : stride_log2(p.b.cs, eb);
  key.isa = isa;
  key.threads = threads;
  key.dtype = p.dtype();
  key.b_panel_nr = static_cast<std::uint8_t>(p.b_panel_nr);
  return key;
}

Status make_shape_lowp_problem(LowpKind kind, Layout layout, Trans transa, Trans transb, int64_t m,
                               int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                               LowpProblem& out) noexcept {
  static float stand_in_c = 0.0f;
  LowpCall call;
  call.kind = LowpKind::Bf16F32;
  call.layout = layout;
  call.transa = transa, call.transb = transb;
  call.m = m, call.n = n, call.k = k;
  call.alpha = 0.0f;
  call.lda = lda, call.ldb = ldb, call.ldc = ldc;
  call.c = &stand_in_c;
  const Status s = make_lowp_problem(call, out);
  if (s == Status::Ok) out.kind = kind;
  return s;
}

}  // namespace adaptcore
