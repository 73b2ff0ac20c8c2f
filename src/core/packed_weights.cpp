// PackedWeights: the handle and the validation of a gemm_packed call (core/packed_weights.hpp).
#include "core/packed_weights.hpp"

#include <algorithm>

#include "core/internal_access.hpp"
#include "core/operand_bytes.hpp"

namespace adaptcore {

GemmProblem packed_problem(int64_t m, int64_t n, int64_t k, bool trans_a, int64_t lda, int64_t ldc,
                           int nr) noexcept {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.a_rs = trans_a ? 1 : lda, p.a_cs = trans_a ? lda : 1;
  // Strides of an extent-1 dimension made unit (make_problem's rule).
  if (m == 1) p.a_rs = 1;
  if (k == 1) p.a_cs = 1;
  p.b_rs = nr, p.b_cs = 1, p.b_panel_nr = nr;
  p.ldc = ldc;
  return p;
}

namespace {

// The checks every gemm_packed call starts with, in their order: layout (row-major only),
// transpose, m, handle (empty: NullPointer; of another type than `dtype`: InvalidArgument),
// leading dimensions. `pw`: the handle's state.
Status check_packed_call(Layout layout, Trans transa, int64_t m, int64_t lda,
                         const PackedWeights& w, DType dtype, int64_t ldc,
                         const detail::PackedWeightsImpl*& pw) noexcept {
  if (!valid_layout(layout)) return Status::InvalidLayout;
  if (layout != Layout::RowMajor) return Status::InvalidLayout;
  if (!valid_trans(transa)) return Status::InvalidTranspose;
  if (m < 0) return Status::InvalidDimension;
  pw = detail::impl_of(w);
  if (pw == nullptr) return Status::NullPointer;
  if (pw->dtype != dtype) return Status::InvalidArgument;
  if (lda < min_leading_dim(true, transa != Trans::No, m, pw->k) ||
      ldc < min_leading_dim(true, false, m, pw->n))
    return Status::InvalidLeadingDimension;
  return Status::Ok;
}

}  // namespace

Status make_packed_problem(Layout layout, Trans transa, int64_t m, float alpha, const float* a,
                           int64_t lda, const PackedWeights& w, float beta, float* c, int64_t ldc,
                           GemmProblem& out) noexcept {
  const detail::PackedWeightsImpl* pw = nullptr;
  if (const Status s = check_packed_call(layout, transa, m, lda, w, DType::F32, ldc, pw);
      s != Status::Ok)
    return s;
  const int64_t k = pw->k, n = pw->n;
  const bool ta = transa != Trans::No;
  const ByteOperand A = stored_operand(a, m, k, true, ta, lda, 4);
  const ByteOperand C = stored_operand(c, m, n, true, false, ldc, 4);
  // The weights as one dense k x n block (their real extent) for the overlap check.
  const ByteOperand B{pw->data.get(), k, n, n, 1, 4};
  const bool reads_ab = m > 0 && alpha != 0.0f;
  if (const Status s = check_gemm_operands(A, B, C, reads_ab); s != Status::Ok) return s;
  GemmProblem p = packed_problem(m, n, k, ta, lda, ldc, pw->nr);
  p.a = a, p.b = pw->data.get(), p.c = c;
  p.alpha = alpha, p.beta = beta;
  out = p;
  return Status::Ok;
}

LowpProblem packed_lowp_problem(LowpKind kind, int64_t m, int64_t n, int64_t k, bool trans_a,
                                int64_t lda, int64_t ldc, int nr) noexcept {
  LowpProblem p;
  p.kind = kind;
  p.m = m, p.n = n, p.k = k;
  p.a.rs = trans_a ? 1 : lda, p.a.cs = trans_a ? lda : 1;
  if (m == 1) p.a.rs = 1;
  if (k == 1) p.a.cs = 1;
  p.b.rs = nr, p.b.cs = 1;
  p.b.is_signed = dtype_of(kind) == DType::U8S8;
  p.b_panel_nr = nr;
  p.ldc = ldc;
  return p;
}

Status make_packed_lowp_problem(LowpKind kind, Layout layout, Trans transa, int64_t m, float alpha,
                                const void* a, int64_t lda, const PackedWeights& w, float beta,
                                void* c, int64_t ldc, LowpProblem& out) noexcept {
  const detail::PackedWeightsImpl* pw = nullptr;
  if (const Status s = check_packed_call(layout, transa, m, lda, w, dtype_of(kind), ldc, pw);
      s != Status::Ok)
    return s;
  const int64_t k = pw->k, n = pw->n;
  const bool ta = transa != Trans::No;
  const bool int8 = pw->dtype == DType::U8S8;
  const ByteOperand A = stored_operand(a, m, k, true, ta, lda, int8 ? 1 : 2);
  const ByteOperand C =
      stored_operand(c, m, n, true, false, ldc, kind == LowpKind::Bf16Bf16 ? 2 : 4);
  const auto len = static_cast<int64_t>(pw->bytes());
  const ByteOperand B{pw->data.get(), 1, len, len, 1, 1};
  const bool reads_ab = m > 0 && (int8 || alpha != 0.0f);
  if (const Status s = check_gemm_operands(A, B, C, reads_ab); s != Status::Ok) return s;
  LowpProblem p = packed_lowp_problem(kind, m, n, k, ta, lda, ldc, pw->nr);
  p.a.ptr = a, p.b.ptr = pw->data.get(), p.c = c;
  p.alpha = alpha, p.beta = beta;
  if (int8) {  // the bytes as make_lowp_problem reads them (an s8 A flipped to u8)
    p.a.flip = kind == LowpKind::S8S8S32;
    p.a.zp_add = p.a.flip ? 128 : 0;
    p.b.is_signed = true;
    p.b_colsum = pw->colsum.data();
  }
  out = p;
  return Status::Ok;
}

PackedWeights detail::InternalAccess::make_packed(
    std::unique_ptr<PackedWeightsImpl> impl) noexcept {
  return PackedWeights(std::move(impl));
}

PackedWeights::PackedWeights() noexcept = default;
PackedWeights::~PackedWeights() = default;
PackedWeights::PackedWeights(PackedWeights&& other) noexcept = default;
PackedWeights& PackedWeights::operator=(PackedWeights&& other) noexcept = default;
PackedWeights::PackedWeights(std::unique_ptr<detail::PackedWeightsImpl> impl) noexcept
    : impl_(std::move(impl)) {}

int64_t PackedWeights::k() const noexcept { return impl_ ? impl_->k : 0; }
int64_t PackedWeights::n() const noexcept { return impl_ ? impl_->n : 0; }
int PackedWeights::panel_cols() const noexcept { return impl_ ? impl_->nr : 0; }
Isa PackedWeights::isa() const noexcept { return impl_ ? impl_->isa : Isa::Auto; }
std::size_t PackedWeights::packed_bytes() const noexcept { return impl_ ? impl_->bytes() : 0; }
bool PackedWeights::holds_bf16() const noexcept { return impl_ && impl_->dtype == DType::Bf16; }
bool PackedWeights::holds_int8() const noexcept { return impl_ && impl_->dtype == DType::U8S8; }

}  // namespace adaptcore
