// Validation helpers in bytes for operands of any element size, shared by every call (fp32,
// low-precision, weight-quantized, weight quantization): leading dimensions, spans,
// address-range overflow and overlap, and the checks of C = op(A) op(B) in the order the calls
// report them.
#pragma once

#include <cstdint>

#include "adaptcore/types.hpp"

namespace adaptcore {

inline bool valid_layout(Layout l) { return l == Layout::RowMajor || l == Layout::ColMajor; }
inline bool valid_trans(Trans t) {
  return t == Trans::No || t == Trans::Yes || t == Trans::ConjYes;
}

// A stored operand: rows x cols with element strides and an element size in bytes.
struct ByteOperand {
  const void* ptr;
  int64_t rows, cols, rs, cs, eb;
};

// The smallest leading dimension (at least 1, as BLAS requires) of op(X), rows x cols, stored in
// the given layout, transposed (trans) or not.
inline int64_t min_leading_dim(bool row_major, bool trans, int64_t rows, int64_t cols) {
  const int64_t v = row_major != trans ? cols : rows;
  return v > 1 ? v : 1;
}

// op(X), rows x cols, of a matrix stored in the given layout with leading dimension ld: the
// layout's element strides, exchanged when the matrix is used transposed.
inline ByteOperand stored_operand(const void* ptr, int64_t rows, int64_t cols, bool row_major,
                                  bool trans, int64_t ld, int64_t eb) {
  const int64_t rs = row_major ? ld : 1, cs = row_major ? 1 : ld;
  return ByteOperand{ptr, rows, cols, trans ? cs : rs, trans ? rs : cs, eb};
}

// Bytes spanned from the first element to the end of the last, or -1 on overflow.
inline int64_t span_bytes(const ByteOperand& o) {
  if (o.rows == 0 || o.cols == 0) return 0;
  int64_t r = 0, c = 0, s = 0;
  if (__builtin_mul_overflow(o.rows - 1, o.rs, &r)) return -1;
  if (__builtin_mul_overflow(o.cols - 1, o.cs, &c)) return -1;
  if (__builtin_add_overflow(r, c, &s)) return -1;
  if (__builtin_add_overflow(s, int64_t{1}, &s)) return -1;
  if (__builtin_mul_overflow(s, o.eb, &s)) return -1;
  return s;
}

inline bool range_fits(const void* p, int64_t bytes) {
  std::uintptr_t end = 0;
  return !__builtin_add_overflow(reinterpret_cast<std::uintptr_t>(p),
                                 static_cast<std::uintptr_t>(bytes), &end);
}

// Overlap of two operands. Exact when both lie on one grid (same element size, same unit
// stride, same leading dimension), as in make_problem; otherwise any intersection of the
// byte footprints counts (conservative).
inline bool overlaps(const ByteOperand& x, int64_t xb_len, const ByteOperand& y, int64_t yb_len) {
  if (xb_len == 0 || yb_len == 0) return false;
  const auto xb = reinterpret_cast<std::uintptr_t>(x.ptr);
  const auto yb = reinterpret_cast<std::uintptr_t>(y.ptr);
  if (xb + static_cast<std::uintptr_t>(xb_len) <= yb ||
      yb + static_cast<std::uintptr_t>(yb_len) <= xb)
    return false;
  if (x.eb != y.eb) return true;
  auto as_grid = [](const ByteOperand& o, int64_t& ld, int64_t& lines, int64_t& width) {
    if (o.cs == 1 && o.rs >= o.cols) {
      ld = o.rs, lines = o.rows, width = o.cols;
      return true;
    }
    if (o.rs == 1 && o.cs >= o.rows) {
      ld = o.cs, lines = o.cols, width = o.rows;
      return true;
    }
    return false;
  };
  int64_t xl = 0, xn = 0, xw = 0, yl = 0, yn = 0, yw = 0;
  if (!as_grid(x, xl, xn, xw) || !as_grid(y, yl, yn, yw) || xl != yl) return true;
  const int64_t diff = static_cast<int64_t>(yb - xb);
  if (diff % x.eb != 0) return true;
  const int64_t d = diff / x.eb, ld = xl;
  const int64_t line = d >= 0 ? d / ld : -((-d + ld - 1) / ld);
  const int64_t col = d - line * ld;
  if (col + yw > ld) return true;
  return line < xn && line + yn > 0 && col < xw && col + yw > 0;
}

// The argument checks of C = op(A) op(B) (m x n, k deep) that come before any pointer is looked
// at: layout, transposes, dimensions, leading dimensions.
inline Status check_gemm_args(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n,
                              int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  if (!valid_layout(layout)) return Status::InvalidLayout;
  if (!valid_trans(transa) || !valid_trans(transb)) return Status::InvalidTranspose;
  if (m < 0 || n < 0 || k < 0) return Status::InvalidDimension;
  const bool row = layout == Layout::RowMajor;
  if (lda < min_leading_dim(row, transa != Trans::No, m, k) ||
      ldb < min_leading_dim(row, transb != Trans::No, k, n) ||
      ldc < min_leading_dim(row, false, m, n))
    return Status::InvalidLeadingDimension;
  return Status::Ok;
}

// The checks of the memory of op(A), op(B) and C that follow: size overflow, null pointers,
// address-range overflow, C overlapping A or B. C is looked at when it has elements, A and B
// only when the call reads them (reads_ab).
inline Status check_gemm_operands(const ByteOperand& a, const ByteOperand& b, const ByteOperand& c,
                                  bool reads_ab) {
  const int64_t a_len = span_bytes(a), b_len = span_bytes(b), c_len = span_bytes(c);
  if (a_len < 0 || b_len < 0 || c_len < 0) return Status::SizeOverflow;
  const bool writes_c = c.rows != 0 && c.cols != 0;
  if (writes_c && c.ptr == nullptr) return Status::NullPointer;
  if (reads_ab && (a.ptr == nullptr || b.ptr == nullptr)) return Status::NullPointer;
  if (writes_c && !range_fits(c.ptr, c_len)) return Status::SizeOverflow;
  if (reads_ab && (!range_fits(a.ptr, a_len) || !range_fits(b.ptr, b_len)))
    return Status::SizeOverflow;
  if (reads_ab && (overlaps(c, c_len, a, a_len) || overlaps(c, c_len, b, b_len)))
    return Status::Aliasing;
  return Status::Ok;
}

}  // namespace adaptcore
