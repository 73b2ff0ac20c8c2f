#include "core/wq_problem.hpp"

#include <algorithm>

#include "core/internal_access.hpp"
#include "core/operand_bytes.hpp"

namespace adaptcore {

Status make_wq_problem(Layout layout, Trans transa, int64_t m, const void* a, bool a_bf16,
                       int64_t lda, const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                       ActivationParts parts, WqProblem& out) noexcept {
  if (!valid_layout(layout)) return Status::InvalidLayout;
  if (!valid_trans(transa)) return Status::InvalidTranspose;
  if (m < 0) return Status::InvalidDimension;
  if (parts != ActivationParts::One && parts != ActivationParts::Two)
    return Status::InvalidArgument;
  if (!w.valid()) return Status::NullPointer;
  const int64_t k = w.k(), n = w.n();
  const bool row = layout == Layout::RowMajor, ta = transa != Trans::No;
  if (lda < min_leading_dim(row, ta, m, k) || ldc < min_leading_dim(row, false, m, n))
    return Status::InvalidLeadingDimension;
  const ByteOperand A = stored_operand(a, m, k, row, ta, lda, a_bf16 ? 2 : 4);
  const ByteOperand C = stored_operand(c, m, n, row, false, ldc, 4);
  const int64_t a_len = span_bytes(A), c_len = span_bytes(C);
  if (a_len < 0 || c_len < 0) return Status::SizeOverflow;
  if (m == 0) {
    out = WqProblem{};
    out.w = detail::impl_of(w);
    return Status::Ok;
  }
  if (a == nullptr || c == nullptr) return Status::NullPointer;
  if (!range_fits(a, a_len) || !range_fits(c, c_len)) return Status::SizeOverflow;
  if (overlaps(C, c_len, A, a_len)) return Status::Aliasing;
  WqProblem p;
  p.m = m;
  p.a = a, p.a_bf16 = a_bf16, p.a_rs = A.rs, p.a_cs = A.cs;
  p.c = c, p.c_rs = C.rs, p.c_cs = C.cs;
  if (m == 1) p.c_rs = 1;
  p.beta = beta;
  p.parts = static_cast<int>(parts);
  p.w = detail::impl_of(w);
  out = p;
  return Status::Ok;
}

DType wq_dtype(WeightFormat format, int parts) noexcept {
  if (format == WeightFormat::Int4) return parts == 2 ? DType::W4A16 : DType::W4A8;
  return parts == 2 ? DType::W8A16 : DType::W8A8;
}

ShapeKey make_key(const WqProblem& p, Isa isa, int threads) noexcept {
  ShapeKey key;
  key.m = p.m, key.n = p.n(), key.k = p.k();
  key.a_k_unit = p.a_cs == 1;
  key.a_row_unit = p.a_cs == 1;
  key.b_row_unit = true;  // the packed panels
  key.b_k_unit = false;
  key.a_ld_log2 = stride_log2(p.a_cs == 1 ? p.a_rs : p.a_cs, p.a_bf16 ? 2 : 4);
  key.b_ld_log2 = 0;
  key.isa = isa;
  key.threads = threads;
  key.dtype = wq_dtype(p.w->format, p.parts);
  key.wq_group = static_cast<std::uint16_t>(p.w->group_size);
  key.a_bf16 = p.a_bf16;
  return key;
}

ShapeKey make_wq_shape_key(int64_t m, int64_t n, int64_t k, DType dtype, int64_t group, bool a_bf16,
                           Isa isa, int threads) noexcept {
  detail::QuantizedWeightsImpl w;
  w.k = k, w.n = n;
  w.format = wq_dtype_int4(dtype) ? WeightFormat::Int4 : WeightFormat::Int8;
  w.group_size = group;
  WqProblem p;
  p.m = m;
  p.a_bf16 = a_bf16;
  p.a_rs = std::max<int64_t>(k, 1), p.a_cs = 1;
  p.parts = wq_dtype_parts(dtype);
  p.w = &w;
  return make_key(p, isa, threads);
}

}  // namespace adaptcore
